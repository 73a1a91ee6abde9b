#!/usr/bin/env python3
"""Perft speed of black_numba beside Stockfish and python-chess, measured in the same run.

    .venv/bin/python perft/bench_perft.py [--stockfish /usr/games/stockfish] [--repeat 3]

Runs perft(6) from the start position and perft(5) of Kiwipete with black_numba (in process,
after a warm-up, best of --repeat) and Stockfish (`go perft N`, best of --repeat), and
python-chess at two plies less (its nodes/s is what is compared). Prints time ratios.
"""
import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CASES = [
    ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5),
]


def stockfish_perft(path, fen, depth):
    p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    p.stdin.write(f"uci\nisready\nposition fen {fen}\n")
    p.stdin.flush()
    while p.stdout.readline().strip() != "readyok":
        pass
    t0 = time.perf_counter()
    p.stdin.write(f"go perft {depth}\n")
    p.stdin.flush()
    while True:
        line = p.stdout.readline()
        if line.startswith("Nodes searched"):
            dt = time.perf_counter() - t0
            nodes = int(line.split(":")[1])
            break
    p.stdin.write("quit\n")
    p.stdin.flush()
    p.wait()
    return nodes, dt


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
    args = ap.parse_args()
    import chess
    from black_numba.perft import perft
    from black_numba.position import from_fen
    perft(from_fen(), 3)                       # load the compiled code
    print(f"{'position':10} {'depth':>5} {'nodes':>12} {'black_numba s':>14} "
          f"{'stockfish s':>12} {'ratio':>6} {'python-chess nps':>17} {'bn/pc speed':>11}")
    for name, fen, depth in CASES:
        best_bn = best_sf = float("inf")
        for _ in range(args.repeat):
            pos = from_fen(fen)
            t0 = time.perf_counter()
            nodes = perft(pos, depth)
            best_bn = min(best_bn, time.perf_counter() - t0)
            sf_nodes, dt = stockfish_perft(args.stockfish, fen, depth)
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


if __name__ == "__main__":
    main()
