#!/bin/sh
# Chess960 games against Stockfish 15.1 limited by UCI_Elo, at 10+0.1 from random Chess960
# start positions (match.py --chess960: python-chess sets UCI_Chess960 on both engines).
#   bench/chess960.sh ELO GAMES [CONCURRENCY] [SEED]     e.g. bench/chess960.sh 2200 200 2
# The log, bench/results/chess960_sfELO_GAMES.txt, starts with the conditions of the run;
# match.py's report follows, then bench/count_castles.py's count of black_numba's castles.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
elo=${1:-2200}; games=${2:-200}; conc=${3:-1}; seed=${4:-960}
log="$root/bench/results/chess960_sf${elo}_${games}.txt"
pgn="$root/bench/results/chess960_sf${elo}_${games}.pgn"
signature=$("$root/bin/black-numba" bench 2>/dev/null | sed -n 's/^Nodes searched *: *//p')
{
  echo "# commit: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo ' (with uncommitted changes)')"
  echo "# bench signature: $signature"
  echo "# opponent: Stockfish 15.1 (/usr/games/stockfish) UCI_LimitStrength=true UCI_Elo=$elo Threads=1 Hash=16"
  echo "# black_numba: bin/black-numba, default options (Hash 16, Threads 1)"
  echo "# time control: 10+0.1; games: $games (each start position with both colours); concurrency: $conc"
  echo "# openings: random Chess960 start positions (match.py --chess960 --seed $seed)"
  echo "# started: $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores"
} > "$log"
"$root/.venv/bin/python" "$root/../shared/tools/match.py" \
  --engine cmd="$root/bin/black-numba" name=black_numba \
  --engine cmd=/usr/games/stockfish name="sf$elo" option.UCI_LimitStrength=true \
           option.UCI_Elo="$elo" option.Threads=1 option.Hash=16 \
  --games "$games" --tc 10+0.1 --chess960 --seed "$seed" \
  --concurrency "$conc" --pgn "$pgn" | tee -a "$log"
"$root/.venv/bin/python" "$root/bench/count_castles.py" "$pgn" black_numba | tee -a "$log"
