#!/bin/sh
# Strength against Stockfish 15.1 limited by UCI_Elo, at 10+0.1, from the 2-move openings or,
# with chess960, from random Chess960 start positions (match.py --chess960 --seed 960: python-chess
# sets UCI_Chess960 on both engines).
#   bench/strength.sh ELO GAMES [CONCURRENCY] [standard|chess960] [limited]
#   e.g. bench/strength.sh 2200 200 2; bench/strength.sh 1900 100 2 standard limited
# With `limited`, black_numba too plays at UCI_LimitStrength=true UCI_Elo=ELO: the calibration
# of its strength levels (docs/results.md#strength-levels).
# Needs ../shared/tools/match.py (and ../shared/data/openings_2moves.epd) beside the checkout.
# The log, ~/.local/share/black_numba/matches/sfELO_GAMES_COMMIT.txt (chess960_..., level...), starts with the
# conditions of the run: commit, bench signature, time control, openings and opponent;
# match.py's report follows, and for Chess960 bench/count_castles.py's count of our castles.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# logs and PGNs are written outside the repository (BLACK_NUMBA_MATCHES overrides the folder)
out=${BLACK_NUMBA_MATCHES:-$HOME/.local/share/black_numba/matches}; mkdir -p "$out"
commit=$(git -C "$root" rev-parse --short HEAD)
elo=${1:-2200}; games=${2:-200}; conc=${3:-1}; variant=${4:-standard}; limited=${5:-}
case "$variant" in
  standard)
    prefix=""
    openings="../shared/data/openings_2moves.epd"
    start_args="--openings $root/$openings"
    pgn="$out/sf${elo}_${games}_$commit.pgn" ;;
  chess960)
    prefix="chess960_"
    openings="random Chess960 start positions (match.py --chess960 --seed 960)"
    start_args="--chess960 --seed 960"
    pgn="$out/chess960_sf${elo}_${games}_$commit.pgn" ;;
  *) echo "strength.sh: the fourth argument is chess960 or nothing, not $variant" >&2; exit 2 ;;
esac
log="$out/${prefix}sf${elo}_${games}_$commit.txt"
ours="default options (Hash 16, Threads 1)"
our_opts=""
case "$limited" in
  "") ;;
  limited)
    log="$out/${prefix}level${elo}_${games}_$commit.txt"
    pgn="${pgn%.pgn}_level.pgn"
    ours="UCI_LimitStrength=true UCI_Elo=$elo (Hash 16, Threads 1)"
    our_opts="option.UCI_LimitStrength=true option.UCI_Elo=$elo" ;;
  *) echo "strength.sh: the fifth argument is limited or nothing, not $limited" >&2; exit 2 ;;
esac
signature=$("$root/bin/black-numba" bench 2>/dev/null | sed -n 's/^Nodes searched *: *//p')
{
  echo "# commit: $commit$(git -C "$root" diff --quiet || echo ' (with uncommitted changes)')"
  echo "# bench signature: $signature"
  echo "# opponent: Stockfish 15.1 (/usr/games/stockfish) UCI_LimitStrength=true UCI_Elo=$elo Threads=1 Hash=16"
  echo "# black_numba: bin/black-numba, $ours; network $("$root/.venv/bin/python" "$root/bench/net_id.py" "$root/black_numba/nets/default.bnn")"
  echo "# time control: 10+0.1; games: $games (each opening with both colours); concurrency: $conc"
  echo "# openings: $openings"
  echo "# started: $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores"
} > "$log"
# shellcheck disable=SC2086  # start_args and our_opts are lists of arguments
"$root/.venv/bin/python" "$root/../shared/tools/match.py" \
  --engine cmd="$root/bin/black-numba" name=black_numba $our_opts \
  --engine cmd=/usr/games/stockfish name="sf$elo" option.UCI_LimitStrength=true \
           option.UCI_Elo="$elo" option.Threads=1 option.Hash=16 \
  --games "$games" --tc 10+0.1 $start_args \
  --concurrency "$conc" --pgn "$pgn" | tee -a "$log"
if [ "$variant" = chess960 ]; then
  "$root/.venv/bin/python" "$root/bench/count_castles.py" "$pgn" black_numba | tee -a "$log"
fi
