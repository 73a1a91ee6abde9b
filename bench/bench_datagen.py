#!/usr/bin/env python3
"""Datagen throughput of one or more builds, interleaved: positions per CPU-hour (the CPU of
datagen, its jobs and their labelling engines together) and per wall-clock hour, for the same
recipe and seed in every build, so equal builds write equal files (checked).

    .venv/bin/python bench/bench_datagen.py CHECKOUT [CHECKOUT ...] [--rounds 3]
        [--positions 10000] [-- DATAGEN ARGS]

Default recipe: --jobs 2 --nodes 2000 --eval nnue --seed 902 --rescore /usr/games/stockfish
--rescore-nodes 5000. Pause any background datagen first: the figures are only as quiet as
the machine.
"""
import argparse
import filecmp
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

RECIPE = ["--jobs", "2", "--nodes", "2000", "--eval", "nnue", "--seed", "902",
          "--rescore", "/usr/games/stockfish", "--rescore-nodes", "5000"]


def one(checkout, positions, recipe, out):
    py = os.path.join(checkout, ".venv", "bin", "python")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([py, "-m", "black_numba.cli", "datagen", "--positions", str(positions),
                    "--out", out] + recipe, cwd=checkout, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    n = sum(sum(1 for _ in open(os.path.join(out, f))) for f in os.listdir(out)
            if f.endswith(".txt"))
    return n, wall, cpu


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser()
    ap.add_argument("checkouts", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--positions", type=int, default=10000)
    a = ap.parse_args(argv)
    recipe = extra or RECIPE
    tmp = tempfile.mkdtemp(prefix="bench_datagen_")
    res = {c: [] for c in a.checkouts}
    outs = {}
    for r in range(a.rounds):
        for c in a.checkouts:
            out = os.path.join(tmp, f"{len(outs)}")
            outs.setdefault(c, out)
            n, wall, cpu = one(c, a.positions, recipe, out)
            res[c].append((n / cpu * 3600, n / wall * 3600))
            print(f"round {r + 1} {c}: {n:,} positions, {wall:.1f} s wall, {cpu:.1f} s CPU: "
                  f"{n / cpu * 3600:,.0f} per CPU-hour, {n / wall * 3600:,.0f} per hour",
                  flush=True)
            if out != outs[c]:
                shutil.rmtree(out)
    first = outs[a.checkouts[0]]
    for c in a.checkouts:
        cpu_rates = [x for x, _ in res[c]]
        same = all(filecmp.cmp(os.path.join(first, f), os.path.join(outs[c], f), shallow=False)
                   for f in os.listdir(first) if f.endswith(".txt"))
        print(f"{c}: median {statistics.median(cpu_rates):,.0f} positions per CPU-hour, "
              f"{statistics.median(x for _, x in res[c]):,.0f} per hour; "
              f"files {'equal to' if same else 'DIFFERENT from'} the first build's")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
