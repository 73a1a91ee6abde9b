#!/bin/sh
# A search change at a fixed node count a move: this checkout against BASE (a checkout of the
# build before the change, its own warm cache), SPRT H0 = 0 Elo, H1 = ELO1 Elo (alpha = beta
# = 0.05), at most GAMES games, openings from the 2-move set less the held-out sample
# (bench/openings.py), both engines on their default network, Threads 1, Hash 16.
#   bench/sprt_nodes.sh BASE NAME [NODES] [GAMES] [ELO1] [CONCURRENCY] [SEED]
# A second stream of the same test takes another SEED (other openings in another order) and
# another NAME; bench/sprt_pool.py adds the streams up into one test.
#   e.g. git worktree add ../i23base 5dd411e && ln -s "$PWD/.venv" ../i23base/.venv &&
#        ../i23base/bin/black-numba warmup && bench/sprt_nodes.sh ../i23base corrhist
# The log, ~/.local/share/black_numba/matches/sprt_NAME.txt, starts with the run's conditions.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# logs and PGNs are written outside the repository (BLACK_NUMBA_MATCHES overrides the folder)
out=${BLACK_NUMBA_MATCHES:-$HOME/.local/share/black_numba/matches}; mkdir -p "$out"
base=$(cd "$1" && pwd); name=$2; nodes=${3:-10000}; games=${4:-6000}; elo1=${5:-15}; conc=${6:-2}; seed=${7:-23}
log="$out/sprt_$name.txt"
rest=/tmp/openings_sprt.epd
"$root/.venv/bin/python" "$root/bench/openings.py" --rest "$rest" >/dev/null
{
  echo "# $name: $(git -C "$root" rev-parse --short HEAD) (bench $("$root/bin/black-numba" bench 2>&1 | grep 'Nodes searched' | awk '{print $4}')) against $(git -C "$base" rev-parse --short HEAD) (bench $("$base/bin/black-numba" bench 2>&1 | grep 'Nodes searched' | awk '{print $4}'))"
  echo "# $nodes nodes a move, SPRT 0 $elo1, at most $games games, concurrency $conc, openings: 2-move set less bench/openings_holdout.epd, seed $seed"
  echo "# started $(date -u '+%Y-%m-%d %H:%M UTC')"
} > "$log"
"$root/.venv/bin/python" "$root/../shared/tools/match.py" \
  --engine cmd="$root/bin/black-numba" name=new option.Hash=16 \
  --engine cmd="$base/bin/black-numba" name=base option.Hash=16 \
  --games "$games" --nodes "$nodes" --openings "$rest" --seed "$seed" \
  --concurrency "$conc" --sprt 0 "$elo1" --pgn "/tmp/sprt_$name.pgn" >> "$log" 2>&1
echo "# ended $(date -u '+%Y-%m-%d %H:%M UTC')" >> "$log"
