#!/bin/sh
# Strength against Stockfish 15.1 limited by UCI_Elo, at 10+0.1 from the 2-move openings.
#   bench/strength.sh ELO GAMES [CONCURRENCY]      e.g. bench/strength.sh 2200 200 2
# Needs ../shared/tools/match.py and ../shared/data/openings_2moves.epd beside the checkout.
# The log, bench/results/sfELO_GAMES.txt, starts with the conditions of the run: commit,
# bench signature, time control, openings and opponent; match.py's report follows.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
elo=${1:-2200}; games=${2:-200}; conc=${3:-1}
log="$root/bench/results/sf${elo}_${games}.txt"
openings="$root/../shared/data/openings_2moves.epd"
signature=$("$root/bin/black-numba" bench 2>/dev/null | sed -n 's/^Nodes searched *: *//p')
{
  echo "# commit: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo ' (with uncommitted changes)')"
  echo "# bench signature: $signature"
  echo "# opponent: Stockfish 15.1 (/usr/games/stockfish) UCI_LimitStrength=true UCI_Elo=$elo Threads=1 Hash=16"
  echo "# black_numba: bin/black-numba, default options (Hash 16, Threads 1)"
  echo "# time control: 10+0.1; games: $games (each opening with both colours); concurrency: $conc"
  echo "# openings: ../shared/data/openings_2moves.epd"
  echo "# started: $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores"
} > "$log"
"$root/.venv/bin/python" "$root/../shared/tools/match.py" \
  --engine cmd="$root/bin/black-numba" name=black_numba \
  --engine cmd=/usr/games/stockfish name="sf$elo" option.UCI_LimitStrength=true \
           option.UCI_Elo="$elo" option.Threads=1 option.Hash=16 \
  --games "$games" --tc 10+0.1 --openings "$openings" \
  --concurrency "$conc" --pgn "sf$elo.pgn" | tee -a "$log"
