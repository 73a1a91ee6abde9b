import os
import random

import chess
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE = os.path.join(ROOT, "bin", "black-numba")
PERFT_DIR = os.path.join(ROOT, "perft")


def random_positions(n_games, seed, max_plies=120):
    """Boards from seeded random games (every ply), for cross-checks against python-chess."""
    rng = random.Random(seed)
    out = []
    for _ in range(n_games):
        board = chess.Board()
        for _ in range(rng.randrange(10, max_plies)):
            moves = list(board.legal_moves)
            if not moves:
                break
            # favour captures and promotions a little so endgames and odd cases appear
            caps = [m for m in moves if board.is_capture(m) or m.promotion]
            board.push(rng.choice(caps if caps and rng.random() < 0.4 else moves))
            out.append(board.copy(stack=False))
    return out


@pytest.fixture(scope="session")
def positions():
    return random_positions(120, seed=2026)
