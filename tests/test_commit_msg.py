"""tools/commit_msg.py: Stockfish's commit message form, checked by a git hook."""
import importlib.util
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, "tools", "commit_msg.py")
spec = importlib.util.spec_from_file_location("commit_msg", TOOL)
commit_msg = importlib.util.module_from_spec(spec)
spec.loader.exec_module(commit_msg)

GOOD = "Search: stop the PV at a draw\n\nThe line ends where the game would.\n"


@pytest.mark.parametrize("message, paths, expected", [
    (GOOD, ["docs/search.md"], []),
    (GOOD + "\nBench: 1123168\n", ["black_numba/search/search.py"], []),
    (GOOD, ["black_numba/evaluation/nnue.py"], ["the last line must be `Bench: N`"]),
    ("x" * 73 + "\n\nbody\n", [], ["the subject has 73 characters, more than 72"]),
    ("x" * 72 + "\n\nbody\n", [], []),
    ("Subject alone\n", [], ["no body"]),
    ("Subject\nbody glued to it\n", [], ["no body"]),
    ("\nSubject\n\nbody\n", [], ["starts with a blank line"]),
    ("# only a comment\n", [], ["the message is empty"]),
    (GOOD + "# Please enter the commit message\n", [], []),
])
def test_problems_name_each_fault(message, paths, expected):
    found = commit_msg.problems(message, paths)
    assert len(found) == len(expected)
    for got, want in zip(found, expected):
        assert want in got


def _git(cwd, *args, check=True):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    return subprocess.run(("git",) + args, cwd=cwd, env=env, capture_output=True, text=True,
                          check=check)


def test_the_installed_hook_refuses_a_bad_message_and_the_range_check_finds_it(tmp_path):
    repo = tmp_path / "repo"
    (repo / "tools").mkdir(parents=True)
    shutil.copy(TOOL, repo / "tools" / "commit_msg.py")
    _git(repo, "init", "-q")
    out = subprocess.run(["python3", "tools/commit_msg.py", "--install"], cwd=repo,
                         capture_output=True, text=True, check=True).stdout
    assert "commit-msg hook installed" in out
    (repo / "black_numba" / "search").mkdir(parents=True)
    (repo / "black_numba" / "search" / "a.py").write_text("x = 1\n")
    _git(repo, "add", ".")
    refused = _git(repo, "commit", "-q", "-m", "Search: a change\n\nWhy.", check=False)
    assert refused.returncode != 0 and "Bench: N" in refused.stderr
    _git(repo, "commit", "-q", "-m", "Search: a change\n\nWhy.\n\nBench: 42")
    (repo / "README").write_text("x\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "--no-verify", "-m", "y" * 80)
    found = subprocess.run(["python3", "tools/commit_msg.py", "--range", "HEAD"], cwd=repo,
                           capture_output=True, text=True)
    assert found.returncode == 1
    assert "80 characters" in found.stderr and "no body" in found.stderr
    assert subprocess.run(["python3", "tools/commit_msg.py", "--range", "HEAD~1"],
                          cwd=repo, capture_output=True).returncode == 0
