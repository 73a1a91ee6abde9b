#!/usr/bin/env python3
"""Chess960 perft over perft/perft_fischer960.epd beside Stockfish 15.1, in the same run.

    .venv/bin/python perft/bench_chess960.py [--depth 5] [--every 1] [--stockfish PATH]

Every position is checked against the suite's count at --depth, by black_numba (in process,
after a warm-up) and by Stockfish (`UCI_Chess960 true`, `go perft N`, one process); prints
nodes, time, nodes/s and the time ratio. --every K takes every K-th position.
"""
import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def read_suite(path, depth, every):
    """[(fen, count at depth)] of every every-th position of the suite."""
    from black_numba.frontends.cli import _read_suite
    return [(fen, counts[depth]) for i, (_, fen, counts) in enumerate(_read_suite(path, None))
            if i % every == 0]


def stockfish(path, suite, depth):
    p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    p.stdin.write("uci\nsetoption name UCI_Chess960 value true\nisready\n")
    p.stdin.flush()
    while p.stdout.readline().strip() != "readyok":
        pass
    bad, total = 0, 0
    t0 = time.perf_counter()
    for fen, want in suite:
        p.stdin.write(f"position fen {fen}\ngo perft {depth}\n")
        p.stdin.flush()
        while True:
            line = p.stdout.readline()
            if line.startswith("Nodes searched"):
                n = int(line.split(":")[1])
                break
        total += n
        bad += n != want
    dt = time.perf_counter() - t0
    p.stdin.write("quit\n")
    p.stdin.flush()
    return total, dt, bad


def ours(suite, depth):
    from black_numba.board.perft import perft
    from black_numba.board.position import from_fen
    perft(from_fen(suite[0][0]), 2)                      # compile / load outside the clock
    bad, total = 0, 0
    t0 = time.perf_counter()
    for fen, want in suite:
        n = perft(from_fen(fen), depth)
        total += n
        if n != want:
            bad += 1
            print(f"WRONG {fen}: {n} != {want}", flush=True)
    return total, time.perf_counter() - t0, bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--epd", default=os.path.join(ROOT, "perft", "perft_fischer960.epd"))
    a = ap.parse_args()
    suite = read_suite(a.epd, a.depth, a.every)
    print(f"{len(suite)} positions, depth {a.depth}", flush=True)
    n1, t1, bad1 = ours(suite, a.depth)
    print(f"black_numba: {n1:,} nodes in {t1:.1f} s, {n1 / t1 / 1e6:.1f} M nodes/s, "
          f"{len(suite) - bad1}/{len(suite)} exact", flush=True)
    if os.path.exists(a.stockfish):
        n2, t2, bad2 = stockfish(a.stockfish, suite, a.depth)
        print(f"Stockfish:   {n2:,} nodes in {t2:.1f} s, {n2 / t2 / 1e6:.1f} M nodes/s, "
              f"{len(suite) - bad2}/{len(suite)} exact")
        print(f"time ratio black_numba / Stockfish: {t1 / t2:.2f}")
    sys.exit(1 if bad1 else 0)


if __name__ == "__main__":
    main()
