#!/usr/bin/env python3
"""The pool: the engines of other authors that place black_numba, built by one command.

    python3 tools/pool.py build [--stash-repo GIT_DIR] [--cache DIR] [--only NAME ...]
    python3 tools/pool.py show [--cache DIR]
    python3 tools/pool.py gauntlet --build NAME=COMMAND ... [--tc 10+0.1] [--only NAME ...]
        [--cache DIR] [-- MORE MATCH ARGUMENTS]

The members are frozen in POOL below: Stash tags (another author's hand-crafted evaluation,
built from a local copy of its git repository, each tag in its own folder with its Makefile,
ARCH pinned), Ethereal 12 and Stockfish 15.1 from Debian (`apt-get install stockfish
ethereal-chess`), Stockfish at full strength held to 28,000 nodes a move (about an eighth
of our time at 10+0.1, without its time losses) and at
`UCI_Elo` 2850 (the link to the figures measured against Stockfish's limiter). Every member
plays with Threads=1 and Hash=16.

`build` downloads nothing: it reads the tags from a local copy of mhouppin/stash-bot (a clone
or mirror; `--stash-repo`, else CACHE/src/stash-bot.git) and says which repository it needs
when none is there. Each build is checked: its `bench` node count must equal the `Bench:`
line of its tag's commit message where the message has one. The manifest CACHE/pool.json
records each member's command, options, clock and where it came from (tag, commit, binary
SHA-256, compiler, ARCH); a member whose binary changed is a new member (docs/testing.md).
The cache is outside the repository (default ~/.cache/black_numba/pool): never commit the
engines' code or binaries.

`gauntlet` runs `black-numba match` with every member (or those named by --only) as an
opponent, each on its own limits (--opponent-tc or --opponent-nodes), the builds given,
and the match arguments after `--` (openings, rounds or games, SPRT, --out, ...).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from black_numba.provenance import file_sha256  # noqa: E402  (this checkout's package)

DEFAULT_CACHE = os.path.join(os.path.expanduser("~"), ".cache", "black_numba", "pool")
STASH_URL = "https://github.com/mhouppin/stash-bot"
STASH_EXES = ("stash-bot", "stash")   # the Makefile's program name: older tags, newer
STASH_ARCH = "x86-64-bmi2"       # pinned: the one target every chosen tag's Makefile names
DEBIAN_STOCKFISH = "/usr/games/stockfish"
DEBIAN_ETHEREAL = "/usr/games/ethereal-chess"
DEFAULT_TC = "10+0.1"
SPARRING_OPTIONS = ("Threads=1", "Hash=16")
BENCH_TIMEOUT_S = 300
UCI_TIMEOUT_S = 30

# The members, frozen: a changed member restarts a comparison. "odds" scales the member's
# clock (base and increment) against ours, "nodes" limits its nodes a move instead; "label"
# is a nominal rating to anchor the fit.
POOL = [
    {"name": "stash-v35", "kind": "stash", "tag": "v35.0"},
    {"name": "stash-v36", "kind": "stash", "tag": "v36.0"},
    {"name": "stash-v37", "kind": "stash", "tag": "v37.0"},
    {"name": "ethereal12", "kind": "debian", "path": DEBIAN_ETHEREAL,
     "package": "ethereal-chess"},
    # full strength at about an eighth of our time: PS1 gave it 1.25+0.0125 and it lost 2.5%
    # of its games on time (above 2%), so a node limit instead: its mean 0.026 s a move in
    # PS1 at Debian's build's 1.06 M nodes/s
    {"name": "sf-n28k", "kind": "debian", "path": DEBIAN_STOCKFISH, "package": "stockfish",
     "nodes": 28000},
    {"name": "sf2850", "kind": "debian", "path": DEBIAN_STOCKFISH, "package": "stockfish",
     "options": ["UCI_LimitStrength=true", "UCI_Elo=2850"], "label": 2850},
]


class PoolError(RuntimeError):
    """A member that cannot be built or found, or a bad argument."""



def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo, *args], check=True, capture_output=True,
                          text=True).stdout


def find_stash_repo(given, cache):
    """The git directory of a local copy of stash-bot: `given`, else the cache's."""
    for candidate in ([given] if given else [os.path.join(cache, "src", "stash-bot.git")]):
        for gitdir in (candidate, os.path.join(candidate, ".git")):
            if os.path.isdir(gitdir) and os.path.exists(os.path.join(gitdir, "HEAD")):
                return gitdir
    where = given or os.path.join(cache, "src", "stash-bot.git")
    raise PoolError(f"no local copy of mhouppin/stash-bot at {where}: the pool builds Stash "
                    f"from its git repository ({STASH_URL}); clone it there "
                    f"(git clone --mirror {STASH_URL} {where}) or pass --stash-repo")


