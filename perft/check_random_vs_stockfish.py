#!/usr/bin/env python3
"""Cross-check perft on positions from random games against Stockfish's `go perft`.

    .venv/bin/python perft/check_random_vs_stockfish.py [--positions 300] [--depth 3]

Exits non-zero and prints the position on the first mismatch.
"""
import argparse
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    args = ap.parse_args()
    import chess
    from black_numba.board.perft import perft
    from black_numba.board.position import from_fen
    rng = random.Random(args.seed)
    sf = subprocess.Popen([args.stockfish], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True)
    checked = nodes = 0
    while checked < args.positions:
        board = chess.Board()
        for _ in range(rng.randrange(5, 150)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if board.is_game_over():
            continue
        fen = board.fen()
        ours = perft(from_fen(fen), args.depth)
        sf.stdin.write(f"position fen {fen}\ngo perft {args.depth}\n")
        sf.stdin.flush()
        while True:
            line = sf.stdout.readline()
            if line.startswith("Nodes searched"):
                theirs = int(line.split(":")[1])
                break
        if ours != theirs:
            print(f"MISMATCH {fen}: black_numba {ours}, stockfish {theirs}")
            return 1
        checked += 1
        nodes += ours
    sf.stdin.write("quit\n")
    sf.stdin.flush()
    print(f"{checked} random positions, perft({args.depth}), {nodes} nodes: all equal to Stockfish")
    return 0


if __name__ == "__main__":
    sys.exit(main())
