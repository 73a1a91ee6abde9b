#!/bin/bash
# Two networks against each other on a lent many-core machine that reaches nothing outside it:
# `bench/matches.py net`'s conditions (one build both sides, Threads 1, Hash 16, no SPRT),
# many games at once, for SECONDS at most: the match is stopped (SIGTERM) before the call's
# limit, and `black-numba match` counts the pairs finished by then. Python packages come as
# wheels in .whl/ (see bench/device_datagen.sh); the candidate network and the openings (the
# 2-move set less the held-out sample: `bench/openings.py --rest`) travel in an ignored folder
# named in `carry`. The match's folder (conditions.txt, match.log, games.pgn, summary.json) is
# $OUT/match.
#
#   bench/device_match.sh SECONDS NET BASE_NET LIMIT CONCURRENCY SEED OPENINGS [GAMES]
#   e.g. bench/device_match.sh 560 .devcarry/n2.bnn black_numba/nets/default.bnn 10+0.1 15 \
#            23 .devcarry/openings_rest.epd 400
# LOCAL=1 skips the wheels (a trial run on this machine); BUILD names the build where .git
# does not travel.
set -u
secs=$1; net=$(readlink -f "$2"); base=$(readlink -f "$3"); limit=$4; conc=$5; seed=$6
openings=$(readlink -f "$7"); games=${8:-400}
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
t0=$SECONDS; bin/black-numba warmup >/dev/null && echo "warmup $((SECONDS - t0)) s"
left=$((end - SECONDS - 10))
timeout -s TERM "$left" $py bench/matches.py net "$net" candidate --base-net "$base" \
    --limit "$limit" --elo1 0 --games "$games" --concurrency "$conc" --seed "$seed" \
    --openings "$openings" --out "$out/match"
echo "# match rc $? (124: stopped at the time limit; the pairs in flight then are not counted)" \
    >> "$out/match/conditions.txt"
tail -8 "$out/match/match.log"
