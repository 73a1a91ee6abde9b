#!/bin/sh
# Strength against Stockfish 15.1 limited by UCI_Elo, at 10+0.1 from the 2-move openings.
#   perft/strength.sh ELO GAMES [CONCURRENCY]      e.g. perft/strength.sh 2200 200 2
# Needs ../shared/tools/match.py and ../shared/data/openings_2moves.epd beside the checkout.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
elo=${1:-2200}; games=${2:-200}; conc=${3:-1}
exec "$root/.venv/bin/python" "$root/../shared/tools/match.py" \
  --engine cmd="$root/bin/black-numba" name=black_numba \
  --engine cmd=/usr/games/stockfish name="sf$elo" option.UCI_LimitStrength=true \
           option.UCI_Elo="$elo" option.Threads=1 option.Hash=16 \
  --games "$games" --tc 10+0.1 --openings "$root/../shared/data/openings_2moves.epd" \
  --concurrency "$conc" --pgn "sf$elo.pgn"
