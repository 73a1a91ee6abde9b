#!/usr/bin/env python3
"""Start-up times of bin/black-numba: `uciok` and `readyok` from process start, warm cache
(median of --repeat runs), and with --cold one start with an empty cache folder (compile
time). The delay from `stop` to `bestmove` is bench/stop_latency.py's.

    .venv/bin/python bench/bench_startup.py [--repeat 5] [--cold]
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

from common import ENGINE, UciPipe


def one_start(env=None):
    """Seconds from process start to `uciok` and to `readyok`."""
    eng = UciPipe(ENGINE, env=env, options=())
    eng.close()
    return eng.t_uciok - eng.t_start, eng.t_readyok - eng.t_start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cold", action="store_true", help="also time a start with an empty cache")
    args = ap.parse_args()
    one_start()
    runs = [one_start() for _ in range(args.repeat)]
    print(f"warm: uciok {statistics.median(r[0] for r in runs):.3f} s, "
          f"readyok {statistics.median(r[1] for r in runs):.3f} s (median of {args.repeat})")
    if args.cold:
        with tempfile.TemporaryDirectory() as d:
            env = dict(os.environ, BLACK_NUMBA_CACHE=d)
            t0 = time.perf_counter()
            subprocess.run([ENGINE, "warmup"], env=env, check=True, capture_output=True)
            print(f"cold: full compile (black-numba warmup, empty cache) {time.perf_counter() - t0:.1f} s")
            u, r = one_start(env)
            print(f"cold cache: first readyok after warmup {r:.3f} s")
            with tempfile.TemporaryDirectory() as d2:
                u, r = one_start(dict(os.environ, BLACK_NUMBA_CACHE=d2))
                print(f"cold: uciok {u:.3f} s, readyok {r:.3f} s with an empty cache (engine start)")


if __name__ == "__main__":
    main()
