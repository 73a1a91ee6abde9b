#!/usr/bin/env python3
"""Speed of two builds, interleaved, each as a ratio to Stockfish measured in the same round:
search speed (`black-numba bench DEPTH` nodes/s over `stockfish bench 16 1 13` nodes/s) and
perft(6) from the start position (our time over Stockfish's `go perft 6`). A change that
must not cost speed is judged on the medians of these ratios (the machines are shared and
noisy, so raw figures of separate runs cannot be compared).

    .venv/bin/python bench/compare_builds.py BEFORE_CHECKOUT [AFTER_CHECKOUT] [--rounds 5]

Each checkout needs a warm cache (`bin/black-numba warmup`) and a .venv, as the README's
set-up makes.
"""
import argparse
import re
import statistics
import subprocess
import time

from common import ROOT, STOCKFISH, UciPipe, engine_of, our_bench, stockfish_bench


def our_perft(checkout, depth=6):
    """Seconds of perft(depth) from the start position (the command's own timing)."""
    r = subprocess.run([engine_of(checkout), "perft", str(depth)],
                       capture_output=True, text=True, check=True)
    return float(re.search(r"time ([\d.]+) s", r.stderr).group(1))


def stockfish_perft(depth=6):
    sf = UciPipe(STOCKFISH)
    t0 = time.perf_counter()
    sf.send("position startpos", f"go perft {depth}")
    dt = sf.wait("Nodes searched")[0] - t0
    sf.close()
    return dt


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after", nargs="?", default=ROOT)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--depth", type=int, default=11, help="our bench depth (11: the signature)")
    args = ap.parse_args()
    builds = {"before": args.before, "after": args.after}
    ratios = {name: {"nps": [], "perft": []} for name in builds}
    nodes = {}
    for rnd in range(1, args.rounds + 1):
        order = list(builds) if rnd % 2 else list(builds)[::-1]
        for name in order:
            sf_nps = stockfish_bench()["nps"]
            ours = our_bench(args.depth, checkout=builds[name])
            nodes[name], nps = ours["nodes"], ours["nps"]
            sf_t = stockfish_perft()
            t = our_perft(builds[name])
            ratios[name]["nps"].append(nps / sf_nps)
            ratios[name]["perft"].append(t / sf_t)
            print(f"round {rnd} {name}: bench {nps} nodes/s, Stockfish {sf_nps} "
                  f"({nps / sf_nps:.3f}); perft(6) {t:.3f} s, Stockfish {sf_t:.3f} s "
                  f"({t / sf_t:.3f}x the time)", flush=True)
    for name in builds:
        print(f"{name} ({builds[name]}): bench signature {nodes[name]}, median nodes/s ratio "
              f"{statistics.median(ratios[name]['nps']):.3f}, median perft(6) time ratio "
              f"{statistics.median(ratios[name]['perft']):.3f}")
    b, a = ratios["before"], ratios["after"]
    print(f"after / before: nodes/s {statistics.median(a['nps']) / statistics.median(b['nps']):.3f}, "
          f"perft(6) time {statistics.median(a['perft']) / statistics.median(b['perft']):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
