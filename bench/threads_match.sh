#!/bin/sh
# Lazy SMP strength: black_numba with Threads=N against itself with Threads=1, at 10+0.1 (or
# TC) from the 2-move openings, concurrency 1 (no pondering: each engine may use every core while
# the other waits), SPRT H0 = 0 Elo, H1 = 40 Elo (alpha = beta = 0.05), at most GAMES games;
# a fourth argument nosprt plays all GAMES games (a fault count).
#   bench/threads_match.sh [N] [GAMES] [TC] [nosprt]   e.g. bench/threads_match.sh 2 400
# The log, ~/.local/share/black_numba/matches/threadsN_vs_1[_TC].txt, starts with the run's conditions; match.py's
# report follows (Elo with error bars, illegal moves, time losses, crashes).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# logs and PGNs are written outside the repository (BLACK_NUMBA_MATCHES overrides the folder)
out=${BLACK_NUMBA_MATCHES:-$HOME/.local/share/black_numba/matches}; mkdir -p "$out"
threads=${1:-2}; games=${2:-400}; tc=${3:-10+0.1}; mode=${4:-sprt}
suffix=""; [ "$tc" = "10+0.1" ] || suffix="_$tc"
sprt="--sprt 0 40"; [ "$mode" = nosprt ] && sprt=""
log="$out/threads${threads}_vs_1${suffix}.txt"
pgn="$out/threads${threads}_vs_1${suffix}.pgn"
signature=$("$root/bin/black-numba" bench 2>/dev/null | sed -n 's/^Nodes searched *: *//p')
{
  echo "# commit: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo ' (with uncommitted changes)')"
  echo "# bench signature (Threads=1): $signature"
  echo "# engines: bin/black-numba Threads=$threads Hash=16 against bin/black-numba Threads=1 Hash=16"
  echo "# time control: $tc; at most $games games (each opening with both colours); concurrency: 1; ${sprt:-no SPRT}"
  echo "# openings: ../shared/data/openings_2moves.epd"
  echo "# started: $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores"
} > "$log"
"$root/.venv/bin/python" "$root/../shared/tools/match.py" \
  --engine cmd="$root/bin/black-numba" name="threads$threads" option.Threads="$threads" option.Hash=16 \
  --engine cmd="$root/bin/black-numba" name=threads1 option.Threads=1 option.Hash=16 \
  --games "$games" --tc "$tc" --openings "$root/../shared/data/openings_2moves.epd" \
  --concurrency 1 $sprt --pgn "$pgn" | tee -a "$log"
