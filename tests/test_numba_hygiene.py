"""Numba traps: cache keyed on sources, bitboards stay uint64, everything cached."""
import os
import shutil
import subprocess
import sys

import numpy as np
from numba.core.registry import CPUDispatcher

import black_numba
from black_numba import bitboard, cache, movegen, perft, position
from conftest import ROOT


def test_cache_dir_changes_when_a_source_changes(tmp_path):
    pkg = tmp_path / "black_numba"
    shutil.copytree(os.path.dirname(black_numba.__file__), pkg,
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ, PYTHONPATH=str(tmp_path), BLACK_NUMBA_CACHE=str(tmp_path / "c"))
    code = "import os, black_numba; print(os.environ['NUMBA_CACHE_DIR'])"
    first = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True,
                           text=True, check=True).stdout.strip()
    again = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True,
                           text=True, check=True).stdout.strip()
    assert again == first
    with open(pkg / "movegen.py", "a") as f:
        f.write("\n# an edit\n")
    second = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True,
                            text=True, check=True).stdout.strip()
    assert first != second
    assert first.startswith(str(tmp_path / "c")) and second.startswith(str(tmp_path / "c"))
    assert os.path.isdir(second)


def test_stale_cache_folders_are_pruned(tmp_path):
    now = 1_000_000_000.0
    day = 86400

    def folder(name, age):
        d = tmp_path / name
        d.mkdir()
        (d / "f.nbi").write_text("x")
        os.utime(d, (now - age, now - age))
        return name

    current = folder("0" * 16, 100 * day)           # the running tree's: never removed
    old = folder("a" * 16, cache.KEEP_DAYS * day + 60)
    recent = [folder(f"{i:016x}", 2 * 3600 + i) for i in range(1, cache.KEEP_MOST + 3)]
    busy = folder("f" * 15 + "e", 60)                 # used a minute ago
    other = folder("not-a-hash", 400 * day)           # not ours to touch
    removed = cache.prune(str(tmp_path), current, now=now)
    # the stale one, and the least recently used beyond KEEP_MOST
    assert sorted(removed) == sorted([old] + recent[cache.KEEP_MOST - 2:])
    left = set(os.listdir(tmp_path))
    assert {current, busy, other} <= left and old not in left
    assert len([n for n in left if n != "not-a-hash"]) == cache.KEEP_MOST


def test_numba_cache_dir_is_the_keyed_one():
    import numba
    assert numba.config.CACHE_DIR == cache.cache_dir() or "black_numba-" in numba.config.CACHE_DIR


def _dispatchers():
    for mod in (bitboard, position, movegen, perft):
        for name, obj in vars(mod).items():
            if isinstance(obj, CPUDispatcher) and obj.__module__ == mod.__name__:
                yield mod, name, obj


def test_every_compiled_function_is_cached():
    found = list(_dispatchers())
    assert len(found) >= 10
    for mod, name, d in found:
        assert d._cache.__class__.__name__ != "NullCache", f"{mod.__name__}.{name} not cached"


_TYPE_CHECK = """
import black_numba
from numba.core.registry import CPUDispatcher
from black_numba.warmup import warmup
warmup()
import sys
n = 0
for name, mod in list(sys.modules.items()):
    if not name.startswith("black_numba"):
        continue
    for fname, d in vars(mod).items():
        if isinstance(d, CPUDispatcher) and d.__module__ == name:
            for args, cres in d.overloads.items():
                n += 1
                for var, ty in cres.type_annotation.typemap.items():
                    if "float" in str(ty):
                        print("FLOAT", name, fname, var, ty)
print("CHECKED", n)
"""


def test_no_float64_sneaks_into_compiled_code(tmp_path):
    """Compile everything afresh (empty cache) and inspect the type of every local of every
    compiled function: a uint64/int64 mix silently turns into float64 and breaks bitboards."""
    env = dict(os.environ, BLACK_NUMBA_CACHE=str(tmp_path))
    r = subprocess.run([sys.executable, "-c", _TYPE_CHECK], env=env, cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "FLOAT" not in r.stdout, r.stdout
    checked = int(r.stdout.split("CHECKED")[1])
    assert checked >= 15


def test_attack_functions_return_uint64():
    T = bitboard.TABLES
    occ = np.uint64(0x0000_1000_0010_0000)
    a = bitboard.rook_attacks(T, 0, occ)
    assert isinstance(a, (int, np.integer)) and 0 <= int(a) < 2 ** 64
    for d in (bitboard.rook_attacks, bitboard.bishop_attacks, bitboard.popcount):
        for sig in d.nopython_signatures:
            assert "uint64" in str(sig.args[-1]) or "int64" in str(sig.args[-1])
    assert str(bitboard.rook_attacks.nopython_signatures[0].return_type) == "uint64"
    assert int(bitboard.lsb(np.uint64(1 << 63))) == 63
    assert int(bitboard.popcount(np.uint64(2 ** 64 - 1))) == 64


def test_no_jitclass_and_no_wildcard_imports():
    pkg = os.path.join(ROOT, "black_numba")
    for name in os.listdir(pkg):
        if name.endswith(".py"):
            text = open(os.path.join(pkg, name)).read()
            assert "jitclass" not in text.replace("no jitclass", ""), name
            assert "import *" not in text, name
