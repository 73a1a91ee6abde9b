#!/usr/bin/env python3
"""black_numba's perft against another perft program, on the Chess Programming Wiki's six
positions, with one thread and with every core, interleaved over rounds.

    .venv/bin/python perft/compare_perft.py --other PATH [--rounds 3] [--stockfish PATH]

The other program is run as `PATH FEN DEPTH` and must print its count as `Result: N` and
its own time as `Time taken: S seconds` (ellxor/perft does; build it in a scratch folder
with `g++ -std=c++20 -O3 -flto -fno-exceptions -fno-rtti -march=native src/unity_build.cc
-lpthread -o perft`, never commit its code). It starts a thread per online core, so its
one-thread runs go through `taskset -c 0`. black_numba runs as `bin/black-numba perft DEPTH
--fen FEN --threads T` and reports its own time, so neither side's start-up counts. Neither
uses a hash table. Every count is checked: against perft/cpw_perft_positions.epd where it
holds the depth, else against Stockfish's `go perft` (computed once a run). Prints each
program's best time over the rounds, the median, and the ratio black_numba / other (below 1:
black_numba faster), for one thread and for every core, and black_numba's scaling: its
every-core time against its own one-thread time at the same depth.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE = os.path.join(ROOT, "bin", "black-numba")
EPD = os.path.join(ROOT, "perft", "cpw_perft_positions.epd")

# (name, EPD id, depth with one thread, depth with every core): each 0.1-5 s on two cores
CASES = [
    ("start", "CPW-1-startpos", 6, 7),
    ("Kiwipete", "CPW-2-kiwipete", 5, 6),
    ("position 3", "CPW-3", 7, 8),
    ("position 4", "CPW-4", 6, 6),
    ("position 5", "CPW-5", 5, 6),
    ("position 6", "CPW-6", 5, 6),
]


def load_epd():
    """{id: (FEN, {depth: count})}."""
    out = {}
    with open(EPD) as f:
        for line in f:
            fields = line.strip().split(";")
            if not fields[0]:
                continue
            counts, ident = {}, None
            for part in fields[1:]:
                part = part.strip()
                if part.startswith("id "):
                    ident = part[3:]
                elif part.startswith("D"):
                    d, n = part[1:].split()
                    counts[int(d)] = int(n)
            out[ident] = (fields[0].strip(), counts)
    return out


def stockfish_count(stockfish, fen, depth):
    """Stockfish's `go perft` count (the reference beyond the EPD's depths)."""
    r = subprocess.run([stockfish], input=f"position fen {fen}\ngo perft {depth}\nquit\n",
                       capture_output=True, text=True, timeout=3600)
    m = re.search(r"Nodes searched: (\d+)", r.stdout)
    if not m:
        sys.exit(f"compare_perft: Stockfish gave no count for {fen} depth {depth}")
    return int(m.group(1))


def run_ours(fen, depth, threads):
    r = subprocess.run([ENGINE, "perft", str(depth), "--fen", fen, "--threads", str(threads),
                        "--quiet"], capture_output=True, text=True, timeout=3600)
    nodes = re.search(r"Nodes searched: (\d+)", r.stdout)
    secs = re.search(r"time ([\d.]+) s", r.stdout + r.stderr)
    if r.returncode or not nodes or not secs:
        sys.exit(f"compare_perft: black_numba failed: {r.stdout}{r.stderr}")
    return int(nodes.group(1)), float(secs.group(1))


def run_other(path, fen, depth, threads, cores):
    cmd = [path, fen, str(depth)]
    if threads < cores:
        cmd = ["taskset", "-c", ",".join(map(str, range(threads)))] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    nodes = re.search(r"Result:\s+(\d+)", r.stdout)
    secs = re.search(r"Time taken:\s+([\d.]+)", r.stdout)
    if r.returncode or not nodes or not secs:
        sys.exit(f"compare_perft: {path} failed: {r.stdout}{r.stderr}")
    return int(nodes.group(1)), float(secs.group(1))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--other", required=True, help="the other perft program (PATH FEN DEPTH)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--stockfish", default=shutil.which("stockfish") or "/usr/games/stockfish")
    ap.add_argument("--cases", help="comma-separated names to run (default all six)")
    args = ap.parse_args(argv)
    if not shutil.which("taskset"):
        sys.exit("compare_perft: needs taskset (util-linux) for the other's one-thread runs")
    cores = os.cpu_count() or 1
    epd = load_epd()
    cases = [c for c in CASES if not args.cases or c[0] in args.cases.split(",")]
    expected = {}
    for name, ident, d1, dn in cases:
        fen, counts = epd[ident]
        for d in {d1, dn}:
            expected[(name, d)] = counts.get(d) or stockfish_count(args.stockfish, fen, d)
    times = {}
    for rnd in range(args.rounds):
        for name, ident, d1, dn in cases:
            fen = epd[ident][0]
            for threads, depth in ((1, d1), (cores, dn)):
                # alternate who goes first, so neither always meets a warmer machine
                order = ("ours", "other") if rnd % 2 == 0 else ("other", "ours")
                for who in order:
                    if who == "ours":
                        n, s = run_ours(fen, depth, threads)
                    else:
                        n, s = run_other(args.other, fen, depth, threads, cores)
                    if n != expected[(name, depth)]:
                        sys.exit(f"compare_perft: {who} counted {n:,} for {name} depth {depth},"
                                 f" not {expected[(name, depth)]:,}")
                    times.setdefault((name, threads, who), []).append(s)
            if cores > 1 and dn != d1:
                # black_numba's scaling at the every-core depth: one thread there too (the
                # leaf-to-interior mix changes with the depth, so depths apart mislead)
                n, s = run_ours(fen, dn, 1)
                if n != expected[(name, dn)]:
                    sys.exit(f"compare_perft: ours counted {n:,} for {name} depth {dn}")
                times.setdefault((name, 1, "ours deep"), []).append(s)
        print(f"round {rnd + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    print(f"black_numba against {os.path.basename(args.other)}: each program's own time, best "
          f"(median) of {args.rounds} rounds, {cores} cores; ratio = black_numba / other")
    print(f"{'position':<11} {'threads':>7} {'depth':>5} {'nodes':>14} {'black_numba s':>16} "
          f"{'other s':>16} {'ratio':>6} {'(median)':>8}")
    for threads_kind in ("one", "all"):
        for name, ident, d1, dn in cases:
            threads, depth = (1, d1) if threads_kind == "one" else (cores, dn)
            ours, other = times[(name, threads, "ours")], times[(name, threads, "other")]
            print(f"{name:<11} {threads:>7} {depth:>5} {expected[(name, depth)]:>14,} "
                  f"{min(ours):>8.3f} ({statistics.median(ours):.3f}) "
                  f"{min(other):>8.3f} ({statistics.median(other):.3f}) "
                  f"{min(ours) / min(other):>6.2f} "
                  f"{statistics.median(ours) / statistics.median(other):>8.2f}")
    if cores > 1:
        for name, ident, d1, dn in cases:
            one = min(times.get((name, 1, "ours deep")) or times[(name, 1, "ours")])
            print(f"black_numba {name}: {cores} threads give "
                  f"{one / min(times[(name, cores, 'ours')]):.2f}x the speed of one thread "
                  f"at depth {dn}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
