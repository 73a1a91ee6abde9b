#!/usr/bin/env python3
"""The checks of the repository's records, apart from the tests of its code: a red check
here means a record is wrong or out of date, never that the engine is.

    python3 tools/check_records.py [--root DIR] [--only NAME ...]

Each check names the record at fault and why; the command exits 1 when any finds one.

    commits   every "commit HASH" the docs and the run records cite names a commit of this
              repository, a hash that names one is written that way, no branch of another
              machine (cand/...) is cited; needs the full history (not a shallow clone)
    links     every relative link and every bench/results file the docs and the run
              records name exists, and every link to an anchor finds its heading
    runs      bench/results/runs.jsonl follows the rules of tools/runs.py, RUNS.md is what
              it makes, and every log a run names is in bench/results
    results   bench/results stays small and holds no PGN or per-game log
    readme    the README stays within README_MAX_BYTES
    data      data/ matches its manifest, file by file, within the repository's budget
    strength  the shipped strength table is stamped for the shipped network and the bench
              signature tests/test_bench.py pins, with its records or its validation

The docs are README.md, docs/*.md and every .md under bench/. Needs the package installed
(the data and strength checks read records through it), as the tests do.
"""
import argparse
import ast
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runs  # noqa: E402  (tools/runs.py, beside this file)

README_MAX_BYTES = 12_288        # the README's first screens stay short; the how-to is in docs/
RESULTS_MAX_BYTES = 1_500_000    # bench/results: the logs behind the docs' figures only
DATA_BUDGET_BYTES = 200 << 20    # every chunk of data/ together
GIT_TIMEOUT_S = 60

COMMIT_REF = re.compile(r"\b[Cc]ommit\s+([0-9a-f]{7,40})\b")
HEX = re.compile(r"\b[0-9a-f]{7,40}\b")
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
RESULTS_PATH = re.compile(r"bench/results/[\w.+*-]*")
LOG_NAME = re.compile(r"`([\w.+-]+\.(?:txt|log))`")
RECORDS_NAME = re.compile(r"`([\w.+-]+\.jsonl(?:\.xz)?)`")
CAND_BRANCH = re.compile(r"\bcand/[\w.-]+")


class Doc:
    """A text the checks read: a Markdown file, or one run's record (its fields' text, read
    as if it lay in bench/results, where RUNS.md shows it)."""

    def __init__(self, name, folder, text, record=False):
        self.name, self.folder, self.text, self.record = name, folder, text, record

    def where(self, pos):
        """The record and, in a file, the line of a position in the text."""
        return self.name if self.record else f"{self.name}:{self.text.count(chr(10), 0, pos) + 1}"


def read(root, name):
    with open(os.path.join(root, name), encoding="utf-8") as f:
        return f.read()


def doc_files(root):
    """README.md, docs/*.md and every .md under bench/, as paths relative to root."""
    names = ["README.md"] + sorted(glob.glob("docs/*.md", root_dir=root))
    names += sorted(glob.glob("bench/**/*.md", root_dir=root, recursive=True))
    return [n for n in names if os.path.isfile(os.path.join(root, n))]


def strings(value):
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def run_records(root):
    """(line, record) of bench/results/runs.jsonl; [] where it cannot be read (the runs check
    says why)."""
    path = os.path.join(root, "bench", "results", "runs.jsonl")
    try:
        return list(enumerate(runs.load(path), 1))
    except (OSError, runs.RecordError):
        return []


def docs(root):
    """The Markdown docs, then each run record."""
    out = [Doc(n, os.path.dirname(n), read(root, n)) for n in doc_files(root)]
    for n, r in run_records(root):
        # its "commit" list holds bare hashes by design; the commits check reads it apart
        text = "\n".join(strings({k: v for k, v in r.items() if k != "commit"}))
        out.append(Doc(f"bench/results/runs.jsonl:{n} (run {r.get('id')})", "bench/results",
                       text, record=True))
    return out


# --- commits ---------------------------------------------------------------------------

def git(root, *args, stdin=None):
    return subprocess.run(["git", "-C", root, *args], input=stdin, capture_output=True,
                          text=True, timeout=GIT_TIMEOUT_S)


