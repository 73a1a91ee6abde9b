"""Numba traps: cache keyed on sources, bitboards stay uint64, everything cached."""
import ast
import importlib
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from numba.core.registry import CPUDispatcher

import black_numba
from black_numba import cache
from black_numba.board import bitboard
from black_numba.evaluation.batch import import_cuda_eval
from conftest import ROOT

PACKAGE_DIR = os.path.dirname(os.path.abspath(black_numba.__file__))
# Numba's compiling decorators and factories, by the name they are called with
# (`njit`, `numba.njit`, `cuda.jit`, ...).
JIT_NAMES = {"njit", "jit", "generated_jit", "vectorize", "guvectorize", "stencil", "cfunc"}
# The hot path compiles without Numba's reference counting (docs/numba.md): the compiled
# functions of these modules (by their last name, wherever they live) carry _nrt=False, but
# those that allocate (NEEDS_RUNTIME).
HOT_MODULES = {"bitboard", "position", "rules", "movegen", "perft", "evaluate", "movepick", "tt",
               "search", "nnue", "tbprobe"}
NEEDS_RUNTIME = {"search.static_eval"}


def package_sources():
    """(module name, path) of every source file of the package, subpackages included."""
    for dirpath, dirnames, filenames in os.walk(PACKAGE_DIR):
        dirnames[:] = sorted(d for d in dirnames
                             if os.path.isfile(os.path.join(dirpath, d, "__init__.py")))
        rel = os.path.relpath(dirpath, PACKAGE_DIR)
        prefix = "black_numba" if rel == "." else "black_numba." + rel.replace(os.sep, ".")
        for name in sorted(filenames):
            if name.endswith(".py"):
                mod = prefix if name == "__init__.py" else f"{prefix}.{name[:-3]}"
                yield mod, os.path.join(dirpath, name)


def _jit_name(node):
    """'njit', 'cuda.jit', ... when the expression names one of Numba's compilers, else None."""
    if isinstance(node, ast.Name) and node.id in JIT_NAMES:
        return node.id
    if isinstance(node, ast.Attribute) and node.attr in JIT_NAMES:
        base = node.value
        return f"{base.id}.{node.attr}" if isinstance(base, ast.Name) else node.attr
    return None


def jit_uses(path):
    """Every use of a Numba compiler in a source file: (line, name, keyword names), whether
    as a decorator (`@njit`, `@njit(...)`, `@cuda.jit(...)`) or called (`njit(...)(f)`)."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    uses = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for dec in node.decorator_list:
                name = _jit_name(dec)               # a bare @njit: no keywords
                if name is not None:
                    uses.append((dec.lineno, name, set()))
        elif isinstance(node, ast.Call):
            name = _jit_name(node.func)
            if name is not None:
                uses.append((node.lineno, name, {k.arg for k in node.keywords
                                                 if k.arg is not None and _true(k.value)}))
    return sorted(uses)


def _true(value):
    """A keyword's value unless it is a literal False (cache=False)."""
    return not (isinstance(value, ast.Constant) and value.value is False)


def compiled_modules():
    """{module name: [jit uses]} for every module of the package that compiles code."""
    found = {}
    for mod, path in package_sources():
        uses = jit_uses(path)
        if uses:
            found[mod] = uses
    return found


COMPILED = compiled_modules()


def _import(name):
    if name.split(".")[-1] == "cuda_eval":
        return import_cuda_eval()                # see batch.import_cuda_eval: not importlib
    return importlib.import_module(name)


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
    # an edit to a module of a subpackage changes the key, as one at the top would
    with open(pkg / "board" / "movegen.py", "a") as f:
        f.write("\n# an edit\n")
    second = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True,
                            text=True, check=True).stdout.strip()
    assert first != second
    with open(pkg / "cache.py", "a") as f:
        f.write("\n# an edit\n")
    third = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True,
                           text=True, check=True).stdout.strip()
    assert third not in (first, second)
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
    assert numba.config.CACHE_DIR == cache.cache_dir()
    assert os.path.basename(numba.config.CACHE_DIR) == cache.source_hash()