def uci_name(command):
    """The `id name` a UCI engine gives, or a PoolError."""
    try:
        out = subprocess.run([command], input="uci\nquit\n", capture_output=True, text=True,
                             timeout=UCI_TIMEOUT_S).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        raise PoolError(f"{command} does not answer uci: {e}") from None
    m = re.search(r"^id name (.+)$", out, re.M)
    if not m or "uciok" not in out:
        raise PoolError(f"{command} does not answer uci with uciok")
    return m.group(1).strip()


def bench_nodes(command):
    """The node count of the engine's own `bench` (Stash and Stockfish print it)."""
    r = subprocess.run([command, "bench"], capture_output=True, text=True,
                       timeout=BENCH_TIMEOUT_S)
    m = re.search(r"^(?:Nodes searched|Total nodes|Nodes)\s*:\s*(\d+)\s*$",
                  r.stdout + r.stderr, re.M | re.I)
    return int(m.group(1)) if m else None


def compiler():
    return subprocess.run(["cc", "--version"], capture_output=True,
                          text=True).stdout.splitlines()[0]


def build_stash(member, repo, cache):
    """Build one Stash tag in CACHE/NAME (again only when absent); its manifest entry."""
    tag = member["tag"]
    try:
        commit = git(repo, "rev-parse", f"{tag}^{{commit}}").strip()
    except subprocess.CalledProcessError:
        raise PoolError(f"{repo} has no tag {tag}: fetch the tags of {STASH_URL}") from None
    folder = os.path.join(cache, member["name"])
    names = [os.path.join(folder, "src", exe) for exe in STASH_EXES]
    binary = next((b for b in names if os.path.exists(b)), names[0])
    stamp = os.path.join(folder, "built-from")
    werror = True
    if not (os.path.exists(binary) and os.path.exists(stamp)
            and open(stamp).read().split()[0] == commit):
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        archive = subprocess.run(["git", "--git-dir", repo, "archive", commit],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        make = ["make", "-C", os.path.join(folder, "src"), f"ARCH={STASH_ARCH}",
                f"-j{os.cpu_count() or 1}"]
        r = subprocess.run(make, capture_output=True, text=True)
        if r.returncode != 0:
            # Some tags do not build under their own -Werror with a newer compiler: warn
            # instead (TARGET_ARCH and LDFLAGS come last on make's compile and link lines)
            werror = False
            env = dict(os.environ, LDFLAGS="-Wno-error")
            r = subprocess.run(make + ["TARGET_ARCH=-Wno-error"], capture_output=True,
                               text=True, env=env)
        binary = next((b for b in names if os.path.exists(b)), names[0])
        if r.returncode != 0 or not os.path.exists(binary):
            raise PoolError(f"{member['name']}: make failed:\n{(r.stdout + r.stderr)[-2000:]}")
        with open(stamp, "w") as f:
            f.write(f"{commit} {'werror' if werror else 'no-werror'}\n")
    else:
        werror = open(stamp).read().split()[1] == "werror"
    message = git(repo, "log", "-1", "--format=%B", commit)
    m = re.search(r"^Bench:\s*([\d,]+)", message, re.M)
    want = int(m.group(1).replace(",", "")) if m else None
    got = bench_nodes(binary)
    if want is not None and got != want:
        raise PoolError(f"{member['name']}: bench {got}, its commit says {want}: another "
                        f"search than the tag's (compiler or ARCH)")
    return {"command": binary, "id": uci_name(binary), "tag": tag, "commit": commit,
            "sha256": file_sha256(binary), "compiler": compiler(), "arch": STASH_ARCH,
            "werror": werror, "bench": got, "bench_checked": want is not None}


def find_debian(member):
    path = member["path"]
    if not os.path.exists(path):
        raise PoolError(f"{member['name']}: {path} is missing: apt-get install "
                        f"{member['package']} (Debian's package)")
    version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", member["package"]],
                             capture_output=True, text=True).stdout.strip()
    return {"command": path, "id": uci_name(path), "package": member["package"],
            "version": version or None, "sha256": file_sha256(path)}


def selected(names):
    known = [m["name"] for m in POOL]
    for n in names or []:
        if n not in known:
            raise PoolError(f"no pool member {n!r}: one of {', '.join(known)}")
    return [m for m in POOL if not names or m["name"] in names]


