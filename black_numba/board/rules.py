"""Board rules above move generation's needs: slider blockers (pins and discovered checks),
whether a move gives check, static exchange evaluation and insufficient material.

They read a position and change nothing; move generation, the move picker and the search
all share them, so each rule is written once.
"""
import numpy as np
from numba import njit

from black_numba.board.bitboard import (
    BETWEEN, KING_ATT, KNIGHT_ATT, LINE, PAWN_ATT, U0, U1, bishop_attacks, lsb, popcount,
    rook_attacks,
)
from black_numba.board.move import EP_CAPTURE, is_castling, is_promotion, move_flag, move_from, move_to
from black_numba.board.position import (
    B_BISHOP, B_KING, B_KNIGHT, B_PAWN, B_QUEEN, B_ROOK, BISHOP, BOARD, EMPTY, KING, KNIGHT,
    OCC, OCC_W, PAWN, QUEEN, ROOK, SIDE, W_BISHOP, W_KING, W_KNIGHT, W_PAWN, W_QUEEN, W_ROOK,
)

# Piece values of the exchange evaluation, by piece type (the last: an empty square).
SEE_VALUE = (100, 320, 330, 500, 950, 20000, 0)


@njit(cache=True, _nrt=False)
def slider_blockers(T, pos, ksq, sniper_colour, candidates):
    """Pieces of `candidates` that stand alone between the king on ksq and a slider of
    sniper_colour aiming at it: pinned pieces when the candidates are the king's own,
    discovered-check candidates when they are the sniper's side's."""
    b = sniper_colour * 6
    occ = pos[OCC]
    through = occ ^ candidates            # rays x-ray the candidates, stop at anything else
    snipers = ((rook_attacks(T, ksq, through) & (pos[b + ROOK] | pos[b + QUEEN]))
               | (bishop_attacks(T, ksq, through) & (pos[b + BISHOP] | pos[b + QUEEN])))
    blockers = U0
    while snipers:
        s = lsb(snipers)
        snipers &= snipers - U1
        between = T[BETWEEN + ksq * 64 + s] & occ
        if between and not (between & (between - U1)) and (between & candidates):
            blockers |= between
    return blockers


@njit(cache=True, _nrt=False)
def discoverers(T, pos, us):
    """Our pieces that alone stand between one of our sliders and the enemy king."""
    eksq = lsb(pos[(us ^ 1) * 6 + KING])
    return slider_blockers(T, pos, eksq, us, pos[OCC_W + us])


@njit(cache=True, _nrt=False)
def gives_check(T, pos, m, us, disc):
    """Does the quiet move m check the enemy king (directly or by discovery)? Decided before
    the move is made, so pruning can spare checking moves without playing them; disc is
    ``discoverers(T, pos, us)``."""
    frm = move_from(m)
    to = move_to(m)
    eksq = lsb(pos[(us ^ 1) * 6 + KING])
    if (disc >> np.uint64(frm)) & U1 and not ((T[LINE + eksq * 64 + frm] >> np.uint64(to)) & U1):
        return True
    pt = np.int64(pos[BOARD + frm]) % 6
    occ = pos[OCC] ^ (U1 << np.uint64(frm))
    tb = U1 << np.uint64(to)
    if pt == PAWN:
        return (T[PAWN_ATT + (us ^ 1) * 64 + eksq] & tb) != U0
    if pt == KNIGHT:
        return (T[KNIGHT_ATT + eksq] & tb) != U0
    if pt == BISHOP:
        return (bishop_attacks(T, eksq, occ) & tb) != U0
    if pt == ROOK:
        return (rook_attacks(T, eksq, occ) & tb) != U0
    if pt == QUEEN:
        return ((bishop_attacks(T, eksq, occ) | rook_attacks(T, eksq, occ)) & tb) != U0
    return False


@njit(cache=True, _nrt=False)
def see_ge(T, pos, move, threshold):
    """Static exchange evaluation (swap-off with the least valuable attacker, x-rays
    included): does move win at least threshold centipawns?"""
    frm = move_from(move)
    to = move_to(move)
    if move_flag(move) == EP_CAPTURE or is_promotion(move) or is_castling(move):
        return 0 >= threshold
    victim = np.int64(pos[BOARD + to])
    swap = (SEE_VALUE[victim % 6] if victim != EMPTY else 0) - threshold
    if swap < 0:
        return False
    swap = SEE_VALUE[np.int64(pos[BOARD + frm]) % 6] - swap
    if swap <= 0:
        return True
    occ = pos[OCC] ^ (U1 << np.uint64(frm)) ^ (U1 << np.uint64(to))
    stm = np.int64(pos[SIDE])
    bq = pos[W_BISHOP] | pos[W_QUEEN] | pos[B_BISHOP] | pos[B_QUEEN]
    rq = pos[W_ROOK] | pos[W_QUEEN] | pos[B_ROOK] | pos[B_QUEEN]
    attackers = ((T[PAWN_ATT + 64 + to] & pos[W_PAWN]) | (T[PAWN_ATT + to] & pos[B_PAWN])
                 | (T[KNIGHT_ATT + to] & (pos[W_KNIGHT] | pos[B_KNIGHT]))
                 | (T[KING_ATT + to] & (pos[W_KING] | pos[B_KING]))
                 | (bishop_attacks(T, to, occ) & bq) | (rook_attacks(T, to, occ) & rq))
    res = 1
    while True:
        stm ^= 1
        attackers &= occ
        mine = attackers & pos[OCC_W + stm]
        if mine == U0:
            break
        res ^= 1
        b = stm * 6
        pt = PAWN
        while pt < KING + 1 and not (mine & pos[b + pt]):
            pt += 1
        if pt == KING:
            # the king may capture only if the square is no longer defended
            if attackers & pos[OCC_W + (stm ^ 1)]:
                return (res ^ 1) == 1
            return res == 1
        swap = SEE_VALUE[pt] - swap
        if swap < res:
            break
        bit = mine & pos[b + pt]
        occ ^= bit & (~bit + U1)
        # x-rays: a slider behind the piece that just captured joins in
        if pt == PAWN or pt == BISHOP or pt == QUEEN:
            attackers |= bishop_attacks(T, to, occ) & bq
        if pt == ROOK or pt == QUEEN:
            attackers |= rook_attacks(T, to, occ) & rq
    return res == 1


@njit(cache=True, _nrt=False)
def insufficient_material(pos):
    """No mating material: bare kings, or one minor piece in all."""
    if (pos[W_PAWN] | pos[B_PAWN] | pos[W_ROOK] | pos[B_ROOK] | pos[W_QUEEN]
            | pos[B_QUEEN]):
        return False
    return popcount(pos[W_KNIGHT] | pos[W_BISHOP] | pos[B_KNIGHT] | pos[B_BISHOP]) <= 1
