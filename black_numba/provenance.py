"""Where a result came from: a file's SHA-256 and the git commit of the checkout that made it.
One of each for the whole project (data manifests, network stamps, calibration records, bench
logs), so that every record names its inputs the same way."""
import hashlib
import os
import subprocess

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
GIT_TIMEOUT_S = 10               # a git that hangs (a lock, a network mount) is given up
READ_BYTES = 1 << 20             # files are hashed a megabyte at a time


def file_sha256(path):
    """SHA-256 (hex) of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(READ_BYTES), b""):
            h.update(block)
    return h.hexdigest()


def _git(folder, *args):
    r = subprocess.run(["git", "-C", folder, *args], capture_output=True, text=True,
                       timeout=GIT_TIMEOUT_S)
    return r.stdout.strip() if r.returncode == 0 else ""


def git_commit(folder=PACKAGE_DIR, short=False, mark_changes=False):
    """The commit checked out where `folder` lies (this package's by default), as git
    abbreviates it with short; with mark_changes, "+changes" follows it when files under
    `folder` differ from it. None outside a git checkout (an installed wheel) or without git."""
    try:
        commit = _git(folder, "rev-parse", *(["--short"] if short else []), "HEAD")
        if not commit:
            return None
        if mark_changes and _git(folder, "status", "--porcelain", "--untracked-files=no",
                                 "--", "."):
            commit += "+changes"
        return commit
    except (OSError, subprocess.SubprocessError):
        return None
