#!/usr/bin/env python3
"""Perft speed of black_numba beside Stockfish and python-chess, measured in the same run.

    .venv/bin/python perft/bench_perft.py [--stockfish /usr/games/stockfish] [--repeat 3]
        [--deep]

Single thread: perft(6) from the start position and perft(5) of Kiwipete, both engines timed
the same way, from `go perft N` to the `Nodes searched` line in a warm engine process (best of
--repeat), and python-chess at two plies less (its nodes/s is compared). With --deep: perft(7)
from the start position with 1 and 2 threads and with 2 threads and a 256 MB hash
(black_numba in process, as `black-numba perft 7 --threads T --hash MB` runs it) beside
Stockfish's `go perft 7`. Prints time ratios.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from black_numba.uci_client import UciProcess  # noqa: E402  (this checkout's package)

PERFT_TIMEOUT_S = 3600       # a perft(7) of the slowest engine here takes minutes

CASES = [
    ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5),
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
        self.perft("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 3)   # warm

    def perft(self, fen, depth):
        self.send(f"position fen {fen}")
        self.ready(PERFT_TIMEOUT_S)
        t0 = time.perf_counter()
        self.send(f"go perft {depth}")
        deadline = time.monotonic() + PERFT_TIMEOUT_S
        while True:
            line = self.readline(deadline)
            if line.startswith("Nodes searched"):
                return int(line.split(":")[1]), self.arrival - t0

    def quit(self):
        self.close()


def chess_perft(board, depth):
    if depth == 1:
        return board.legal_moves.count()
    n = 0
    for m in board.legal_moves:
        board.push(m)
        n += chess_perft(board, depth - 1)
        board.pop()
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--deep", action="store_true")
    args = ap.parse_args()
    import chess
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bn = Uci(os.path.join(root, "bin", "black-numba"))
    sf = Uci(args.stockfish, [("Threads", 1)])
    print(f"{'position':10} {'depth':>5} {'nodes':>12} {'black_numba s':>14} "
          f"{'stockfish s':>12} {'ratio':>6} {'python-chess nps':>17} {'bn/pc speed':>11}")
    for name, fen, depth in CASES:
        best_bn = best_sf = float("inf")
        for _ in range(args.repeat):
            nodes, dt = bn.perft(fen, depth)
            best_bn = min(best_bn, dt)
            sf_nodes, dt = sf.perft(fen, depth)
            assert sf_nodes == nodes, (sf_nodes, nodes)
            best_sf = min(best_sf, dt)
        board = chess.Board(fen)
        t0 = time.perf_counter()
        pc_nodes = chess_perft(board, depth - 2)
        pc_nps = pc_nodes / (time.perf_counter() - t0)
        bn_nps = nodes / best_bn
        print(f"{name:10} {depth:>5} {nodes:>12} {best_bn:>14.3f} {best_sf:>12.3f} "
              f"{best_bn / best_sf:>6.2f} {pc_nps:>17,.0f} {bn_nps / pc_nps:>10,.0f}x")
    print("ratio = black_numba time / Stockfish time (single thread each, same machine, same run)")
    bn.quit()
    if args.deep:
        from black_numba.board.perft import Perft, perft
        from black_numba.board.position import from_fen
        perft(from_fen(), 4, 2, 1)                   # load the compiled code
        fen, depth = CASES[0][1], 7
        rows = []
        for label, threads, mb in (("1 thread", 1, 0), ("2 threads", 2, 0),
                                   ("2 threads, hash 256 MB", 2, 256)):
            best = float("inf")
            for _ in range(args.repeat):
                run = Perft(from_fen(fen), depth, threads, mb)
                t0 = time.perf_counter()
                nodes = sum(run.run(lambda r: None))  # the task split, as the command runs
                best = min(best, time.perf_counter() - t0)
            rows.append((label, nodes, best))
        sf_best = float("inf")
        for _ in range(args.repeat):
            sf_nodes, dt = sf.perft(fen, depth)
            sf_best = min(sf_best, dt)
        print(f"\nperft(7) start position, best of {args.repeat}; Stockfish go perft 7: "
              f"{sf_best:.3f} s ({sf_nodes})")
        for label, nodes, dt in rows:
            assert nodes == sf_nodes, (label, nodes, sf_nodes)
            print(f"  {label:24} {dt:7.3f} s  x{rows[0][2] / dt:5.2f} vs 1 thread  "
                  f"x{sf_best / dt:5.2f} vs Stockfish")
    sf.quit()


if __name__ == "__main__":
    main()
