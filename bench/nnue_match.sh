#!/bin/sh
# The network against the tapered evaluation: this checkout (default options: Use NNUE, the
# shipped net, or NET through EvalFile) against BASE, a checkout of the commit before the
# network work (fff281f, its own search parameters, tapered evaluation), at 10+0.1 from the
# 2-move openings, concurrency 1, SPRT H0 = 100 Elo, H1 = 150 Elo (alpha = beta = 0.05), at
# most GAMES games.
#   bench/nnue_match.sh BASE [GAMES] [TC] [NET]   e.g. git worktree add ../base fff281f &&
#       ln -s "$PWD/.venv" ../base/.venv && ../base/bin/black-numba warmup &&
#       bench/nnue_match.sh ../base 400
# The log, ~/.local/share/black_numba/matches/nnue_<first 8 hex digits of the net's weights hash>_vs_tapered.txt
# (and .pgn), starts with the run's conditions.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# logs and PGNs are written outside the repository (BLACK_NUMBA_MATCHES overrides the folder)
out=${BLACK_NUMBA_MATCHES:-$HOME/.local/share/black_numba/matches}; mkdir -p "$out"
base=$(cd "$1" && pwd); games=${2:-400}; tc=${3:-10+0.1}
net=$(readlink -f "${4:-$root/black_numba/nets/default.bnn}")
describe() { python3 -c "import json,struct,sys; d=open(sys.argv[1],'rb').read(); n=struct.unpack('<I',d[12:16])[0]; h=json.loads(d[16:16+n]); print(h['architecture'], h['weights_sha256'][:16], 'data', ','.join(h.get('trained', {}).get('data', [])))" "$1"; }
hash=$(describe "$net" | cut -d' ' -f3 | cut -c1-8)
log="$out/nnue_${hash}_vs_tapered.txt"
pgn="$out/nnue_${hash}_vs_tapered.pgn"
sig() { "$1/bin/black-numba" bench 2>/dev/null | sed -n 's/^Nodes searched *: *//p'; }
{
  echo "# commit: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo ' (with uncommitted changes)'), bench signature $(sig "$root") (shipped net)"
  echo "# network: $(basename "$net"): $(describe "$net")"
  echo "# against: $base at $(git -C "$base" rev-parse --short HEAD) (tapered), bench signature $(sig "$base")"
  echo "# both Threads=1 Hash=16; time control: $tc; at most $games games (each opening with both colours); concurrency: 1; SPRT 100 150"
  echo "# openings: ../shared/data/openings_2moves.epd"
  echo "# started: $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores"
} > "$log"
"$root/.venv/bin/python" "$root/../shared/tools/match.py" \
  --engine cmd="$root/bin/black-numba" name=nnue option.Threads=1 option.Hash=16 \
           option.EvalFile="$net" \
  --engine cmd="$base/bin/black-numba" name=tapered option.Threads=1 option.Hash=16 \
  --games "$games" --tc "$tc" --openings "$root/../shared/data/openings_2moves.epd" \
  --concurrency 1 --sprt 100 150 --pgn "$pgn" | tee -a "$log"
