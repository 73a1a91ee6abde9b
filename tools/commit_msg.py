#!/usr/bin/env python3
"""The commit message check, as Stockfish writes its messages: a subject of at most 72
characters, a blank line, a body, and `Bench: N` as the last line of every commit that
touches the search or the evaluation.

    python3 tools/commit_msg.py --install      # once: git runs it on every commit
    python3 tools/commit_msg.py MSG_FILE        # what the hook runs (the staged files decide
                                                # whether the Bench line is needed)
    python3 tools/commit_msg.py --range A..B    # check commits already made
"""
import argparse
import os
import re
import stat
import subprocess
import sys

MAX_SUBJECT = 72
# Paths whose change can move the bench signature: they need the `Bench: N` footer
BENCH_PATHS = ("black_numba/search/", "black_numba/evaluation/")
BENCH_LINE = re.compile(r"^Bench: \d+$")
HOOK = """#!/bin/sh
# installed by tools/commit_msg.py --install
exec python3 "$(git rev-parse --show-toplevel)/tools/commit_msg.py" "$1"
"""


def problems(message, paths):
    """What is wrong with a commit message for a commit touching `paths` (empty: nothing)."""
    lines = [ln.rstrip() for ln in message.splitlines() if not ln.startswith("#")]
    while lines and not lines[-1]:
        lines.pop()
    if not lines or not lines[0].strip():
        return ["the message is empty or starts with a blank line"]
    found = []
    if len(lines[0]) > MAX_SUBJECT:
        found.append(f"the subject has {len(lines[0])} characters, more than {MAX_SUBJECT}")
    if len(lines) < 3 or lines[1] or not any(ln.strip() for ln in lines[2:]):
        found.append("no body: the subject, a blank line, then the body")
    if any(p.startswith(BENCH_PATHS) for p in paths) and not BENCH_LINE.match(lines[-1]):
        found.append("it touches the search or the evaluation: the last line must be "
                     "`Bench: N` (the node count of `black-numba bench`)")
    return found


def _git(*args):
    return subprocess.run(("git",) + args, capture_output=True, text=True,
                          check=True).stdout


def check_range(spec):
    """Problems of every commit in the git range `spec`, as (commit, problem) pairs."""
    found = []
    for commit in _git("rev-list", "--no-merges", spec).split():
        message = _git("log", "-1", "--format=%B", commit)
        paths = _git("diff-tree", "--no-commit-id", "--name-only", "-r", "--root",
                     commit).split()
        found += [(commit[:8], p) for p in problems(message, paths)]
    return found


def install():
    """Write the commit-msg hook of this checkout; returns its path."""
    path = os.path.join(_git("rev-parse", "--git-path", "hooks").strip(), "commit-msg")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(HOOK)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("message_file", nargs="?", help="the message git is about to commit")
    group.add_argument("--install", action="store_true", help="install the commit-msg hook")
    group.add_argument("--range", help="check the commits of a git range, e.g. origin..HEAD")
    args = ap.parse_args(argv)
    if args.install:
        print(f"commit-msg hook installed: {install()}")
        return 0
    if args.range:
        found = check_range(args.range)
        for commit, problem in found:
            print(f"{commit}: {problem}", file=sys.stderr)
        return 1 if found else 0
    with open(args.message_file) as f:
        message = f.read()
    found = problems(message, _git("diff", "--cached", "--name-only").split())
    for problem in found:
        print(f"commit message: {problem}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
