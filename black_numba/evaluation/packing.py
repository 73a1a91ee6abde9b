"""Compact position records for batch evaluation (CPU and GPU): 32 bytes a position.

A record is four uint64 words:

    0   occupancy (every piece's square)
    1   piece codes (colour * 6 + type, 4 bits each) of the first 16 occupied squares,
        lowest square first
    2   the codes of occupied squares 17..32
    3   side to move (bit 0)

The 15-bitboard form (120 bytes) made host-to-device copies the limit of the GPU evaluator;
this one carries the same information for evaluation (castling and en passant do not enter
it). GPU-safe: shifts are uint64 and below 64, no allocation.
"""
import numpy as np
from numba import njit

from black_numba.board.bitboard import U0, U1, lsb
from black_numba.evaluation.nnue import feature, view_of
from black_numba.board.position import KING

WORDS = 4
_U4 = np.uint64(4)
_NIBBLE = np.uint64(15)


@njit(cache=True)
def compact(boards, stm, out):
    """out[i] = the record of boards[i] (uint64 [15]) and side stm[i]; out is uint64 [n, 4]."""
    for i in range(boards.shape[0]):
        occ = boards[i, 14]
        out[i, 0] = occ
        out[i, 1] = U0
        out[i, 2] = U0
        out[i, 3] = np.uint64(stm[i])
        b = occ
        k = 0
        while b != U0 and k < 32:
            sq = lsb(b)
            b &= b - U1
            bit = U1 << np.uint64(sq)
            code = 0
            for piece in range(12):
                if boards[i, piece] & bit:
                    code = piece
            out[i, 1 + k // 16] |= np.uint64(code) << np.uint64(4 * (k % 16))
            k += 1


@njit(cache=True, inline='always')
def _code(rec, k):
    """The piece code (colour * 6 + type) of record rec's k-th occupied square, lowest first."""
    return np.int64((rec[1 + k // 16] >> np.uint64(4 * (k % 16))) & _NIBBLE)


@njit(cache=True)
def expand(rec, bb):
    """bb[0:15] = the bitboards of record rec (uint64 [4]); returns the side to move."""
    for j in range(15):
        bb[j] = U0
    b = rec[0]
    k = 0
    while b != U0 and k < 32:
        sq = lsb(b)
        b &= b - U1
        bit = U1 << np.uint64(sq)
        piece = _code(rec, k)
        bb[piece] |= bit
        bb[12 + piece // 6] |= bit
        bb[14] |= bit
        k += 1
    return np.int64(rec[3] & U1)


@njit(cache=True)
def features(rec, feats, NN):
    """feats[p, k] = the network NN's inputs of record rec from perspective p (White 0, Black
    1): mirrored by each side's king file under input mirroring, in the set of its king
    bucket under king buckets (nnue.py); returns (number of pieces, side to move)."""
    f0 = 0
    f1 = 0
    base0 = 0
    base1 = 0
    b = rec[0]
    k = 0
    while b != U0 and k < 32:
        sq = lsb(b)
        b &= b - U1
        piece = _code(rec, k)
        if piece == KING:
            f0, base0 = view_of(NN, 0, np.int64(sq))
        elif piece == 6 + KING:
            f1, base1 = view_of(NN, 1, np.int64(sq))
        k += 1
    b = rec[0]
    k = 0
    while b != U0 and k < 32:
        sq = lsb(b)
        b &= b - U1
        piece = _code(rec, k)
        feats[0, k] = base0 + feature(0, piece, sq, f0)
        feats[1, k] = base1 + feature(1, piece, sq, f1)
        k += 1
    return k, np.int64(rec[3] & U1)
