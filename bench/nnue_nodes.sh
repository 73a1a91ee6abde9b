#!/bin/sh
# A network against the tapered build of BASE at a fixed node count a move: the evaluation
# compared with search speed taken out (a quick check before a timed A/B, bench/nnue_match.sh).
#   bench/nnue_nodes.sh BASE NET [NODES] [GAMES] [CONCURRENCY]
#   e.g. bench/nnue_nodes.sh ../base /tmp/net.bnn 5000 100 2
# The log, ~/.local/share/black_numba/matches/nnue_<net>_vs_tapered_n<NODES>.txt, starts with the conditions.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# logs and PGNs are written outside the repository (BLACK_NUMBA_MATCHES overrides the folder)
out=${BLACK_NUMBA_MATCHES:-$HOME/.local/share/black_numba/matches}; mkdir -p "$out"
base=$(cd "$1" && pwd); net=$(readlink -f "$2"); nodes=${3:-5000}; games=${4:-100}; conc=${5:-2}
name=$(basename "$net" .bnn)
log="$out/nnue_${name}_vs_tapered_n$nodes.txt"
{
  echo "# network build at $(git -C "$root" rev-parse --short HEAD) with EvalFile=$(basename "$net"): $(python3 -c "import json,struct,sys; d=open(sys.argv[1],'rb').read(); k=struct.unpack('<I',d[12:16])[0]; h=json.loads(d[16:16+k]); t=h['trained']; print(h['architecture'], h['weights_sha256'][:16], 'mirror', t.get('mirror', False), 'data', ','.join(t['data']))" "$net")"
  echo "# against: $(git -C "$base" rev-parse --short HEAD) (tapered, its own checkout); fixed $nodes nodes a move, $games games, openings ../shared/data/openings_2moves.epd --seed 11 (each with both colours), Threads=1 Hash=16; concurrency $conc"
} > "$log"
"$root/.venv/bin/python" "$root/../shared/tools/match.py" \
  --engine cmd="$root/bin/black-numba" name="$name" option.EvalFile="$net" \
  --engine cmd="$base/bin/black-numba" name=tapered \
  --games "$games" --nodes "$nodes" --openings "$root/../shared/data/openings_2moves.epd" \
  --seed 11 --concurrency "$conc" | tee -a "$log"
