#!/usr/bin/env python3
"""Where datagen's CPU goes, per kept position: the labelling engine's process, our compiled
search (every `search.deepen` call, timed), and the rest of our process (the search driver in
Python, python-chess bookkeeping, encoding). Plays games in this process as a worker does
(`datagen.play_task`), after one warm-up game; no Dask, so no start-up cost is counted.

    .venv/bin/python bench/profile_datagen.py [--games 12] [--seed 902] [--nodes 2000]
        [--rescore ENGINE] [--rescore-nodes 5000]

Pause any background datagen first.
"""
import argparse
import hashlib
import os
import time

from common import use_checkout

use_checkout()
from black_numba.search import driver as engine  # noqa: E402  (the checkout's package)
from black_numba.training import datagen
from black_numba.cache import PACKAGE_DIR  # noqa: E402


def process_cpu(pid):
    """CPU seconds of a live process, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=12)
    ap.add_argument("--seed", type=int, default=902)
    ap.add_argument("--nodes", type=int, default=2000)
    ap.add_argument("--rescore", default="")
    ap.add_argument("--rescore-nodes", type=int, default=5000)
    a = ap.parse_args()
    with open(os.path.join(PACKAGE_DIR, "nets", "default.bnn"), "rb") as f:
        net = f.read()
    conf = {"eval": "nnue", "net_sha": hashlib.sha256(net).hexdigest(), "format": "text",
            "rescore": a.rescore, "nodes": a.nodes, "rescore_nodes": a.rescore_nodes}
    datagen.play_task(a.seed, 0, 1, conf, net)              # compile caches, engine start
    kernel = [0.0, 0]
    deepen = engine.deepen

    def timed(*args):
        t = time.process_time()
        try:
            return deepen(*args)
        finally:
            kernel[0] += time.process_time() - t
            kernel[1] += 1

    engine.deepen = timed
    labeller = datagen._WORKER["engine"]
    lab0 = process_cpu(labeller.uci.proc.pid) if labeller else 0.0
    own0, wall0 = time.process_time(), time.perf_counter()
    res = datagen.play_task(a.seed, 1, a.games, conf, net)
    own, wall = time.process_time() - own0, time.perf_counter() - wall0
    lab = process_cpu(labeller.uci.proc.pid) - lab0 if labeller else 0.0
    engine.deepen = deepen
    n = res["positions"]
    total = own + lab
    print(f"{a.games} games, {n:,} kept positions, {wall:.1f} s wall, {total:.2f} s CPU: "
          f"{n / total * 3600:,.0f} positions per CPU-hour")
    for part, sec in (("labelling engine", lab), ("our compiled search", kernel[0]),
                      ("the rest of our process", own - kernel[0])):
        print(f"  {part:24s} {sec / n * 1000:6.2f} ms a position  {sec / total:6.1%}")
    print(f"  ({kernel[1]:,} search.deepen calls)")


if __name__ == "__main__":
    main()