def commit_refs(text):
    """(position, hash) of every "commit HASH" in a text."""
    return [(m.start(), m.group(1).lower()) for m in COMMIT_REF.finditer(text)]


def bare_hashes(text):
    """(position, token) of hex tokens that are not part of a "commit HASH" citation, outside
    code spans and link targets (commands and file names may carry hashes)."""
    cited = [m.span(1) for m in COMMIT_REF.finditer(text)]
    plain = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text)
    plain = LINK.sub(lambda m: "](" + " " * len(m.group(1)) + ")", plain)
    return [(m.start(), m.group(0)) for m in HEX.finditer(plain)
            if not any(a <= m.start() < b for a, b in cited)]


def resolving(root, hashes):
    """The subset of hashes (short or full) that name exactly one commit of the repository."""
    hashes = sorted(set(hashes))
    if not hashes:
        return set()
    out = git(root, "cat-file", "--batch-check",
              stdin="".join(f"{h}^{{commit}}\n" for h in hashes))
    lines = out.stdout.splitlines()
    if out.returncode != 0 or len(lines) != len(hashes):
        raise RuntimeError(f"git cat-file failed: {out.stderr.strip()}")
    # a found object prints "<full hash> commit <size>"; else "<name> missing" / "ambiguous"
    return {h for h, line in zip(hashes, lines) if line.split()[1:2] == ["commit"]}


def history_problem(root):
    """Why the commits cannot be checked in root (not a checkout, a shallow clone), or None."""
    inside = git(root, "rev-parse", "--is-inside-work-tree")
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        return f"{root} is not a git checkout: the commits the records cite need one"
    if git(root, "rev-parse", "--is-shallow-repository").stdout.strip() != "false":
        return (f"{root} is a shallow clone, so the commits the records cite cannot be "
                "checked: run `git fetch --unshallow` and check again")
    return None


def check_commits(root):
    why = history_problem(root)
    if why:
        return [why]
    all_docs = docs(root)
    out = []
    refs = [(d, pos, h) for d in all_docs for pos, h in commit_refs(d.text)]
    listed = [(f"bench/results/runs.jsonl:{n} (run {r.get('id')})", h)
              for n, r in run_records(root) for h in r.get("commit") or []
              if isinstance(h, str)]
    bare = [(d, pos, t) for d in all_docs for pos, t in bare_hashes(d.text)]
    found = resolving(root, [h for _, _, h in refs] + [h for _, h in listed] +
                      [t for _, _, t in bare])
    out += [f"{d.where(pos)}: commit {h} is not in this repository (say what the change was "
            "instead)" for d, pos, h in refs if h not in found]
    out += [f"{name}: its \"commit\" list names {h}, not a commit of this repository"
            for name, h in listed if h not in found]
    out += [f"{d.where(pos)}: {t} names a commit: write it \"commit {t}\"" for d, pos, t in bare
            if t in found]
    out += [f"{d.where(m.start())}: {m.group(0)} is a branch this repository does not hold"
            for d in all_docs for m in CAND_BRANCH.finditer(d.text)]
    return out


# --- links -----------------------------------------------------------------------------

def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading)
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(text):
    """Every anchor a Markdown text's headings make (a repeated one gets -1, -2, ...)."""
    out, seen = set(), {}
    in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m and not in_code:
            a = slug(m.group(1))
            n = seen.get(a, 0)
            seen[a] = n + 1
            out.add(a if n == 0 else f"{a}-{n}")
    return out


def check_links(root):
    out = []
    for d in docs(root):
        for m in RESULTS_PATH.finditer(d.text):
            path = m.group(0).rstrip(".")
            # a run's command names the records it appended to, compressed once finished
            if not glob.glob(os.path.join(root, path)) + \
                    glob.glob(os.path.join(root, path + ".xz")):
                out.append(f"{d.where(m.start())}: {path} is not in the repository")
        for m in LINK.finditer(d.text):
            target, _, frag = m.group(1).partition("#")
            if re.match(r"[a-z]+:", target):
                continue                                   # a URL
            path = os.path.normpath(os.path.join(d.folder, target)) if target else d.name
            if target and not os.path.exists(os.path.join(root, path)):
                out.append(f"{d.where(m.start())}: the link {m.group(1)} finds no file")
            elif frag and path.endswith(".md") and os.path.isfile(os.path.join(root, path)) \
                    and frag not in anchors(read(root, path)):
                out.append(f"{d.where(m.start())}: the link {m.group(1)} finds no heading "
                           f"#{frag} in {path}")
    return out


