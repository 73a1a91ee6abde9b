#!/usr/bin/env python3
"""Datagen throughput of one or more builds, interleaved: positions per CPU-hour (the CPU of
datagen, its jobs and their labelling engines together) and per wall-clock hour, for the same
recipe and seed in every build, so equal builds write equal files (checked).

    .venv/bin/python bench/bench_datagen.py CHECKOUT[:ENGINE] [CHECKOUT[:ENGINE] ...]
        [--rounds 3] [--positions 10000] [-- DATAGEN ARGS]

`:ENGINE` gives that configuration another labelling engine (the recipe's `--rescore` path),
e.g. a Stockfish built for this processor beside Debian's (tools/build_stockfish.py). CPU is
that of the whole process tree (a cgroup of its own). `--short N` also runs N positions each
round, for the marginal rate: a long campaign's, without the start-up (a local Dask cluster
costs about 17 CPU-seconds a run). Configurations whose files have the
same names are compared byte for byte (the data layout changed at d667002).

Default recipe: datagen's own, --jobs 2 --nodes 2000 --eval nnue --seed 902 (labels by the
play search); the Stockfish-labelled one is given after `--`, e.g. `-- --jobs 2 --nodes 2000
--eval nnue --seed 902 --rescore /usr/games/stockfish --rescore-nodes 5000`. Pause any background datagen first: the figures are only as quiet as
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

import common

RECIPE = ["--jobs", "2", "--nodes", "2000", "--eval", "nnue", "--seed", "902"]


def with_engine(recipe, engine):
    """The recipe with ENGINE as its --rescore path (unchanged without one)."""
    if not engine:
        return recipe
    if "--rescore" not in recipe:
        sys.exit("bench_datagen: :ENGINE needs a recipe with --rescore")
    i = recipe.index("--rescore") + 1
    return recipe[:i] + [engine] + recipe[i + 1:]


CPUACCT = "/sys/fs/cgroup/cpuacct"


class ProcessTreeCPU:
    """CPU seconds of a command and every process it starts. Resource usage of children
    counts only the processes that were waited for, and datagen's Dask workers and their
    labelling engines are not all waited for (it counted half of a Dask build's CPU), so the
    command runs in a cgroup of its own (v1 cpuacct) where one can be made; else it falls back
    on the children's resource usage and says so."""

    def __init__(self):
        self.group = None
        if os.access(CPUACCT, os.W_OK):
            self.group = os.path.join(CPUACCT, f"bench_datagen_{os.getpid()}")
            os.makedirs(self.group, exist_ok=True)
        else:
            print("bench_datagen: no cpuacct cgroup; CPU from waited-for children only",
                  file=sys.stderr)

    def enter(self):
        """In the child before exec: join the group."""
        if self.group:
            with open(os.path.join(self.group, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))

    def seconds(self):
        if self.group:
            with open(os.path.join(self.group, "cpuacct.usage")) as f:
                return int(f.read()) / 1e9
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime


def one(checkout, positions, recipe, out, meter):
    before = meter.seconds()
    t0 = time.perf_counter()
    # the checkout's own launcher: it knows where that checkout keeps its command line
    subprocess.run([common.engine_of(checkout), "datagen", "--positions", str(positions),
                    "--out", out] + recipe, cwd=checkout, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   preexec_fn=meter.enter)
    wall = time.perf_counter() - t0
    time.sleep(1)   # processes the command left behind finish their exit
    cpu = meter.seconds() - before
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
    ap.add_argument("--short", type=int, default=0,
                    help="also run each round with this many positions and report the "
                         "marginal rate (the extra positions over the extra CPU): a long "
                         "campaign's rate, without start-up costs")
    a = ap.parse_args(argv)
    recipe = extra or RECIPE
    tmp = tempfile.mkdtemp(prefix="bench_datagen_")
    res = {c: [] for c in a.checkouts}
    marginal = {c: [] for c in a.checkouts}
    outs = {}
    meter = ProcessTreeCPU()
    for r in range(a.rounds):
        for c in a.checkouts:
            out = os.path.join(tmp, f"{a.checkouts.index(c)}_{r}")
            outs.setdefault(c, out)
            checkout, _, engine = c.partition(":")
            n, wall, cpu = one(checkout, a.positions, with_engine(recipe, engine), out,
                                meter)
            res[c].append((n / cpu * 3600, n / wall * 3600))
            line = (f"round {r + 1} {c}: {n:,} positions, {wall:.1f} s wall, {cpu:.1f} s CPU: "
                    f"{n / cpu * 3600:,.0f} per CPU-hour, {n / wall * 3600:,.0f} per hour")
            if a.short:
                short_out = out + "_short"
                n0, _, cpu0 = one(checkout, a.short, with_engine(recipe, engine), short_out,
                                  meter)
                shutil.rmtree(short_out)
                marginal[c].append((n - n0) / (cpu - cpu0) * 3600)
                line += (f"; {n0:,} positions in {cpu0:.1f} s CPU: marginal "
                         f"{marginal[c][-1]:,.0f} per CPU-hour")
            print(line, flush=True)
            if out != outs[c]:
                shutil.rmtree(out)

    def names(c):
        return sorted(f for f in os.listdir(outs[c]) if f.endswith(".txt"))

    for c in a.checkouts:
        cpu_rates = [x for x, _ in res[c]]
        first = next(d for d in a.checkouts if names(d) == names(c))
        same = all(filecmp.cmp(os.path.join(outs[first], f), os.path.join(outs[c], f),
                               shallow=False) for f in names(c))
        extra_text = (f", marginal {statistics.median(marginal[c]):,.0f} per CPU-hour"
                      if a.short else "")
        print(f"{c}: median {statistics.median(cpu_rates):,.0f} positions per CPU-hour"
              f"{extra_text}, {statistics.median(x for _, x in res[c]):,.0f} per hour; "
              f"files {'equal to' if same else 'DIFFERENT from'} {first}'s")
    shutil.rmtree(tmp)
    if meter.group:
        os.rmdir(meter.group)


if __name__ == "__main__":
    main()
