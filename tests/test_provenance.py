"""One file hash and one git commit for every record the project writes."""
import hashlib
import subprocess

from black_numba.provenance import file_sha256, git_commit
from conftest import ROOT


def _git(folder, *args):
    return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_file_sha256_is_the_files_hash(tmp_path):
    data = bytes(range(256)) * 9000              # more than one block of reading
    path = tmp_path / "blob"
    path.write_bytes(data)
    assert file_sha256(path) == hashlib.sha256(data).hexdigest()


def test_git_commit_of_a_checkout_its_changes_and_no_checkout(tmp_path):
    assert git_commit(ROOT) == _git(ROOT, "rev-parse", "HEAD")
    assert git_commit(ROOT, short=True) == _git(ROOT, "rev-parse", "--short", "HEAD")
    assert git_commit(tmp_path) is None                          # not a checkout
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.txt").write_text("one\n")
    _git(repo, "add", "a.txt")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    head = _git(repo, "rev-parse", "HEAD")
    (repo / "untracked.log").write_text("a log\n")               # not a change of the code
    assert git_commit(repo, mark_changes=True) == head
    (repo / "a.txt").write_text("two\n")
    assert git_commit(repo, mark_changes=True) == head + "+changes"
    assert git_commit(repo) == head
