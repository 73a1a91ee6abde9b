"""Where Numba's compiled cache lives: a folder keyed by a hash of this package's sources.

Numba's own cache misses edits to callees in other files and to global tables; keying the whole
folder on every source file means an edit or an upgrade can never run stale machine code. The
folder sits under the user's cache directory, so a read-only install still works.
Must run before Numba is imported (``black_numba/__init__.py`` does it).
"""
import hashlib
import os
import re
import shutil
import sys
import tempfile
import time

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def source_files(package_dir=PACKAGE_DIR, suffixes=(".py",)):
    """Paths relative to package_dir of every file with one of the suffixes in the package
    and its subpackages, sorted."""
    out = []
    for folder, dirs, files in os.walk(package_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
        for name in files:
            if name.endswith(suffixes):
                out.append(os.path.relpath(os.path.join(folder, name), package_dir))
    return sorted(out)


def source_hash(package_dir=PACKAGE_DIR):
    """SHA-256 (hex, 16 chars) over the path, names and contents of the package's .py files,
    its subpackages' included."""
    h = hashlib.sha256()
    h.update(sys.version.encode())
    # Numba's index checks source mtimes: two checkouts must not share (and fight over) a folder
    h.update(os.path.abspath(package_dir).encode())
    hash_sources(h, package_dir)
    return h.hexdigest()[:16]


def hash_sources(h, package_dir=PACKAGE_DIR, suffixes=(".py",)):
    """Feed the hash `h` each source file's path and bytes, in a fixed order."""
    for rel in source_files(package_dir, suffixes):
        h.update(rel.encode())
        with open(os.path.join(package_dir, rel), "rb") as f:
            h.update(f.read())


def base_dir():
    """Parent of all cache folders: $BLACK_NUMBA_CACHE, else $XDG_CACHE_HOME or ~/.cache."""
    base = os.environ.get("BLACK_NUMBA_CACHE")
    if not base:
        base = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                            "black_numba")
    return base


def cache_dir(package_dir=PACKAGE_DIR):
    """The cache folder for this exact source tree."""
    return os.path.join(base_dir(), source_hash(package_dir))


def is_warm():
    """True when the cache folder already holds compiled functions."""
    d = os.environ.get("NUMBA_CACHE_DIR") or cache_dir()
    try:
        for _, _, files in os.walk(d):
            if any(f.endswith(".nbi") for f in files):
                return True
    except OSError:
        pass
    return False


_HASH_NAME = re.compile(r"^[0-9a-f]{16}$")
KEEP_DAYS = 14          # folders unused this long are removed
KEEP_MOST = 16          # and beyond this many, the least recently used go, if idle an hour


def prune(base, current, now=None):
    """Remove stale sibling cache folders (each edit or upgrade leaves one of about 4 MB).

    A folder's last use is its mtime, which ``configure`` refreshes at every start. Only
    folders named like a source hash are touched, never the current one; errors are ignored,
    since another engine process may be pruning or compiling at the same moment."""
    now = time.time() if now is None else now
    try:
        names = [n for n in os.listdir(base) if _HASH_NAME.match(n) and n != current]
    except OSError:
        return []
    aged = []
    for n in names:
        try:
            aged.append((os.stat(os.path.join(base, n)).st_mtime, n))
        except OSError:
            pass
    aged.sort(reverse=True)
    removed = []
    for rank, (mtime, n) in enumerate(aged):
        idle = now - mtime
        if idle > KEEP_DAYS * 86400 or (rank >= KEEP_MOST - 1 and idle > 3600):
            shutil.rmtree(os.path.join(base, n), ignore_errors=True)
            removed.append(n)
    return removed


def configure():
    """Point NUMBA_CACHE_DIR at the keyed folder (a temporary one if it cannot be created)."""
    d = cache_dir()
    try:
        os.makedirs(d, exist_ok=True)
        if not os.access(d, os.W_OK):
            raise OSError(d)
    except OSError:
        d = os.path.join(tempfile.gettempdir(), "black_numba-" + str(os.getuid()), source_hash())
        os.makedirs(d, exist_ok=True)
    else:
        try:
            os.utime(d)                # marks the folder used, for prune
        except OSError:
            pass
        prune(os.path.dirname(d), os.path.basename(d))
    os.environ["NUMBA_CACHE_DIR"] = d
    numba = sys.modules.get("numba")
    if numba is not None:          # imported earlier (a test runner): set its config too
        numba.config.CACHE_DIR = d
    return d
