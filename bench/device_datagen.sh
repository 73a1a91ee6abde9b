#!/bin/bash
# Datagen (and, with --bench, the batch evaluator's throughput) on a lent many-core GPU machine
# that reaches nothing outside it: Python packages come as wheels in .whl/ (numpy 2.4, since
# numba-cuda fails on numpy 2.5; python-chess, dask, distributed and their missing needs), the
# recipe is the default one (our own search labels the positions: no labelling engine to
# carry). Data go to DATA on that machine as whole games (.bng); what this call added is
# copied to $OUT as datagen_s<SEED>.part<OFFSET>.bng.xz.aa (.ab, ...: 15 MB pieces) with the
# progress file and manifest, so calls on the same warm machine resume one run and the parts
# concatenate to its file.
#
#   bench/device_datagen.sh SECONDS SEED DATA [--bench]
# .whl/ is made here (ignored through .git/info/exclude): `pip download --no-deps
# --only-binary=:all: --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64
# (and _2_27, _2_17, 2014) -d .whl` numpy==2.4.6 dask==2026.8.0 distributed==2026.8.0 partd
# locket tblib zict tornado, and `pip wheel --no-deps -w .whl chess==1.11.2` (PyPI has no wheel
# of python-chess); about 19 MB.
set -u
secs=$1; seed=$2; data=$3; bench=${4:-}
end=$((SECONDS + secs))
out=${OUT:-/tmp/out}
mkdir -p "$out" "$data"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
nproc; lscpu | grep -m1 "Model name"; nvidia-smi -L
python3 -c "import numpy, numba, numba_cuda, dask, chess; print('numpy', numpy.__version__, \
'numba', numba.__version__, 'dask', dask.__version__, 'chess', chess.__version__)"
t0=$SECONDS; python3 -m black_numba.frontends.cli warmup >/dev/null && echo "warmup $((SECONDS - t0)) s"
if [ "$bench" = --bench ]; then
    python3 bench/bench_eval.py --positions 100000 --gpu-positions 4000000 --repeat 5 \
        2>&1 | tee "$out/bench_eval.txt"
fi
bng="$data/datagen_s$seed.bng"
before=$(stat -c %s "$bng" 2>/dev/null || echo 0)
left=$((end - SECONDS - 40))
t0=$SECONDS
timeout -s TERM "$left" python3 -m black_numba.frontends.cli datagen --positions 100000000 \
    --jobs "$(nproc)" --seed "$seed" --out "$data" --format games 2>&1 | tail -5
wall=$((SECONDS - t0))
cat "$data/datagen_s$seed.progress"
echo "datagen wall $wall s on $(nproc) cores; bytes before $before"
tail -c +$((before + 1)) "$bng" | xz -T0 -6 | split -b 15M - "$out/datagen_s$seed.part$before.bng.xz."
cp "$data/datagen_s$seed.progress" "$data/manifest.json" "$out/"
sha256sum "$bng" | tee "$out/sha256.txt"
ls -l "$out"
