#!/bin/sh
# This checkout against BASE (a checkout of another build, its own warm cache) at a time
# control: a sequential test H0 = ELO0, H1 = ELO1 (alpha = beta = 0.05; ELO1 0: no SPRT, all
# GAMES games), Threads 1, Hash 16. Timed: stop or pause background work first.
# OPENINGS: "rest" (the 2-move set less the held-out sample, as every sequential test) or
# "holdout" (bench/openings_holdout.epd, kept for issue 23's final test). NET: a network file
# that both builds play (EvalFile), or "default" (each its own). SEED (23) draws the openings:
# a second stream of one test takes another seed and NAME, pooled by bench/sprt_pool.py.
#   bench/tc_sprt.sh BASE NAME [TC] [GAMES] [ELO0] [ELO1] [CONCURRENCY] [OPENINGS] [NET] [SEED]
#   e.g. bench/tc_sprt.sh ../i23base nodetm_tc 10+0.1 600 0 15 2
#        git show 5dd411e:black_numba/nets/default.bnn > /tmp/46cc2f2b.bnn
#        bench/tc_sprt.sh ../start final23 10+0.1 600 20 60 2 holdout /tmp/46cc2f2b.bnn
# The log, ~/.local/share/black_numba/matches/tcsprt_NAME.txt, starts with the run's conditions.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# logs and PGNs are written outside the repository (BLACK_NUMBA_MATCHES overrides the folder)
out=${BLACK_NUMBA_MATCHES:-$HOME/.local/share/black_numba/matches}; mkdir -p "$out"
base=$(cd "$1" && pwd); name=$2; tc=${3:-10+0.1}; games=${4:-600}; elo0=${5:-0}
elo1=${6:-15}; conc=${7:-2}; which=${8:-rest}; net=${9:-default}; seed=${10:-23}
log="$out/tcsprt_$name.txt"
case $which in
  rest) book=/tmp/openings_tcsprt.epd
        "$root/.venv/bin/python" "$root/bench/openings.py" --rest "$book" >/dev/null
        about="2-move set less bench/openings_holdout.epd";;
  holdout) book="$root/bench/openings_holdout.epd"; about="bench/openings_holdout.epd";;
  *) echo "OPENINGS is rest or holdout, not $which" >&2; exit 2;;
esac
if [ "$net" = default ]; then evalfile=""; nets="each its default network"
else net=$(readlink -f "$net"); evalfile="option.EvalFile=$net"
     nets="both EvalFile $net (weights $("$root/.venv/bin/python" "$root/bench/net_id.py" "$net"))"; fi
test "$elo1" = 0 && { sprt=""; test="no SPRT"; } || { sprt="--sprt $elo0 $elo1"; test="SPRT $elo0 $elo1"; }
sig() { "$1/bin/black-numba" bench 2>&1 | grep 'Nodes searched' | awk '{print $4}'; }
{
  echo "# $name: $(git -C "$root" rev-parse --short HEAD) (bench $(sig "$root")) against $(git -C "$base" rev-parse --short HEAD) (bench $(sig "$base"))"
  echo "# $tc, $test, at most $games games, concurrency $conc, Threads 1, Hash 16, $nets"
  echo "# openings: $about, seed $seed; $(nproc) cores"
  echo "# started $(date -u '+%Y-%m-%d %H:%M UTC')"
} > "$log"
# shellcheck disable=SC2086
"$root/.venv/bin/python" "$root/../shared/tools/match.py" \
  --engine cmd="$root/bin/black-numba" name=new option.Threads=1 option.Hash=16 $evalfile \
  --engine cmd="$base/bin/black-numba" name=base option.Threads=1 option.Hash=16 $evalfile \
  --games "$games" --tc "$tc" --openings "$book" --seed "$seed" \
  --concurrency "$conc" $sprt --pgn "/tmp/tcsprt_$name.pgn" >> "$log" 2>&1
echo "# ended $(date -u '+%Y-%m-%d %H:%M UTC')" >> "$log"
