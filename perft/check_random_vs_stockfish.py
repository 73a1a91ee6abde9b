#!/usr/bin/env python3
"""Cross-check perft on positions from random games against Stockfish's `go perft`.

    .venv/bin/python perft/check_random_vs_stockfish.py [--positions 300] [--depth 3]

Exits non-zero and prints the position on the first mismatch.
"""
import argparse
import random
import sys

from bench_perft import Uci  # perft/bench_perft.py: Stockfish's `go perft` (puts ROOT on the path)


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
    sf = Uci(args.stockfish)
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
        theirs = sf.perft(fen, args.depth)[0]
        if ours != theirs:
            print(f"MISMATCH {fen}: black_numba {ours}, stockfish {theirs}")
            sf.close()
            return 1
        checked += 1
        nodes += ours
    sf.close()
    print(f"{checked} random positions, perft({args.depth}), {nodes} nodes: all equal to Stockfish")
    return 0


if __name__ == "__main__":
    sys.exit(main())
