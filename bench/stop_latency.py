#!/usr/bin/env python3
"""stop -> bestmove latency: `go infinite` on a bench position, `stop` after a random 0.1-0.3 s,
and the time until the `bestmove` line arrives, over many stops; Stockfish 15.1 with the same
thread count in the same run for comparison.

    .venv/bin/python bench/stop_latency.py --threads 2 8 --stops 100
"""
import argparse
import os
import random
import statistics
import time

from common import ENGINE, STOCKFISH, UciPipe, use_checkout

use_checkout()
from black_numba.frontends.bench import BENCH_FENS  # noqa: E402  (the checkout's package)

WAIT_S = 30            # a stop answered later than this is a failure


def latencies(cmd, threads, stops, seed):
    rng = random.Random(seed)
    eng = UciPipe(cmd, options=(("Threads", threads), ("Hash", 16)))
    out = []
    for i in range(stops):
        eng.send("position fen " + BENCH_FENS[i % len(BENCH_FENS)], "go infinite")
        time.sleep(0.1 + 0.2 * rng.random())
        t0 = time.perf_counter()
        eng.send("stop")
        t1, line = eng.wait("bestmove", WAIT_S)
        assert line.split()[1] != "0000", line
        out.append((t1 - t0) * 1000)
        eng.send("isready")
        eng.wait("readyok", WAIT_S)
    eng.close()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[2, 8])
    ap.add_argument("--stops", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    ours = ENGINE
    print(f"# {args.stops} stops each after 0.1-0.3 s of go infinite, {os.cpu_count()} cores")
    print(f"{'engine':12} {'threads':>7} {'median ms':>10} {'p95 ms':>8} {'max ms':>8}")
    for threads in args.threads:
        for name, cmd in (("black_numba", ours), ("stockfish", STOCKFISH)):
            if not os.path.exists(cmd):
                continue
            ms = sorted(latencies(cmd, threads, args.stops, args.seed))
            p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
            print(f"{name:12} {threads:>7} {statistics.median(ms):>10.2f} {p95:>8.2f} {ms[-1]:>8.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
