#!/usr/bin/env python3
"""stop -> bestmove latency: `go infinite` on a bench position, `stop` after a random 0.1-0.3 s,
and the time until the `bestmove` line arrives, over many stops; Stockfish 15.1 with the same
thread count in the same run for comparison.

    .venv/bin/python bench/stop_latency.py --threads 2 8 --stops 100
"""
import argparse
import os
import queue
import random
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from black_numba.frontends.bench import BENCH_FENS  # noqa: E402  (the checkout's package)

STOCKFISH = "/usr/games/stockfish"


class Engine:
    def __init__(self, cmd, threads):
        self.p = subprocess.Popen([cmd], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.q = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send("uci")
        self.wait("uciok")
        self.send(f"setoption name Threads value {threads}", "setoption name Hash value 16",
                  "isready")
        self.wait("readyok")

    def _read(self):
        for line in self.p.stdout:
            self.q.put((time.perf_counter(), line.rstrip("\n")))

    def send(self, *lines):
        self.p.stdin.write("".join(l + "\n" for l in lines))
        self.p.stdin.flush()

    def wait(self, prefix, timeout=30):
        end = time.monotonic() + timeout
        while True:
            t, line = self.q.get(timeout=max(0.01, end - time.monotonic()))
            if line.startswith(prefix):
                return t, line

    def close(self):
        self.send("quit")
        self.p.wait(10)


def latencies(cmd, threads, stops, seed):
    rng = random.Random(seed)
    eng = Engine(cmd, threads)
    out = []
    for i in range(stops):
        eng.send("position fen " + BENCH_FENS[i % len(BENCH_FENS)], "go infinite")
        time.sleep(0.1 + 0.2 * rng.random())
        t0 = time.perf_counter()
        eng.send("stop")
        t1, line = eng.wait("bestmove")
        assert line.split()[1] != "0000", line
        out.append((t1 - t0) * 1000)
        eng.send("isready")
        eng.wait("readyok")
    eng.close()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[2, 8])
    ap.add_argument("--stops", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    ours = os.path.join(ROOT, "bin", "black-numba")
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
