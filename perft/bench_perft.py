#!/usr/bin/env python3
"""Perft speed of black_numba beside another program, measured in the same run, every count
checked. Three comparisons:

    .venv/bin/python perft/bench_perft.py [--repeat 3] [--deep] [--depth D]
    .venv/bin/python perft/bench_perft.py --epd perft/perft_fischer960.epd --depth 5 [--every K]
    .venv/bin/python perft/bench_perft.py --other PATH [--rounds 3] [--cases start,Kiwipete]

Stockfish (default): single thread, perft(6) from the start position and perft(5) of Kiwipete
(--depth D: both at D), both engines timed the same way, from `go perft N` to the `Nodes
searched` line in a warm engine process (best of --repeat), and python-chess at two plies less
(its nodes/s is compared). With --deep: perft(7) from the start position with 1 and 2 threads
and with 2 threads and a 256 MB hash (black_numba in process, as `black-numba perft 7
--threads T --hash MB` runs it) beside Stockfish's `go perft 7`. Prints time ratios.

A suite (--epd FILE --depth D): every (--every K-th) position of an EPD perft suite to depth D,
checked against the suite's count, by black_numba in process after a warm-up and by Stockfish
in one process with `UCI_Chess960 true` (so Chess960 suites work); nodes, time, nodes/s and
the time ratio. Exit status 1 on a wrong count.

Another perft program (--other PATH): the Chess Programming Wiki's six positions
(perft/cpw_perft_positions.epd), one thread and every core, interleaved over --rounds. The
program is run as `PATH FEN DEPTH` and must print its count as `Result: N` and its own time as
`Time taken: S seconds` (ellxor/perft does; build it in a scratch folder with `g++ -std=c++20
-O3 -flto -fno-exceptions -fno-rtti -march=native src/unity_build.cc -lpthread -o perft`, never
commit its code). It starts a thread per online core, so its one-thread runs go through
`taskset -c 0`. black_numba runs as `bin/black-numba perft DEPTH --fen FEN --threads T` and
reports its own time, so neither side's start-up counts; neither uses a hash table. Counts are
checked against the EPD where it holds the depth, else against Stockfish's `go perft`. Prints
each program's best (median) time, the ratio black_numba / other (below 1: black_numba
faster) and black_numba's scaling from one thread to every core at the same depth.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from black_numba.uci_client import UciProcess  # noqa: E402  (this checkout's package)

ENGINE = os.path.join(ROOT, "bin", "black-numba")
CPW_EPD = os.path.join(ROOT, "perft", "cpw_perft_positions.epd")
PERFT_TIMEOUT_S = 3600       # a perft(7) of the slowest engine here takes minutes
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

# against Stockfish: (name, FEN, depth)
CASES = [
    ("startpos", START_FEN, 6),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5),
]
# against another program: (name, EPD id, depth with one thread, depth with every core),
# each 0.1-5 s on two cores
OTHER_CASES = [
    ("start", "CPW-1-startpos", 6, 7),
    ("Kiwipete", "CPW-2-kiwipete", 5, 6),
    ("position 3", "CPW-3", 7, 8),
    ("position 4", "CPW-4", 6, 6),
    ("position 5", "CPW-5", 5, 6),
    ("position 6", "CPW-6", 5, 6),
]


class Uci(UciProcess):
    """A warm UCI engine timed on `go perft N` (the package's UCI client): from `go` to the
    arrival of its `Nodes searched` line."""

    def __init__(self, path, options=()):
        super().__init__([path])
        self.handshake(PERFT_TIMEOUT_S)
        for name, value in options:
            self.set_option(name, value)
        self.ready(PERFT_TIMEOUT_S)
        self.perft(START_FEN, 3)                             # warm

    def perft(self, fen, depth):
        """(count, seconds) of `go perft depth` from fen."""
        self.send(f"position fen {fen}")
        self.ready(PERFT_TIMEOUT_S)
        t0 = time.perf_counter()
        self.send(f"go perft {depth}")
        deadline = time.monotonic() + PERFT_TIMEOUT_S
        while True:
            line = self.readline(deadline)
            if line.startswith("Nodes searched"):
                return int(line.split(":")[1]), self.arrival - t0


def chess_perft(board, depth):
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    n = 0
    for m in board.legal_moves:
        board.push(m)
        n += chess_perft(board, depth - 1)
        board.pop()
    return n


def read_suite(path):
    """[(FEN, {depth: count}, id or None)] of an EPD perft suite."""
    out = []
    with open(path) as f:
        for line in f:
            fields = line.strip().split(";")
            if not fields[0].strip() or fields[0].startswith("#"):
                continue
            counts, ident = {}, None
            for part in fields[1:]:
                part = part.strip()
                if part.startswith("id "):
                    ident = part[3:]
                elif part[:1] == "D" and len(part.split()) == 2:
                    d, n = part[1:].split()
                    counts[int(d)] = int(n)
            out.append((fields[0].strip(), counts, ident))
    return out


# -- against Stockfish, two positions ---------------------------------------------------------

def against_stockfish(args):
    import chess
    bn = Uci(ENGINE)
    sf = Uci(args.stockfish, [("Threads", 1)])
    print(f"{'position':10} {'depth':>5} {'nodes':>12} {'black_numba s':>14} "
          f"{'stockfish s':>12} {'ratio':>6} {'python-chess nps':>17} {'bn/pc speed':>11}")
    for name, fen, depth in CASES:
        depth = args.depth or depth
        best_bn = best_sf = float("inf")
        for _ in range(args.repeat):
            nodes, dt = bn.perft(fen, depth)
            best_bn = min(best_bn, dt)
            sf_nodes, dt = sf.perft(fen, depth)
            if sf_nodes != nodes:
                sys.exit(f"bench_perft: {name} depth {depth}: black_numba {nodes}, "
                         f"Stockfish {sf_nodes}")
            best_sf = min(best_sf, dt)
        board = chess.Board(fen)
        t0 = time.perf_counter()
        pc_nodes = chess_perft(board, max(1, depth - 2))
        pc_nps = pc_nodes / max(time.perf_counter() - t0, 1e-9)
        bn_nps = nodes / best_bn
        print(f"{name:10} {depth:>5} {nodes:>12} {best_bn:>14.3f} {best_sf:>12.3f} "
              f"{best_bn / best_sf:>6.2f} {pc_nps:>17,.0f} {bn_nps / pc_nps:>10,.0f}x")
    print("ratio = black_numba time / Stockfish time (single thread each, same machine, same run)")
    bn.close()
    if args.deep:
        deep(args, sf)
    sf.close()
    return 0


def deep(args, sf):
    """perft(7) from the start: threads and hash in process, Stockfish beside."""
    from black_numba.board.perft import Perft, perft
    from black_numba.board.position import from_fen
    perft(from_fen(), 4, 2, 1)                   # load the compiled code
    depth = 7
    rows = []
    for label, threads, mb in (("1 thread", 1, 0), ("2 threads", 2, 0),
                               ("2 threads, hash 256 MB", 2, 256)):
        best = float("inf")
        for _ in range(args.repeat):
            run = Perft(from_fen(START_FEN), depth, threads, mb)
            t0 = time.perf_counter()
            nodes = sum(run.run(lambda r: None))  # the task split, as the command runs
            best = min(best, time.perf_counter() - t0)
        rows.append((label, nodes, best))
    sf_best = float("inf")
    for _ in range(args.repeat):
        sf_nodes, dt = sf.perft(START_FEN, depth)
        sf_best = min(sf_best, dt)
    print(f"\nperft(7) start position, best of {args.repeat}; Stockfish go perft 7: "
          f"{sf_best:.3f} s ({sf_nodes})")
    for label, nodes, dt in rows:
        if nodes != sf_nodes:
            sys.exit(f"bench_perft: perft(7) {label}: {nodes}, Stockfish {sf_nodes}")
        print(f"  {label:24} {dt:7.3f} s  x{rows[0][2] / dt:5.2f} vs 1 thread  "
              f"x{sf_best / dt:5.2f} vs Stockfish")


# -- a suite against Stockfish ----------------------------------------------------------------

def suite_ours(suite, depth):
    from black_numba.board.perft import perft
    from black_numba.board.position import from_fen
    perft(from_fen(suite[0][0]), 2)                      # compile / load outside the clock
    bad = total = 0
    t0 = time.perf_counter()
    for fen, want in suite:
        n = perft(from_fen(fen), depth)
        total += n
        if n != want:
            bad += 1
            print(f"WRONG {fen}: {n} != {want}", flush=True)
    return total, time.perf_counter() - t0, bad


def suite_stockfish(path, suite, depth):
    sf = Uci(path, [("UCI_Chess960", "true")])
    bad = total = 0
    t0 = time.perf_counter()
    for fen, want in suite:
        n = sf.perft(fen, depth)[0]
        total += n
        bad += n != want
    dt = time.perf_counter() - t0
    sf.close()
    return total, dt, bad


def against_stockfish_on_suite(args):
    if args.depth is None:
        sys.exit("bench_perft: --epd needs --depth")
    suite = [(fen, counts[args.depth]) for i, (fen, counts, _) in enumerate(read_suite(args.epd))
             if i % args.every == 0 and args.depth in counts]
    if not suite:
        sys.exit(f"bench_perft: no position of {args.epd} has a count at depth {args.depth}")
    print(f"{len(suite)} positions, depth {args.depth}", flush=True)
    n1, t1, bad1 = suite_ours(suite, args.depth)
    print(f"black_numba: {n1:,} nodes in {t1:.1f} s, {n1 / max(t1, 1e-9) / 1e6:.1f} M nodes/s, "
          f"{len(suite) - bad1}/{len(suite)} exact", flush=True)
    if os.path.exists(args.stockfish):
        n2, t2, bad2 = suite_stockfish(args.stockfish, suite, args.depth)
        print(f"Stockfish:   {n2:,} nodes in {t2:.1f} s, {n2 / max(t2, 1e-9) / 1e6:.1f} M "
              f"nodes/s, {len(suite) - bad2}/{len(suite)} exact")
        print(f"time ratio black_numba / Stockfish: {t1 / max(t2, 1e-9):.2f}")
    return 1 if bad1 else 0


# -- the wiki's six positions against another program ------------------------------------------

def run_ours(fen, depth, threads):
    r = subprocess.run([ENGINE, "perft", str(depth), "--fen", fen, "--threads", str(threads),
                        "--quiet"], capture_output=True, text=True, timeout=PERFT_TIMEOUT_S)
    nodes = re.search(r"Nodes searched: (\d+)", r.stdout)
    secs = re.search(r"time ([\d.]+) s", r.stdout + r.stderr)
    if r.returncode or not nodes or not secs:
        sys.exit(f"bench_perft: black_numba failed: {r.stdout}{r.stderr}")
    return int(nodes.group(1)), float(secs.group(1))


def run_other(path, fen, depth, threads, cores):
    cmd = [path, fen, str(depth)]
    if threads < cores:
        cmd = ["taskset", "-c", ",".join(map(str, range(threads)))] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=PERFT_TIMEOUT_S)
    nodes = re.search(r"Result:\s+(\d+)", r.stdout)
    secs = re.search(r"Time taken:\s+([\d.]+)", r.stdout)
    if r.returncode or not nodes or not secs:
        sys.exit(f"bench_perft: {path} failed: {r.stdout}{r.stderr}")
    return int(nodes.group(1)), float(secs.group(1))


def against_other(args):
    if not shutil.which("taskset"):
        sys.exit("bench_perft: needs taskset (util-linux) for the other's one-thread runs")
    cores = os.cpu_count() or 1
    epd = {ident: (fen, counts) for fen, counts, ident in read_suite(CPW_EPD)}
    cases = [(name, ident, args.depth or d1, args.depth or dn)
             for name, ident, d1, dn in OTHER_CASES
             if not args.cases or name in args.cases.split(",")]
    if not cases:
        sys.exit(f"bench_perft: --cases names none of {', '.join(c[0] for c in OTHER_CASES)}")
    expected = {}
    sf = None
    for name, ident, d1, dn in cases:
        fen, counts = epd[ident]
        for d in {d1, dn}:
            if d not in counts:
                sf = sf or Uci(args.stockfish)
                counts[d] = sf.perft(fen, d)[0]
            expected[(name, d)] = counts[d]
    if sf:
        sf.close()
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
                        sys.exit(f"bench_perft: {who} counted {n:,} for {name} depth {depth},"
                                 f" not {expected[(name, depth)]:,}")
                    times.setdefault((name, threads, who), []).append(s)
            if cores > 1 and dn != d1:
                # black_numba's scaling at the every-core depth: one thread there too (the
                # leaf-to-interior mix changes with the depth, so depths apart mislead)
                n, s = run_ours(fen, dn, 1)
                if n != expected[(name, dn)]:
                    sys.exit(f"bench_perft: ours counted {n:,} for {name} depth {dn}")
                times.setdefault((name, 1, "ours deep"), []).append(s)
        print(f"round {rnd + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    print(f"black_numba against {os.path.basename(args.other)}: each program's own time, best "
          f"(median) of {args.rounds} rounds, {cores} cores; ratio = black_numba / other")
    print(f"{'position':<11} {'threads':>7} {'depth':>5} {'nodes':>14} {'black_numba s':>16} "
          f"{'other s':>16} {'ratio':>6} {'(median)':>8}")
    for kind in ("one", "all"):
        for name, ident, d1, dn in cases:
            threads, depth = (1, d1) if kind == "one" else (cores, dn)
            ours, other = times[(name, threads, "ours")], times[(name, threads, "other")]
            print(f"{name:<11} {threads:>7} {depth:>5} {expected[(name, depth)]:>14,} "
                  f"{min(ours):>8.3f} ({statistics.median(ours):.3f}) "
                  f"{min(other):>8.3f} ({statistics.median(other):.3f}) "
                  f"{min(ours) / max(min(other), 1e-9):>6.2f} "
                  f"{statistics.median(ours) / max(statistics.median(other), 1e-9):>8.2f}")
    if cores > 1:
        for name, ident, d1, dn in cases:
            one = min(times.get((name, 1, "ours deep")) or times[(name, 1, "ours")])
            print(f"black_numba {name}: {cores} threads give "
                  f"{one / max(min(times[(name, cores, 'ours')]), 1e-9):.2f}x the speed of one "
                  f"thread at depth {dn}")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stockfish", default=shutil.which("stockfish") or "/usr/games/stockfish")
    ap.add_argument("--depth", type=int, help="the depth (--epd: required; else each "
                                              "position's own)")
    ap.add_argument("--repeat", type=int, default=3, help="against Stockfish: best of this")
    ap.add_argument("--deep", action="store_true", help="also perft(7): threads and hash")
    ap.add_argument("--epd", help="a perft suite, every position timed and checked")
    ap.add_argument("--every", type=int, default=1, help="--epd: every K-th position")
    ap.add_argument("--other", help="another perft program (PATH FEN DEPTH)")
    ap.add_argument("--rounds", type=int, default=3, help="--other: interleaved rounds")
    ap.add_argument("--cases", help="--other: comma-separated positions (default all six)")
    args = ap.parse_args(argv)
    if args.epd and args.other:
        ap.error("--epd or --other, not both")
    if args.epd:
        return against_stockfish_on_suite(args)
    if args.other:
        return against_other(args)
    return against_stockfish(args)


if __name__ == "__main__":
    sys.exit(main())