def test_unwritable_cache_base_falls_back_to_a_keyed_temporary_folder(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")           # the cache base cannot be created here
    env = dict(os.environ, BLACK_NUMBA_CACHE=str(blocked / "sub"))
    code = "import os, black_numba; print(os.environ['NUMBA_CACHE_DIR'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert os.path.basename(out) == cache.source_hash() and "black_numba-" in out
    assert os.path.isdir(out)


def test_compiled_modules_are_found_by_walking_the_package():
    """The modules with compiled code are found from the sources, not listed by hand: every
    module that calls one of Numba's compilers, in any subpackage. Importing every module of
    the package finds no CPU dispatcher defined outside them."""
    short = {m.split(".")[-1] for m in COMPILED}
    assert {"bitboard", "position", "rules", "movegen", "perft", "evaluate", "movepick", "tt",
            "search", "nnue", "batch", "cuda_eval", "dataset", "packing", "model"} <= short
    assert HOT_MODULES <= short
    assert any(name == "cuda.jit" for _, name, _ in COMPILED[next(
        m for m in COMPILED if m.endswith(".cuda_eval"))])
    for mod, _ in package_sources():
        if mod.endswith("__main__"):
            continue                             # runs the command line when imported
        module = _import(mod)
        defined = [n for n, obj in vars(module).items()
                   if isinstance(obj, CPUDispatcher) and obj.__module__ == mod]
        assert not defined or mod in COMPILED, (mod, defined)


def test_jit_sources_are_found_in_subpackages(tmp_path):
    """The walk reaches modules moved into subpackages, decorators and calls alike."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    src = pkg / "sub" / "kern.py"
    src.write_text("import numba\nfrom numba import cuda, njit\n\n@njit\ndef a(x):\n"
                   "    return x\n\n@cuda.jit(cache=True)\ndef k(x):\n    pass\n\n"
                   "b = numba.njit(cache=False, inline='always')(a.py_func)\n")
    assert jit_uses(str(src)) == [(4, "njit", set()), (8, "cuda.jit", {"cache"}),
                                  (12, "numba.njit", {"inline"})]
    assert jit_uses(str(pkg / "__init__.py")) == []


def test_every_compile_asks_for_the_cache():
    """Every use of a Numba compiler in the package passes cache=True (CPU and CUDA alike):
    a module without it compiles again in every process."""
    missing = [f"{mod}:{line} {name}" for mod, uses in COMPILED.items()
               for line, name, keywords in uses if "cache" not in keywords]
    assert not missing, missing


def _dispatchers():
    for modname in sorted(COMPILED):
        mod = _import(modname)
        for name, obj in vars(mod).items():
            if isinstance(obj, CPUDispatcher) and obj.__module__ == mod.__name__:
                yield mod, name, obj


def test_every_compiled_function_is_cached():
    found = list(_dispatchers())
    names = {f"{mod.__name__.split('.')[-1]}.{name}" for mod, name, _ in found}
    assert {"search.negamax", "search.qsearch", "evaluate.evaluate", "tt.tt_store",
            "movepick.score_moves", "rules.see_ge", "batch.eval_batch"} <= names
    # the training side too: the data loader, the record packer, the trainer's kernels
    assert {mod.__name__.split(".")[-1] for mod, _, _ in found} >= {"dataset", "packing", "model",
                                                                      "batches"}
    for mod, name, d in found:
        assert d._cache.__class__.__name__ != "NullCache", f"{mod.__name__}.{name} not cached"


def test_hot_path_compiles_without_reference_counting():
    """Every compiled function of the hot modules carries _nrt=False (an atomic increment and
    decrement per array view cost the search a fifth of its time), but those that allocate;
    an inline='always' helper becomes part of its caller and takes the caller's."""
    hot = [(f"{mod.__name__.split('.')[-1]}.{name}", d) for mod, name, d in _dispatchers()
           if mod.__name__.split(".")[-1] in HOT_MODULES
           and d.targetoptions.get("inline") != "always"]
    names = {n for n, _ in hot}
    assert {"search.negamax", "search.qsearch", "movegen.generate", "nnue.update",
            "position.make_move", "perft.perft_nodes"} <= names and NEEDS_RUNTIME <= names
    for name, d in hot:
        want = name not in NEEDS_RUNTIME
        assert (d.targetoptions.get("_nrt") is False) == want, name


_TYPE_CHECK = """
import black_numba
from numba.core.registry import CPUDispatcher
from black_numba.frontends.warmup import warmup
warmup()
# the packed records of batch and GPU evaluation are bitboard code too
import numpy as np
from black_numba.evaluation import packing
from black_numba.evaluation.batch import pack
boards, stm, _ = pack(["r3k2r/pp3ppp/8/8/8/8/PP3PPP/R3K2R w KQkq - 0 1"])
recs = np.zeros((1, packing.WORDS), dtype=np.uint64)
packing.compact(boards, stm, recs)
packing.expand(recs[0], np.zeros(15, dtype=np.uint64))
from black_numba.evaluation import netfile
packing.features(recs[0], np.zeros((2, 32), dtype=np.int32), netfile.load(netfile.DEFAULT_NET)[0])
import sys
n = 0
for name, mod in list(sys.modules.items()):
    # training's arithmetic is float by nature (losses, gradients, game results)
    if not name.startswith("black_numba") or name.split(".")[-1] in ("model", "batches",
                                                                      "dataset"):
        continue
    for fname, d in vars(mod).items():
        if isinstance(d, CPUDispatcher) and d.__module__ == name:
            for args, cres in d.overloads.items():
                n += 1
                for var, ty in cres.type_annotation.typemap.items():
                    if "float" in str(ty):
                        print("FLOAT", name, fname, var, ty)
# every specialisation the bitboard helpers were compiled for, as callees included
from black_numba.board import bitboard
for fname in ("popcount", "lsb", "rook_attacks", "bishop_attacks"):
    for sig in getattr(bitboard, fname).nopython_signatures:
        print("BITBOARD", fname, sig.args[-1])
print("CHECKED", n)
"""


# The type check compiles everything from an empty cache, the suite's longest test: the
# session starts it (conftest.py) at the lowest priority, so that it compiles on whatever core
# the other tests leave idle, and the test collects its output.
_TYPE_RUN = {}


def start_type_check():
    """Start the type check's process at nice 19 (once a session)."""
    if _TYPE_RUN:
        return
    import tempfile
    folder = tempfile.mkdtemp(prefix="bn-typecheck-")
    out = open(os.path.join(folder, "out"), "w+")
    err = open(os.path.join(folder, "err"), "w+")
    env = dict(os.environ, BLACK_NUMBA_CACHE=os.path.join(folder, "cache"))
    proc = subprocess.Popen([sys.executable, "-c", _TYPE_CHECK], env=env, cwd=ROOT,
                            stdout=out, stderr=err, text=True, preexec_fn=lambda: os.nice(19))
    _TYPE_RUN.update(proc=proc, folder=folder, out=out, err=err)


def stop_type_check():
    """Kill the type check if it still runs; remove its folder."""
    if _TYPE_RUN:
        if _TYPE_RUN["proc"].poll() is None:
            _TYPE_RUN["proc"].kill()
            _TYPE_RUN["proc"].wait()
        _TYPE_RUN["out"].close()
        _TYPE_RUN["err"].close()
        shutil.rmtree(_TYPE_RUN["folder"], ignore_errors=True)
        _TYPE_RUN.clear()


@pytest.mark.slow
def test_no_float64_sneaks_into_compiled_code():
    """Compile everything afresh (empty cache) and inspect the type of every local of every
    compiled function: a uint64/int64 mix silently turns into float64 and breaks bitboards;
    and the bitboard helpers must never have been compiled for an int64 board."""
    start_type_check()
    try:
        code = _TYPE_RUN["proc"].wait(timeout=900)
        for name in ("out", "err"):
            _TYPE_RUN[name].seek(0)
        stdout, stderr = _TYPE_RUN["out"].read(), _TYPE_RUN["err"].read()
    finally:
        stop_type_check()
    r = subprocess.CompletedProcess([], code, stdout, stderr)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "FLOAT" not in r.stdout, r.stdout
    checked = int(r.stdout.split("CHECKED")[1])
    assert checked >= 15
    # bitboards are never int64: each helper compiled only for a uint64 board
    seen = [l.split() for l in r.stdout.splitlines() if l.startswith("BITBOARD")]
    assert {f for _, f, _ in seen} == {"popcount", "lsb", "rook_attacks", "bishop_attacks"}
    assert all(ty == "uint64" for _, _, ty in seen), seen


def test_attack_functions_return_uint64():
    T = bitboard.TABLES
    occ = np.uint64(0x0000_1000_0010_0000)
    a = bitboard.rook_attacks(T, 0, occ)
    assert isinstance(a, (int, np.integer)) and 0 <= int(a) < 2 ** 64
    assert int(bitboard.bishop_attacks(T, 0, occ)) == 0x8040201008040200
    assert int(bitboard.popcount(occ)) == 2
    for d in (bitboard.rook_attacks, bitboard.bishop_attacks, bitboard.popcount):
        assert d.nopython_signatures
        for sig in d.nopython_signatures:
            assert str(sig.args[-1]) == "uint64", (d, sig)      # never an int64 bitboard
    assert str(bitboard.rook_attacks.nopython_signatures[0].return_type) == "uint64"
    assert int(bitboard.lsb(np.uint64(1 << 63))) == 63
    assert int(bitboard.popcount(np.uint64(2 ** 64 - 1))) == 64


def test_no_jitclass_and_no_wildcard_imports():
    for mod, path in package_sources():
        text = open(path, encoding="utf-8").read()
        assert "jitclass" not in text.replace("no jitclass", ""), mod
        assert "import *" not in text, mod
