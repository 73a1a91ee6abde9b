#!/usr/bin/env bash
# The package as a user installs it: build the wheel, install it (not editable) into a fresh
# virtual environment outside the checkout, and run it from there: the `black-numba` command,
# `python -m black_numba`, UCI with the shipped network, the compiled cache in the user's
# cache folder, `black-numba gui` serving its page and the vendored chessboard (VENDOR.json's
# files, byte for byte) and stopping on SIGINT. Fails on any setuptools deprecation warning.
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
# the browser board from the wheel: its page, what the page loads, every vendored file
gui=$(env/bin/python - env/bin/black-numba "$tmp/gui.log" <<'PY'
# the browser board from the installed wheel: `black-numba gui` serves its page, everything
# the page loads (a crawl: the page's src/href, the modules' imports, the stylesheets' url())
# and every vendored file byte for byte (VENDOR.json's SHA-256); SIGINT stops it with status 0
import hashlib, json, queue, re, signal, subprocess, sys, threading, time
import urllib.parse, urllib.request
START_S, FETCH_S, STOP_S = 300, 30, 60
VENDOR = "/static/vendor/"
REFS = re.compile(r"""(?:src|href)\s*=\s*["']([^"'#?]+)|^\s*import\s*["']([^"']+)["']"""
                  r"""|^\s*(?:import|export)\b[^;'"]*?\bfrom\s*["']([^"']+)["']"""
                  r"""|\bimport\s*\(\s*["']([^"']+)["']|url\(\s*["']?([^"')\s#?]+)""", re.M)
log = open(sys.argv[2], "w")
proc = subprocess.Popen([sys.argv[1], "gui", "--no-browser", "--port", "0"],
                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True)
lines = queue.Queue()
threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout], daemon=True).start()
deadline, m = time.monotonic() + START_S, None
while m is None and time.monotonic() < deadline:
    try:
        m = re.search(r"black_numba board: (http://\S+/\?key=\S+)", lines.get(timeout=1))
    except queue.Empty:
        pass
if not m:
    proc.kill()
    sys.exit(f"wheel check: black-numba gui printed no address in {START_S} s")
base = m.group(1)

def get(path):
    try:
        with urllib.request.urlopen(urllib.parse.urljoin(base, path), timeout=FETCH_S) as r:
            return r.read()
    except OSError as e:
        proc.kill()
        sys.exit(f"wheel check: GET {path}: {e}")

page = "/?" + urllib.parse.urlsplit(base).query    # the page needs the printed key
seen, todo = set(), [page]
while todo:                          # a crawl of the page's files, this server's only
    path = todo.pop()
    if path in seen:
        continue
    seen.add(path)
    body = get(path)
    if path == page or path.endswith((".html", ".js", ".css")):
        for ref in ("".join(g) for g in REFS.findall(body.decode("utf-8", "replace"))):
            url = urllib.parse.urlsplit(urllib.parse.urljoin(path, ref))
            if not url.scheme and not url.netloc:
                todo.append(url.path)
manifest = json.loads(get(VENDOR + "VENDOR.json"))
for rel, digest in manifest["files"].items():
    if hashlib.sha256(get(f"{VENDOR}{manifest['name']}/{rel}")).hexdigest() != digest:
        proc.kill()
        sys.exit(f"wheel check: the served {rel} differs from VENDOR.json")
proc.send_signal(signal.SIGINT)
try:
    rc = proc.wait(timeout=STOP_S)
except subprocess.TimeoutExpired:
    proc.kill()
    rc = "no exit"
if rc != 0:
    sys.exit(f"wheel check: black-numba gui after SIGINT: {rc}")
print(f"{len(seen)} page files, {len(manifest['files'])} vendored files")
PY
) || { cat "$tmp/gui.log"; exit 1; }
# the package stands alone: commands that need data files run from a folder outside any
# checkout, with only what is given to them (calibrate's openings ship in the package)
work="$tmp/alone"
mkdir -p "$work/data"
cd "$work"
bn="$tmp/env/bin/black-numba"
sf=$(command -v stockfish || echo /usr/games/stockfish)
"$root/.venv/bin/python" - "$root/data" "$work/data" <<'PY'
# the smallest datagen chunk of data/, alone in a data folder with its manifest entry
import json, os, shutil, sys
man = json.load(open(os.path.join(sys.argv[1], "manifest.json")))
entry = min((e for e in man["chunks"] if e["source"] == "datagen"), key=lambda e: e["bytes"])
shutil.copy(os.path.join(sys.argv[1], entry["file"]), sys.argv[2])
json.dump({**man, "chunks": [entry]}, open(os.path.join(sys.argv[2], "manifest.json"), "w"))
PY
alone() {   # one command of the installed package; its output shown only when it fails
  "$@" > "$work/cmd.log" 2>&1 || { echo "wheel check: $* failed:"; cat "$work/cmd.log"; exit 1; }
}
"$tmp/env/bin/python" -m pip install -q "$tmp/$wheel[datagen]"     # Dask: match, calibrate
alone "$bn" data check "$work/data"
alone "$bn" train "$work/data" --epochs 1 --hidden 32 --batch 1024 --out "$work/net.bnn"
alone "$bn" match "$bn" "$bn" --games 2 --nodes 300 --out "$work/match"
alone "$bn" calibrate --labels 1350 --offsets 0 --games 2 --full-games 2 --nodes 500 \
  --stockfish "$sf" --table "$work/table.json" --out "$work/calibrate"
grep -q '"games": 2' "$work/match/summary.json" || { echo "wheel check: the match played no 2 games"; exit 1; }
echo "wheel check: $(basename "$wheel") (no training data in it or the sdist) installs and runs from a fresh environment (perft, python -m, UCI, cache in the user's cache folder, the browser board serving $gui; outside any checkout: data check, train, match, calibrate)"
