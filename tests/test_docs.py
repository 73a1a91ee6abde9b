"""The docs cite only what the repository holds.

A commit is cited in one form, "commit abc1234" (7 to 40 hex digits after the word), and each
must name a commit of this repository; a hash that names one without the word is flagged, so
every citation is found. Every file of ``bench/results`` the docs name or link, and every
relative link, must exist. Needs the full history: on a shallow clone the test fails and says so.
"""
import glob
import os
import re
import subprocess

import pytest

from conftest import ROOT

COMMIT_REF = re.compile(r"\b[Cc]ommit\s+([0-9a-f]{7,40})\b")
HEX = re.compile(r"\b[0-9a-f]{7,40}\b")
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
RESULTS_PATH = re.compile(r"bench/results/[\w.+*-]*")
LOG_NAME = re.compile(r"`([\w.+-]+\.(?:txt|log))`")
RECORDS_NAME = re.compile(r"`([\w.+-]+\.jsonl(?:\.xz)?)`")
CAND_BRANCH = re.compile(r"\bcand/[\w.-]+")


def doc_files():
    """README.md, docs/*.md and every .md under bench/, as paths relative to the root."""
    names = ["README.md"] + sorted(glob.glob("docs/*.md", root_dir=ROOT))
    names += sorted(glob.glob("bench/**/*.md", root_dir=ROOT, recursive=True))
    return [n for n in names if os.path.isfile(os.path.join(ROOT, n))]


