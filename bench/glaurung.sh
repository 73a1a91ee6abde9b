#!/bin/sh
# Strength against Glaurung 2.2 (Debian glaurung; CCRL 40/15 2911), the second anchor on a public
# rating list, at 10+0.1 from the 2-move openings, Glaurung on one thread (it defaults to two),
# Hash 16, no book.
#   bench/glaurung.sh GAMES [CONCURRENCY] [NET] [NAME]   e.g. bench/glaurung.sh 100 1
# NET: a network file black_numba plays (EvalFile) instead of its default; NAME names the log.
# Needs ../shared/tools/match.py (and ../shared/data/openings_2moves.epd) beside the checkout.
# The log, ~/.local/share/black_numba/matches/glaurung_GAMES.txt, starts with the run's conditions.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# logs and PGNs are written outside the repository (BLACK_NUMBA_MATCHES overrides the folder)
out=${BLACK_NUMBA_MATCHES:-$HOME/.local/share/black_numba/matches}; mkdir -p "$out"
games=${1:-100}; conc=${2:-1}; net=${3:-default}; name=${4:-$games}
log="$out/glaurung_$name.txt"
pgn="$out/glaurung_$name.pgn"
if [ "$net" = default ]; then evalfile=""; about="default options (Hash 16, Threads 1)"
else net=$(readlink -f "$net"); evalfile="option.EvalFile=$net"
     about="EvalFile $net (weights $("$root/.venv/bin/python" "$root/bench/net_id.py" "$net")), Hash 16, Threads 1"; fi
signature=$("$root/bin/black-numba" bench 2>/dev/null | sed -n 's/^Nodes searched *: *//p')
{
  echo "# commit: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo ' (with uncommitted changes)')"
  echo "# bench signature: $signature"
  echo "# opponent: Glaurung 2.2 (/usr/games/glaurung) Threads=1 Hash=16 OwnBook=false (python-chess manages Ponder: off)"
  echo "# black_numba: bin/black-numba, $about"
  echo "# time control: 10+0.1; games: $games (each opening with both colours); concurrency: $conc"
  echo "# openings: ../shared/data/openings_2moves.epd"
  echo "# started: $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores"
} > "$log"
"$root/.venv/bin/python" "$root/../shared/tools/match.py" \
  --engine cmd="$root/bin/black-numba" name=black_numba $evalfile \
  --engine cmd=/usr/games/glaurung name=glaurung option.Threads=1 option.Hash=16 \
           option.OwnBook=false \
  --games "$games" --tc 10+0.1 --openings "$root/../shared/data/openings_2moves.epd" \
  --concurrency "$conc" --pgn "$pgn" | tee -a "$log"