def build(args):
    os.makedirs(args.cache, exist_ok=True)
    members = selected(args.only)
    repo = find_stash_repo(args.stash_repo, args.cache) \
        if any(m["kind"] == "stash" for m in members) else None
    path = os.path.join(args.cache, "pool.json")
    manifest = json.load(open(path)) if os.path.exists(path) else {"members": {}}
    for member in members:
        print(f"pool: {member['name']} ...", file=sys.stderr, flush=True)
        entry = build_stash(member, repo, args.cache) if member["kind"] == "stash" \
            else find_debian(member)
        old = manifest["members"].get(member["name"])
        if old and old.get("sha256") != entry["sha256"]:
            print(f"pool: {member['name']} CHANGED (binary {old['sha256'][:12]} -> "
                  f"{entry['sha256'][:12]}): a new member, comparisons restart",
                  file=sys.stderr)
        entry.update(options=list(SPARRING_OPTIONS) + member.get("options", []),
                     odds=member.get("odds"), nodes=member.get("nodes"),
                     label=member.get("label"))
        manifest["members"][member["name"]] = entry
        print(f"{member['name']:<12} {entry['id']:<28} {entry['sha256'][:12]}  "
              f"{entry.get('tag') or entry.get('version')}")
    known = [m["name"] for m in POOL]          # members no longer in the pool leave it
    manifest["members"] = {k: v for k, v in manifest["members"].items() if k in known}
    tmp = tempfile.NamedTemporaryFile("w", dir=args.cache, delete=False)
    json.dump(manifest, tmp, indent=1)
    tmp.close()
    os.replace(tmp.name, path)
    print(f"pool: manifest {path}", file=sys.stderr)
    return 0


def load_manifest(cache):
    path = os.path.join(cache, "pool.json")
    if not os.path.exists(path):
        raise PoolError(f"no pool at {cache}: run `python3 tools/pool.py build` first")
    return json.load(open(path))


def show(args):
    for name, e in load_manifest(args.cache)["members"].items():
        print(json.dumps({name: e}))
    return 0


def scaled_tc(tc, odds):
    """'10+0.1' with odds 1/8 -> '1.25+0.0125'."""
    base, _, inc = tc.partition("+")
    return f"{float(base) * odds:g}+{float(inc or 0) * odds:g}"


def gauntlet_args(manifest, builds, tc, only, extra):
    """The `black-numba match` arguments of a gauntlet of `builds` against the pool."""
    members = manifest["members"]
    names = only or [m["name"] for m in POOL]
    argv = []
    for b in builds:
        argv += ["--build", b]
    argv += ["--tc", tc]
    for name in names:
        if name not in members:
            raise PoolError(f"{name} is not built: run `python3 tools/pool.py build`")
        e = members[name]
        argv += ["--opponent", f"{name}={e['command']}"]
        for option in e["options"]:
            argv += ["--engine-option", f"{name}:{option}"]
        if e.get("odds"):
            argv += ["--opponent-tc", f"{name}={scaled_tc(tc, e['odds'])}"]
        if e.get("nodes"):
            argv += ["--opponent-nodes", f"{name}={e['nodes']}"]
        if e.get("label") is not None:
            argv += ["--label", f"{name}={e['label']:g}"]
    for b in builds:       # our builds, like the pool, on one thread and a small table
        for option in SPARRING_OPTIONS:
            argv += ["--engine-option", f"{b.partition('=')[0]}:{option}"]
    return argv + list(extra)


def gauntlet(args):
    if not args.build:
        raise PoolError("a gauntlet needs at least one --build NAME=COMMAND")
    argv = gauntlet_args(load_manifest(args.cache), args.build, args.tc, args.only,
                         args.match_args)
    engine = os.path.join(ROOT, "bin", "black-numba")
    print("pool: " + " ".join([engine, "match"] + argv), file=sys.stderr, flush=True)
    return subprocess.call([engine, "match"] + argv)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tools/pool.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    for name in ("build", "show", "gauntlet"):
        p = sub.add_parser(name)
        p.add_argument("--cache", default=DEFAULT_CACHE, help="the pool's folder "
                       f"(default {DEFAULT_CACHE}; outside the repository)")
        if name != "show":
            p.add_argument("--only", nargs="+", metavar="NAME", help="these members only")
        if name == "build":
            p.add_argument("--stash-repo", metavar="GIT_DIR",
                           help="a local clone or mirror of mhouppin/stash-bot")
        if name == "gauntlet":
            p.add_argument("--build", action="append", default=[], metavar="NAME=COMMAND")
            p.add_argument("--tc", default=DEFAULT_TC, help="our clock (default %(default)s)")
            p.add_argument("match_args", nargs=argparse.REMAINDER,
                           help="after --: more `black-numba match` arguments")
    args = ap.parse_args(argv)
    if getattr(args, "match_args", None) and args.match_args[0] == "--":
        args.match_args = args.match_args[1:]
    try:
        return {"build": build, "show": show, "gauntlet": gauntlet}[args.command](args)
    except PoolError as e:
        print(f"pool: {e}", file=sys.stderr)
        return 2
    except subprocess.TimeoutExpired as e:
        print(f"pool: {e.cmd[0]} took longer than {e.timeout:g} s", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
