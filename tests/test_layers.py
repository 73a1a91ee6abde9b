"""The packages show the architecture, and data flows one way: each package imports only the
packages of the layers below it (read from the sources with ast)."""
import ast
import os

import black_numba

# Lowest first: the board, then what evaluates and probes it, the search, the tools built on
# the search, and the front ends users drive.
LAYERS = (("board",), ("evaluation", "tablebase"), ("search",), ("core",), ("training", "arena"),
          ("frontends",))
TOP_LEVEL = ("__init__", "__main__", "cache", "cluster")   # entry, cache set-up, Dask cluster
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
