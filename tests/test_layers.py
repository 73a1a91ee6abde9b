"""The packages show the architecture, and data flows one way: each package imports only the
packages of the layers below it (read from the sources with ast)."""
import ast
import os

import black_numba

# Lowest first: the board, then what evaluates and probes it, the search, the tools built on
# the search, and the front ends users drive.
LAYERS = (("board",), ("evaluation", "tablebase"), ("search",), ("core",), ("training", "arena"),
          ("frontends",))
# entry, cache set-up, Dask cluster, file hashes and git commits, the UCI client: any layer
# may use them
TOP_LEVEL = ("__init__", "__main__", "cache", "cluster", "provenance", "uci_client")
PACKAGE_DIR = os.path.dirname(os.path.abspath(black_numba.__file__))


def _imports(path):
    """The black_numba subpackages a module imports (at any depth of its code)."""
    out = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "black_numba" and len(parts) > 1 and parts[1] not in TOP_LEVEL \
                    and not parts[1].startswith("__"):
                out.add(parts[1])
    return out


def test_every_module_lives_in_a_layer_package():
    layered = {p for layer in LAYERS for p in layer}
    top = sorted(f[:-3] for f in os.listdir(PACKAGE_DIR) if f.endswith(".py"))
    assert top == sorted(TOP_LEVEL)
    packages = sorted(d for d in os.listdir(PACKAGE_DIR)
                      if os.path.isfile(os.path.join(PACKAGE_DIR, d, "__init__.py")))
    assert packages == sorted(layered)


def test_packages_import_only_layers_below():
    rank = {p: i for i, layer in enumerate(LAYERS) for p in layer}
    bad = []
    for pkg, level in rank.items():
        folder = os.path.join(PACKAGE_DIR, pkg)
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".py"):
                continue
            for dst in _imports(os.path.join(folder, name)) - {pkg}:
                if rank.get(dst, len(LAYERS)) >= level:
                    bad.append(f"{pkg}/{name} imports black_numba.{dst}")
    assert not bad, bad


def _module_imports():
    """{module: the package's modules it imports, at any depth of its code}."""
    mods = {}
    for folder, dirs, files in os.walk(PACKAGE_DIR):
        dirs[:] = [d for d in dirs if not d.startswith("__")]
        for name in files:
            if name.endswith(".py"):
                rel = os.path.relpath(os.path.join(folder, name), PACKAGE_DIR)[:-3]
                mod = "black_numba." + rel.replace(os.sep, ".")
                mods[mod.removesuffix(".__init__")] = os.path.join(folder, name)
    graph = {}
    for mod, path in mods.items():
        found = set()
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            found |= {n for n in names if n in mods and n != mod
                      and not mods[n].endswith("__init__.py")}
        graph[mod] = found
    return graph


def test_no_two_modules_import_each_other():
    """No import circle, however long (match.py and gauntlet.py share runner.py; chunks.py
    keeps the format and the data command lives in frontends/commands/data.py)."""
    graph = _module_imports()
    assert "black_numba.arena.runner" in graph["black_numba.arena.gauntlet"]

    def reaches(start, goal, seen):
        for nxt in graph[start]:
            if nxt == goal or (nxt not in seen and not seen.add(nxt) and
                               reaches(nxt, goal, seen)):
                return True
        return False

    circles = sorted(m for m in graph if reaches(m, m, set()))
    assert not circles, circles
