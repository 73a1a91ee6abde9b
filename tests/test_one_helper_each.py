"""One of each helper: a checkout's commit, a file's SHA-256 and a UCI engine's process are
each written once, in the package, and everything else (bench/, perft/, tools/) calls it."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = ("black_numba", "bench", "perft", "tools")
HELPERS = {
    # `git rev-parse ... HEAD`: the commit of a checkout
    "a checkout's commit": (re.compile(r"""["']rev-parse["'][^\n]*["']HEAD["']"""),
                            "black_numba/provenance.py"),
    # a file read block by block into a SHA-256
    "a file's SHA-256": (re.compile(r"hashlib\.sha256\(\)(?:(?!\ndef ).){0,300}?"
                                    r"iter\(lambda: \w+\.read\(", re.S),
                         "black_numba/provenance.py"),
    # a process whose stdin we write to and whose stdout we read: a UCI engine
    "a UCI engine's process": (re.compile(r"Popen\((?:(?!\n\S).){0,300}?stdin=subprocess\.PIPE",
                                          re.S),
                               "black_numba/uci_client.py"),
}


def _sources():
    for folder in FOLDERS:
        for here, dirs, files in os.walk(os.path.join(ROOT, folder)):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", "static")]
            for name in files:
                if name.endswith((".py", ".sh")) or "." not in name:
                    path = os.path.join(here, name)
                    with open(path, errors="replace") as f:
                        yield os.path.relpath(path, ROOT), f.read()


def test_each_helper_is_written_in_one_module():
    sources = list(_sources())
    assert len(sources) > 50
    for what, (pattern, home) in HELPERS.items():
        found = sorted(rel for rel, text in sources if pattern.search(text))
        assert found == [home], f"{what} is written in {found}, only {home} should"


def test_the_patterns_find_the_helpers_they_name():
    samples = {
        "a checkout's commit": 'subprocess.run(["git", "rev-parse", "--short", "HEAD"])',
        "a file's SHA-256": ("h = hashlib.sha256()\nwith open(p, 'rb') as f:\n"
                             "    for b in iter(lambda: f.read(1 << 20), b''):\n"),
        "a UCI engine's process": ("p = subprocess.Popen([engine], stdout=subprocess.PIPE,\n"
                                   "                     stdin=subprocess.PIPE, text=True)"),
    }
    for what, text in samples.items():
        assert HELPERS[what][0].search(text), what
    assert not HELPERS["a checkout's commit"][0].search('git("rev-parse", f"{tag}^{{commit}}")')