# --- the run log and the results folder ------------------------------------------------

def check_runs(root):
    results = os.path.join(root, "bench", "results")
    out = runs.check(os.path.join(results, "runs.jsonl"), os.path.join(results, "RUNS.md"))
    for n, r in run_records(root):
        text = "\n".join(strings(r))
        names = [m.group(1) for m in LOG_NAME.finditer(text)]
        names += [m.group(1) for m in RECORDS_NAME.finditer(str(r.get("log")))]
        out += [f"bench/results/runs.jsonl:{n} (run {r.get('id')}): names the log {name}, "
                "which bench/results does not hold" for name in dict.fromkeys(names)
                if not os.path.isfile(os.path.join(results, name))]
    return out


def tracked(root, folder):
    """The files of a folder git tracks (every file, where root is not a checkout)."""
    listed = git(root, "ls-files", "-z", "--", folder).stdout.split("\0")
    files = [os.path.join(root, f) for f in listed if f]
    return files or [os.path.join(dirpath, n) for dirpath, _, names in os.walk(folder)
                     for n in names]


def gauntlet_records(path):
    """Whether a file is a gauntlet's records, as the gauntlet itself reads them."""
    from black_numba.arena.gauntlet import GauntletError, read_records
    try:
        return read_records(path)[0] is not None
    except (OSError, GauntletError):
        return False


def check_results(root):
    folder = os.path.join(root, "bench", "results")
    files = [f for f in tracked(root, folder) if os.path.isfile(f)]
    out = []
    size = sum(os.path.getsize(f) for f in files)
    if size > RESULTS_MAX_BYTES:
        out.append(f"bench/results: {size:,} bytes, over {RESULTS_MAX_BYTES:,}: match logs and "
                   "PGNs belong outside the repository")
    # no PGNs or per-game logs; the run records and a gauntlet's records (one short line a
    # game pair, the file a resumed run appends to) are the .jsonl kept
    for f in sorted(files):
        name = os.path.relpath(f, root)
        if name == os.path.join("bench", "results", "runs.jsonl"):
            continue
        if name.endswith((".pgn", ".pgn.xz")) or \
                (name.endswith((".jsonl", ".jsonl.xz")) and not gauntlet_records(f)):
            out.append(f"{name}: a PGN or per-game log; keep it outside the repository")
    return out


def check_readme(root):
    size = len(read(root, "README.md").encode("utf-8"))
    if size > README_MAX_BYTES:
        return [f"README.md: {size:,} bytes, over {README_MAX_BYTES:,}: move the how-to into "
                "docs/"]
    return []


# --- data/ -----------------------------------------------------------------------------

