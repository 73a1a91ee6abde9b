#!/usr/bin/env python3
"""Lazy SMP speed: nodes/second and time to depth of `black-numba bench --threads N` (40
positions to --depth, 11 by default, fresh hash) at each thread count, beside Stockfish 15.1's own `bench`
with the same thread counts (its 50 positions to depth 13, Hash 16) in the same run. Rounds are
interleaved and the median of each is reported, with the speed-up over one thread.

    .venv/bin/python bench/bench_threads.py --threads 1 2 --rounds 3
"""
import argparse
import os
import statistics

from common import SF_BENCH, STOCKFISH, our_bench, stockfish_bench

SF_DEPTH = int(SF_BENCH[3])


def run(engine, threads, depth):
    """(total ms, nodes, nodes/s) of one bench run."""
    if engine == "black_numba":
        r = our_bench(depth, "--threads", str(threads))
    else:
        r = stockfish_bench(threads)
    return r["ms"], r["nodes"], r["nps"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--depth", type=int, default=11, help="black_numba's bench depth")
    args = ap.parse_args()
    engines = ["black_numba"] + (["stockfish"] if os.path.exists(STOCKFISH) else [])
    results = {(e, t): [] for e in engines for t in args.threads}
    for _ in range(args.rounds):
        for t in args.threads:
            for e in engines:
                results[(e, t)].append(run(e, t, args.depth))
    print(f"# {args.rounds} interleaved rounds, median; black_numba bench depth {args.depth}, "
          f"Stockfish bench depth {SF_DEPTH}; {os.cpu_count()} cores")
    print(f"{'engine':12} {'threads':>7} {'time ms':>9} {'nodes':>11} {'nodes/s':>10} "
          f"{'nps x':>6} {'time x':>7}")
    for e in engines:
        base = None
        for t in args.threads:
            ms = statistics.median(r[0] for r in results[(e, t)])
            nodes = statistics.median(r[1] for r in results[(e, t)])
            nps = statistics.median(r[2] for r in results[(e, t)])
            base = base or (ms, nps)
            print(f"{e:12} {t:>7} {ms:>9.0f} {nodes:>11.0f} {nps:>10.0f} {nps / base[1]:>6.2f} "
                  f"{base[0] / ms:>7.2f}")


if __name__ == "__main__":
    main()