def read(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return f.read()


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def commit_refs(text):
    """(line, hash) of every "commit HASH" in a text."""
    return [(line_of(text, m.start()), m.group(1).lower()) for m in COMMIT_REF.finditer(text)]


def bare_hashes(text):
    """(line, token) of hex tokens that are not part of a "commit HASH" citation, outside code
    spans and link targets (commands and file names may carry hashes)."""
    cited = [m.span(1) for m in COMMIT_REF.finditer(text)]
    blank = lambda m: " " * len(m.group(0))
    plain = CODE_SPAN.sub(blank, text)
    plain = LINK.sub(lambda m: "](" + " " * len(m.group(1)) + ")", plain)
    return [(line_of(text, m.start()), m.group(0)) for m in HEX.finditer(plain)
            if not any(a <= m.start() < b for a, b in cited)]


def git(*args, stdin=None):
    return subprocess.run(["git", "-C", ROOT, *args], input=stdin, capture_output=True,
                           text=True, timeout=60)


def resolving(hashes):
    """The subset of hashes (short or full) that name exactly one commit of the repository."""
    hashes = sorted(set(hashes))
    if not hashes:
        return set()
    out = git("cat-file", "--batch-check", stdin="".join(f"{h}^{{commit}}\n" for h in hashes))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == len(hashes), out.stdout
    # a found object prints "<full hash> commit <size>"; else "<name> missing" / "ambiguous"
    return {h for h, line in zip(hashes, lines) if line.split()[1:2] == ["commit"]}


@pytest.fixture(scope="module")
def full_history():
    """The repository's history must be all there: a shallow clone cannot tell a commit the
    docs cite from one that was never pushed."""
    inside = git("rev-parse", "--is-inside-work-tree")
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        pytest.fail(f"{ROOT} is not a git checkout: the docs' commit references need one "
                    "(run the tests from a full clone)")
    shallow = git("rev-parse", "--is-shallow-repository").stdout.strip()
    if shallow != "false":
        pytest.fail("this clone is shallow, so the commits the docs cite cannot be checked: "
                    "run `git fetch --unshallow` (or clone without --depth) and run again")


def test_the_scanners_find_what_they_should():
    text = ("Kept in commit 7666e37, as\ncommit 3f6e87c says; `git show 5dd411e:x` and "
            "[log](../bench/results/sf_dc2e2ec.txt) are commands and files; the net 8ff53fad; "
            "Commit ABCDEF0 is not a hash; 0831086 is bare.")
    assert commit_refs(text) == [(1, "7666e37"), (2, "3f6e87c")]
    assert bare_hashes(text) == [(2, "8ff53fad"), (2, "0831086")]


def test_missing_and_ambiguous_hashes_do_not_resolve(full_history):
    head = git("rev-parse", "HEAD").stdout.strip()
    assert resolving([head[:7], head, "0000000", "deadbee0deadbee"]) == {head[:7], head}


def test_every_cited_commit_is_in_the_repository(full_history):
    refs = {name: commit_refs(read(name)) for name in doc_files()}
    found = resolving(h for r in refs.values() for _, h in r)
    missing = [f"{name}:{line}: commit {h}" for name, r in refs.items() for line, h in r
               if h not in found]
    assert not missing, ("commits the docs cite that this repository does not hold (say what "
                         "the change was instead):\n" + "\n".join(missing))
    assert sum(map(len, refs.values())) > 0


def test_commits_are_cited_in_one_form(full_history):
    """A hash that names a commit is written "commit HASH", so the test above sees it."""
    bare = {name: bare_hashes(read(name)) for name in doc_files()}
    commits = resolving(t for b in bare.values() for _, t in b)
    loose = [f"{name}:{line}: {t}" for name, b in bare.items() for line, t in b if t in commits]
    assert not loose, "write these as \"commit HASH\":\n" + "\n".join(loose)


def test_no_branch_of_another_machine_is_cited():
    found = [f"{name}:{line_of(read(name), m.start())}: {m.group(0)}" for name in doc_files()
             for m in CAND_BRANCH.finditer(read(name))]
    assert not found, "branches the repository does not hold:\n" + "\n".join(found)


def test_every_results_file_and_relative_link_exists():
    missing = []
    for name in doc_files():
        text = read(name)
        here = os.path.dirname(name)
        for m in RESULTS_PATH.finditer(text):
            path = m.group(0).rstrip(".")
            # a run's command names the records it appended to, compressed once finished
            if not glob.glob(os.path.join(ROOT, path)) + glob.glob(os.path.join(ROOT, path + ".xz")):
                missing.append(f"{name}:{line_of(text, m.start())}: {path}")
        for m in LINK.finditer(text):
            target = m.group(1).split("#")[0]
            if not target or re.match(r"[a-z]+:", target):
                continue                                   # an anchor or a URL
            if not os.path.exists(os.path.normpath(os.path.join(ROOT, here, target))):
                missing.append(f"{name}:{line_of(text, m.start())}: link {m.group(1)}")
    assert not missing, "named in the docs but not in the repository:\n" + "\n".join(missing)


def test_the_run_log_names_logs_that_exist():
    text = read("bench/results/RUNS.md")
    names = [m.group(1) for m in LOG_NAME.finditer(text)]
    assert names
    # a row's last cell names its logs or records, of any kind
    rows = [line.rsplit("|", 2)[-2] for line in text.splitlines()
            if line.startswith("| ") and line.count("|") > 3]
    names += [m.group(1) for cell in rows for m in RECORDS_NAME.finditer(cell)]
    missing = [n for n in names if not os.path.isfile(os.path.join(ROOT, "bench/results", n))]
    assert not missing, missing


def test_results_folder_stays_small():
    """Match logs and PGNs are written outside the repository; this folder holds only the
    logs behind the docs' figures."""
    folder = os.path.join(ROOT, "bench", "results")
    tracked = git("ls-files", "-z", "--", folder).stdout.split("\0")
    files = [f for f in tracked if f] or [os.path.relpath(os.path.join(folder, n), ROOT)
                                           for n in os.listdir(folder)]
    size = sum(os.path.getsize(os.path.join(ROOT, f)) for f in files
               if os.path.isfile(os.path.join(ROOT, f)))
    assert size <= 1_500_000, size
    # no PGNs or per-game logs; a gauntlet's records (one short line a game pair, the file
    # a resumed run appends to) are the one kind of .jsonl kept
    big = [f for f in files if re.search(r"\.(pgn|jsonl)(\.xz)?$", f) and not _records(f)]
    assert not big, big


def _records(path):
    """A gauntlet's records file, plain or xz-compressed, as the gauntlet itself reads it."""
    from black_numba.arena.gauntlet import GauntletError, read_records
    if not path.endswith((".jsonl", ".jsonl.xz")):
        return False
    try:
        return read_records(os.path.join(ROOT, path))[0] is not None
    except (OSError, GauntletError):
        return False


README_MAX_BYTES = 12_288    # the README's first screens stay short; the long how-to is in docs/


def test_readme_stays_short():
    assert len(read("README.md").encode("utf-8")) <= README_MAX_BYTES


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


def test_slugs_as_github_makes_them():
    assert slug("The final tests (2026-11-25)") == "the-final-tests-2026-11-25"
    assert slug("`black-numba style`: the report") == "black-numba-style-the-report"
    assert anchors("# A\n## A\n```\n# not\n```\n## B, c.") == {"a", "a-1", "b-c"}


def test_every_link_to_an_anchor_finds_its_heading():
    broken = []
    for name in doc_files():
        text = read(name)
        here = os.path.dirname(name)
        for m in LINK.finditer(text):
            target, _, frag = m.group(1).partition("#")
            if not frag or re.match(r"[a-z]+:", target):
                continue
            path = os.path.normpath(os.path.join(here, target)) if target else name
            if path.endswith(".md") and os.path.isfile(os.path.join(ROOT, path)) \
                    and frag not in anchors(read(path)):
                broken.append(f"{name}:{line_of(text, m.start())}: {m.group(1)}")
    assert not broken, "links to anchors no heading makes:\n" + "\n".join(broken)