def check_data(root):
    """Every chunk in data/: size, SHA-256, games, plies and positions as the manifest says;
    nothing unlisted; under the budget; each entry says where it came from."""
    from black_numba.training import chunks
    folder = os.path.join(root, "data")
    where = os.path.join("data", chunks.MANIFEST)
    try:
        man = chunks.read_manifest(folder)
    except chunks.ChunkError as e:
        return [str(e)]
    if not man["chunks"]:
        return [f"{where}: lists no chunk"]
    out = [f"data/: {p}" for p in chunks.check_folder(folder)]
    total = sum(os.path.getsize(p) for p in chunks.chunk_paths(folder) if os.path.isfile(p))
    if total > DATA_BUDGET_BYTES:
        out.append(f"data/: {total:,} bytes of chunks, over the budget {DATA_BUDGET_BYTES:,}")
    files = {e["file"]: e for e in man["chunks"]}
    by_seed = {}
    for e in man["chunks"]:
        name = f"{where}: {e['file']}"
        if e.get("source") == "relabel":
            # labels of a datagen chunk's positions: that chunk is here, as it was labelled
            missing = [k for k in ("command", "commit", "from", "from_sha256", "labeller",
                                   "nodes", "select") if k not in e]
            if missing:
                out.append(f"{name}: no {', '.join(missing)}")
                continue
            source = files.get(e["from"])
            if source is None:
                out.append(f"{name}: labels {e['from']}, which the manifest does not list")
            elif source["sha256"] != e["from_sha256"]:
                out.append(f"{name}: labels another version of {e['from']} (SHA-256 differs)")
            elif e["games"] > source["games"]:
                out.append(f"{name}: more games than {e['from']} holds")
            continue
        if e.get("source") != "datagen":
            out.append(f"{name}: source {e.get('source')!r} is neither datagen nor relabel")
            continue
        missing = [k for k in ("command", "commit", "seed", "games_from", "games_to",
                               "network") if k not in e]
        if missing:
            out.append(f"{name}: no {', '.join(missing)}")
            continue
        if e["games_to"] - e["games_from"] != e["games"]:
            out.append(f"{name}: games {e['games_from']}-{e['games_to']} is not {e['games']} "
                       "games")
        by_seed.setdefault(e["seed"], []).append((e["games_from"], e["games_to"], e["file"]))
    # per seed, the chunks cover consecutive games from the first
    for seed, ranges in by_seed.items():
        ranges.sort()
        out += [f"{where}: {b[2]} (seed {seed}) starts at game {b[0]}, not where {a[2]} ends "
                f"({a[1]})" for a, b in zip(ranges, ranges[1:]) if a[1] != b[0]]
    return out


# --- the strength table ----------------------------------------------------------------

def pinned_bench(root):
    """BENCH_SIGNATURE as tests/test_bench.py pins it (read, not imported), or None."""
    tree = ast.parse(read(root, os.path.join("tests", "test_bench.py")))
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and \
                any(getattr(t, "id", None) == "BENCH_SIGNATURE" for t in node.targets):
            return node.value.value
    return None


def check_strength(root):
    from black_numba.arena import calibration
    from black_numba.evaluation import netfile
    from black_numba.search import strength
    path = os.path.join(root, "black_numba", "search", "strength_table.json")
    name = os.path.relpath(path, root)
    try:
        table = strength.load_table(path)
    except strength.StrengthTableError as e:
        return [str(e)]
    network = netfile.load(os.path.join(root, "black_numba", "nets", "default.bnn"))[1]
    out = [f"{name}: {p}" for p in calibration.stamp_problems(path, network["weights_sha256"])]
    stamp = table["stamp"]
    if not re.fullmatch(r"\d{4}-\d\d-\d\d", str(stamp["date"])):
        out.append(f"{name}: the stamp's date {stamp['date']!r} is not YYYY-MM-DD")
    if table["elo_levels"][0][0] > strength.ELO_MIN:
        out.append(f"{name}: the lowest label {table['elo_levels'][0][0]} is above "
                   f"UCI_Elo's minimum {strength.ELO_MIN}")
    bench = pinned_bench(root)
    if stamp["bench"] != bench:
        out.append(f"{name}: the stamp's bench {stamp['bench']} is not the signature "
                   f"tests/test_bench.py pins ({bench}): a kept search change calls for "
                   "`black-numba calibrate` again (or a provisional stamp saying why)")
    return out


CHECKS = {"commits": check_commits, "links": check_links, "runs": check_runs,
          "results": check_results, "readme": check_readme, "data": check_data,
          "strength": check_strength}


def problems(root=ROOT, only=None):
    """(check, problem) for every problem the checks find: [] when the records are sound."""
    out = []
    for name, check in CHECKS.items():
        if only and name not in only:
            continue
        try:
            found = check(root)
        except Exception as e:           # a record the check cannot even read is a problem
            found = [f"the check failed: {type(e).__name__}: {e}"]
        out += [(name, p) for p in found]
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--root", default=ROOT, help="the checkout to check (default: this one)")
    p.add_argument("--only", nargs="+", choices=sorted(CHECKS), help="run only these checks")
    a = p.parse_args(argv)
    found = problems(os.path.abspath(a.root), a.only)
    for name, why in found:
        print(f"check-records: {name}: {why}")
    if not found:
        print(f"check-records: {', '.join(a.only or CHECKS)}: no problem")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
