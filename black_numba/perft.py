"""Perft (move-path enumeration) with bulk counting at the last ply, and divide."""
import numpy as np
from numba import njit

from black_numba.bitboard import TABLES
from black_numba.movegen import ALL_MOVES, MAX_MOVES, generate, legal_moves, new_move_buffer
from black_numba.position import make_move, move_to_uci, unmake_move


@njit(cache=True)
def perft_nodes(T, pos, depth, moves, ply):
    """Leaf count of the move tree of pos to depth >= 1 (bulk counting at depth 1)."""
    start = ply * MAX_MOVES
    end = generate(T, pos, moves, start, ALL_MOVES)
    if depth <= 1:
        return np.int64(end - start)
    total = np.int64(0)
    for i in range(start, end):
        make_move(T, pos, moves[i])
        total += perft_nodes(T, pos, depth - 1, moves, ply + 1)
        unmake_move(T, pos)
    return total


def perft(pos, depth):
    """Number of leaf nodes at depth (perft(0) is 1)."""
    if depth <= 0:
        return 1
    return int(perft_nodes(TABLES, pos, np.int64(depth), new_move_buffer(), np.int64(0)))


def divide(pos, depth, chess960=False):
    """[(uci_move, count)] for each root move, counts of perft(depth - 1) below it; castling
    written king-takes-rook with chess960."""
    out = []
    buf = new_move_buffer()
    for m in legal_moves(pos):
        make_move(TABLES, pos, np.int64(m))
        if depth <= 1:
            c = 1
        else:
            c = int(perft_nodes(TABLES, pos, np.int64(depth - 1), buf, np.int64(0)))
        unmake_move(TABLES, pos)
        out.append((move_to_uci(m, pos if chess960 else None), c))
    return out
