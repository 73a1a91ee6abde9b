#!/bin/bash
# Two networks against each other on a lent many-core machine that reaches nothing outside it
# (bench/net_sprt.sh's conditions: one build both sides, Threads 1, Hash 16, openings from the
# 2-move set less the held-out sample), many games at once, for SECONDS at most: the match is
# stopped before the call's limit and only finished games count (the log's last "game" line).
# Python packages come as wheels in .whl/ (see bench/device_datagen.sh); the tool, the
# candidate network and the openings travel in an ignored folder named in `carry`. The log and
# the PGN go to $OUT.
#
#   bench/device_match.sh SECONDS NET BASE_NET LIMIT CONCURRENCY SEED OPENINGS MATCH_PY [GAMES]
#   e.g. bench/device_match.sh 560 .devcarry/n2.bnn black_numba/nets/default.bnn 10+0.1 15 \
#            23 .devcarry/openings_rest.epd .devcarry/match.py 400
# LOCAL=1 skips the wheels (a trial run on this machine); BUILD names the build where .git
# does not travel.
set -u
secs=$1; net=$(readlink -f "$2"); base=$(readlink -f "$3"); limit=$4; conc=$5; seed=$6
openings=$(readlink -f "$7"); matchpy=$(readlink -f "$8"); games=${9:-400}
end=$((SECONDS + secs))
out=${OUT:-/tmp/out}
mkdir -p "$out"
if [ -z "${LOCAL:-}" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site
fi
export PYTHONUNBUFFERED=1
py=python3; [ -x .venv/bin/python ] && py=.venv/bin/python
nproc; lscpu | grep -m1 "Model name"
case $limit in *+*) lim="--tc $limit";; *) lim="--nodes $limit";; esac
{
    echo "# candidate: $(PYTHONPATH=$PWD:${PYTHONPATH:-} $py bench/net_id.py --describe "$net")"
    echo "# against: $(PYTHONPATH=$PWD:${PYTHONPATH:-} $py bench/net_id.py --describe "$base")"
    echo "# build ${BUILD:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)} both sides; $lim," \
         "at most $games games, concurrency $conc on $(nproc) cores ($(lscpu | grep -m1 'Model name' | sed 's/.*: *//')), seed $seed"
    echo "# started $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
} | tee "$out/match.log"
t0=$SECONDS; bin/black-numba warmup >/dev/null && echo "warmup $((SECONDS - t0)) s"
left=$((end - SECONDS - 10))
timeout -s TERM "$left" $py "$matchpy" \
    --engine cmd="$PWD/bin/black-numba" name=candidate option.Threads=1 option.Hash=16 option.EvalFile="$net" \
    --engine cmd="$PWD/bin/black-numba" name=base option.Threads=1 option.Hash=16 option.EvalFile="$base" \
    --games "$games" $lim --openings "$openings" --seed "$seed" --concurrency "$conc" \
    --pgn "$out/games.pgn" >> "$out/match.log" 2>&1
echo "# match rc $? (124: stopped at the time limit; games in flight then are not counted)" >> "$out/match.log"
echo "# ended $(date -u '+%Y-%m-%d %H:%M:%S UTC')" >> "$out/match.log"
grep "^game " "$out/match.log" | tail -1
tail -6 "$out/match.log"
