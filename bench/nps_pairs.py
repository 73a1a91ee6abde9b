#!/usr/bin/env python3
"""Search speed of two networks (or two builds), measured in simultaneous pairs: `bench DEPTH`
nodes/s with network A pinned to one core and B to the other, then the cores swapped, so that
a core's or a moment's speed falls on both sides (a shared machine's single `bench` runs vary
more than the differences measured). A round's ratio is the geometric mean of its two A/B
ratios; the measure is the median over rounds, with a bootstrap 95% interval of the median.

    .venv/bin/python bench/nps_pairs.py NET_A NET_B [--rounds 20] [--depth 13]
                                        [--cpu-name haswell] [--engine-b PATH] [--out FILE]

--cpu-name compiles for another CPU than this one (NUMBA_CPU_NAME; Numba keys its cache by CPU
name and features, so both builds keep their entries): `haswell` is the AVX2 path on a machine
with AVX-512. --engine-b runs B with another build (another checkout's `bin/black-numba`, e.g.
a worktree at the previous release: the whole shipped engine against the one before, search
parameters included). Needs two cores and nothing else
running (pause the campaign).
"""
import argparse
import math
import os
import random
import statistics
import subprocess
import sys
import time

from common import ENGINE, commit_of, net_hash, report_of

BOOTSTRAP = 2000                  # resamples for the interval of the median
CORES = ("0", "1")


def start(net, cpu, depth, env, engine=ENGINE):
    return subprocess.Popen(["taskset", "-c", cpu, engine, "bench", str(depth), "--evalfile", net],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


def nps_of(proc):
    out = proc.communicate()[0]
    if proc.returncode != 0:
        sys.exit(f"nps_pairs: bench failed:\n{out}")
    nps = report_of(out)["nps"]
    if nps is None:
        sys.exit(f"nps_pairs: no Nodes/second line in:\n{out}")
    return nps


def pair(a, b, depth, env, engines=(ENGINE, ENGINE)):
    """(nps of a, nps of b), run at the same time on the two cores; engines: a's and b's build."""
    pa = start(a, CORES[0], depth, env, engines[0])
    pb = start(b, CORES[1], depth, env, engines[1])
    return nps_of(pa), nps_of(pb)


def median_interval(values, seed=1):
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(BOOTSTRAP))
    return meds[int(0.025 * BOOTSTRAP)], meds[int(0.975 * BOOTSTRAP) - 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("net_a")
    ap.add_argument("net_b")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--depth", type=int, default=13)
    ap.add_argument("--cpu-name", help="NUMBA_CPU_NAME to compile for (haswell: AVX2)")
    ap.add_argument("--engine-b", default=ENGINE,
                    help="B's build (another checkout's bin/black-numba); default this one")
    ap.add_argument("--out", help="also write the log here")
    a = ap.parse_args()
    if (os.cpu_count() or 1) < 2:
        sys.exit("nps_pairs: needs two cores")
    env = dict(os.environ)
    if a.cpu_name:
        env["NUMBA_CPU_NAME"] = a.cpu_name
    log = open(a.out, "w") if a.out else None

    def say(text):
        print(text, flush=True)
        if log:
            log.write(text + "\n")
            log.flush()

    ha, hb = net_hash(a.net_a)[:8], net_hash(a.net_b)[:8]
    ab, ba = (ENGINE, a.engine_b), (a.engine_b, ENGINE)
    build_b = "" if a.engine_b == ENGINE else f" with the build {a.engine_b}"
    say(f"# bench {a.depth} nodes/s in simultaneous pairs (taskset -c 0 / -c 1, cores swapped "
        f"within each round): A {ha} ({a.net_a}) against B {hb} ({a.net_b}{build_b}); commit "
        f"{commit_of()}, compiled for {a.cpu_name or 'this CPU'}; {a.rounds} rounds; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    say("# warm-up (compiles where the cache is cold): " + str(pair(a.net_a, a.net_b, 5, env, ab)))
    ratios, nps_a, nps_b = [], [], []
    for r in range(1, a.rounds + 1):
        a0, b1 = pair(a.net_a, a.net_b, a.depth, env, ab)
        b0, a1 = pair(a.net_b, a.net_a, a.depth, env, ba)
        ratio = math.sqrt((a0 / b1) * (a1 / b0))
        ratios.append(ratio)
        nps_a += [a0, a1]
        nps_b += [b0, b1]
        say(f"round {r}: A cpu0 {a0} B cpu1 {b1} | B cpu0 {b0} A cpu1 {a1} | ratio {ratio:.3f}")
    lo, hi = median_interval(ratios)
    say(f"A / B: median of rounds {statistics.median(ratios):.3f} (bootstrap 95% "
        f"{lo:.3f} .. {hi:.3f}; rounds {min(ratios):.3f} .. {max(ratios):.3f}); median nodes/s "
        f"A {statistics.median(nps_a):,.0f}, B {statistics.median(nps_b):,.0f}")


if __name__ == "__main__":
    main()
