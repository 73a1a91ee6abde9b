#!/usr/bin/env bash
# The package as a user installs it: build the wheel, install it (not editable) into a fresh
# virtual environment outside the checkout, and run it from there: the `black-numba` command,
# `python -m black_numba`, UCI with the shipped network, the compiled cache in the user's
# cache folder. Fails on any setuptools deprecation warning.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
"$root/.venv/bin/python" -m pip wheel -q --no-deps -w dist "$root" 2> build.log || { cat build.log; exit 1; }
if grep -i "deprecat" build.log; then echo "wheel check: deprecation warning in the build"; exit 1; fi
wheel=$(ls dist/*.whl)
python3 -c "import sys, zipfile; sys.exit('black_numba/nets/default.bnn' not in zipfile.ZipFile(sys.argv[1]).namelist())" "$wheel" \
  || { echo "wheel check: no network in $wheel"; exit 1; }
python3 -c "import sys, zipfile; sys.exit(any(n.startswith('data/') for n in zipfile.ZipFile(sys.argv[1]).namelist()))" "$wheel" \
  || { echo "wheel check: training data in $wheel"; exit 1; }
"$root/.venv/bin/python" -m build -q --sdist -o sdist "$root" > sdist.log 2>&1 || { cat sdist.log; exit 1; }
python3 -c "import sys, tarfile; sys.exit(any('/data/' in n for n in tarfile.open(sys.argv[1]).getnames()))" sdist/*.tar.gz \
  || { echo "wheel check: training data in the sdist"; exit 1; }
python3 -m venv env
env/bin/python -m pip install -q "$wheel"
export XDG_CACHE_HOME="$tmp/cache"
[ "$(env/bin/black-numba perft 4 2>/dev/null)" = "Nodes searched: 197281" ]
[ "$(env/bin/python -m black_numba perft 3 2>/dev/null)" = "Nodes searched: 8902" ]
out=$(printf 'uci\nisready\nposition startpos moves e2e4\ngo depth 4\nquit\n' | env/bin/black-numba 2>/dev/null)
echo "$out" | grep -q '^uciok$'
echo "$out" | grep -q '^readyok$'
echo "$out" | grep -q '^bestmove '
echo "$out" | grep -q 'info string error' && { echo "wheel check: $out"; exit 1; }
ls "$tmp/cache/black_numba" | grep -qE '^[0-9a-f]{16}$'
echo "wheel check: $(basename "$wheel") (no training data in it or the sdist) installs and runs from a fresh environment (perft, python -m, UCI, cache in the user's cache folder)"
