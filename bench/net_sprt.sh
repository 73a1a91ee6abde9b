#!/bin/sh
# A candidate network against another (default: the shipped one) in this checkout, at a fixed
# node count a move or a time control (LIMIT 10+0.1: pause background work first): SPRT
# H0 = 0 Elo, H1 = ELO1 Elo (alpha = beta = 0.05; ELO1 0: no SPRT, all GAMES games), openings
# from the 2-move set less the held-out sample (bench/openings.py), Threads 1, Hash 16. The
# same build plays both sides, so only the networks differ.
#   bench/net_sprt.sh NET NAME [LIMIT] [GAMES] [ELO1] [CONCURRENCY] [BASE_NET] [SEED]
#   e.g. bench/net_sprt.sh /data/nets/n1.bnn n1 10000 4000 30 2
#        bench/net_sprt.sh /data/nets/n1.bnn n1_tc 10+0.1 400 0 2
# The log, ~/.local/share/black_numba/matches/netsprt_NAME.txt, starts with the run's conditions and both nets.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# logs and PGNs are written outside the repository (BLACK_NUMBA_MATCHES overrides the folder)
out=${BLACK_NUMBA_MATCHES:-$HOME/.local/share/black_numba/matches}; mkdir -p "$out"
net=$(readlink -f "$1"); name=$2; limit=${3:-10000}; games=${4:-4000}; elo1=${5:-30}
conc=${6:-2}; base=$(readlink -f "${7:-$root/black_numba/nets/default.bnn}"); seed=${8:-23}
log="$out/netsprt_$name.txt"
case $limit in *+*) how="time control $limit"; lim="--tc $limit";;
  *) how="$limit nodes a move"; lim="--nodes $limit";; esac
test "$elo1" = 0 && { sprt=""; test="no SPRT"; } || { sprt="--sprt 0 $elo1"; test="SPRT 0 $elo1"; }
rest=/tmp/openings_netsprt.epd
"$root/.venv/bin/python" "$root/bench/openings.py" --rest "$rest" >/dev/null
describe() {
  "$root/.venv/bin/python" "$root/bench/net_id.py" --describe "$1"
}
{
  echo "# $name: $(describe "$net")"
  echo "# against: $(describe "$base")"
  echo "# build $(git -C "$root" rev-parse --short HEAD) for both; $how, $test, at most $games games, concurrency $conc, openings: 2-move set less bench/openings_holdout.epd, seed $seed"
  echo "# started $(date -u '+%Y-%m-%d %H:%M UTC')"
} > "$log"
"$root/.venv/bin/python" "$root/../shared/tools/match.py" \
  --engine cmd="$root/bin/black-numba" name="$name" option.Threads=1 option.Hash=16 option.EvalFile="$net" \
  --engine cmd="$root/bin/black-numba" name=shipped option.Threads=1 option.Hash=16 option.EvalFile="$base" \
  --games "$games" $lim --openings "$rest" --seed "$seed" \
  --concurrency "$conc" $sprt --pgn "/tmp/netsprt_$name.pgn" >> "$log" 2>&1
echo "# ended $(date -u '+%Y-%m-%d %H:%M UTC')" >> "$log"
