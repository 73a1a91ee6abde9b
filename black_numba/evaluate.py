"""Tapered static evaluation: one source for the CPU search and the CUDA batch kernel.

``evaluate(T, W, bb, stm)`` reads the 15 bitboards ``bb[0:15]`` (a position array or one row of
a batch), the side to move and the weight vector ``W`` (int32), and returns centipawns from the
side to move's point of view. GPU-safe by construction: plain loops over arrays, no recursion,
no allocation, SWAR popcount, shift counts always uint64 and below 64, no uint64/int64 mixing.
"""
import numpy as np
from numba import njit

from black_numba.bitboard import (
    ADJ_FILES, DIST, FILE_BB, FWD_RANKS, KING, KNIGHT, NOT_A, NOT_H, PAWN_ATT, U0, U1,
    bishop_attacks, lsb, popcount, rook_attacks,
)

_U7 = np.uint64(7)
_U9 = np.uint64(9)

# PeSTO material and piece-square tables (Ronald Friederich's RofChade values), written as a
# diagram from rank 8 down; white reads square ^ 56, black reads the square itself.
MAT_MG = (82, 337, 365, 477, 1025, 0)
MAT_EG = (94, 281, 297, 512, 936, 0)
PST_MG = (
    (0, 0, 0, 0, 0, 0, 0, 0, 98, 134, 61, 95, 68, 126, 34, -11, -6, 7, 26, 31, 65, 56, 25, -20,
     -14, 13, 6, 21, 23, 12, 17, -23, -27, -2, -5, 12, 17, 6, 10, -25, -26, -4, -4, -10, 3, 3, 33,
     -12, -35, -1, -20, -23, -15, 24, 38, -22, 0, 0, 0, 0, 0, 0, 0, 0),
    (-167, -89, -34, -49, 61, -97, -15, -107, -73, -41, 72, 36, 23, 62, 7, -17, -47, 60, 37, 65,
     84, 129, 73, 44, -9, 17, 19, 53, 37, 69, 18, 22, -13, 4, 16, 13, 28, 19, 21, -8, -23, -9, 12,
     10, 19, 17, 25, -16, -29, -53, -12, -3, -1, 18, -14, -19, -105, -21, -58, -33, -17, -28, -19,
     -23),
    (-29, 4, -82, -37, -25, -42, 7, -8, -26, 16, -18, -13, 30, 59, 18, -47, -16, 37, 43, 40, 35,
     50, 37, -2, -4, 5, 19, 50, 37, 37, 7, -2, -6, 13, 13, 26, 34, 12, 10, 4, 0, 15, 15, 15, 14,
     27, 18, 10, 4, 15, 16, 0, 7, 21, 33, 1, -33, -3, -14, -21, -13, -12, -39, -21),
    (32, 42, 32, 51, 63, 9, 31, 43, 27, 32, 58, 62, 80, 67, 26, 44, -5, 19, 26, 36, 17, 45, 61, 16,
     -24, -11, 7, 26, 24, 35, -8, -20, -36, -26, -12, -1, 9, -7, 6, -23, -45, -25, -16, -17, 3, 0,
     -5, -33, -44, -16, -20, -9, -1, 11, -6, -71, -19, -13, 1, 17, 16, 7, -37, -26),
    (-28, 0, 29, 12, 59, 44, 43, 45, -24, -39, -5, 1, -16, 57, 28, 54, -13, -17, 7, 8, 29, 56, 47,
     57, -27, -27, -16, -16, -1, 17, -2, 1, -9, -26, -9, -10, -2, -4, 3, -3, -14, 2, -11, -2, -5,
     2, 14, 5, -35, -8, 11, 2, 8, 15, -3, 1, -1, -18, -9, 10, -15, -25, -31, -50),
    (-65, 23, 16, -15, -56, -34, 2, 13, 29, -1, -20, -7, -8, -4, -38, -29, -9, 24, 2, -16, -20, 6,
     22, -22, -17, -20, -12, -27, -30, -25, -14, -36, -49, -1, -27, -39, -46, -44, -33, -51, -14,
     -14, -22, -46, -44, -30, -15, -27, 1, 7, -8, -64, -43, -16, 9, 8, -15, 36, 12, -54, 8, -28, 24,
     14),
)
PST_EG = (
    (0, 0, 0, 0, 0, 0, 0, 0, 178, 173, 158, 134, 147, 132, 165, 187, 94, 100, 85, 67, 56, 53, 82,
     84, 32, 24, 13, 5, -2, 4, 17, 17, 13, 9, -3, -7, -7, -8, 3, -1, 4, 7, -6, 1, 0, -5, -1, -8, 13,
     8, 8, 10, 13, 0, 2, -7, 0, 0, 0, 0, 0, 0, 0, 0),
    (-58, -38, -13, -28, -31, -27, -63, -99, -25, -8, -25, -2, -9, -25, -24, -52, -24, -20, 10, 9,
     -1, -9, -19, -41, -17, 3, 22, 22, 22, 11, 8, -18, -18, -6, 16, 25, 16, 17, 4, -18, -23, -3,
     -1, 15, 10, -3, -20, -22, -42, -20, -10, -5, -2, -20, -23, -44, -29, -51, -23, -15, -22, -18,
     -50, -64),
    (-14, -21, -11, -8, -7, -9, -17, -24, -8, -4, 7, -12, -3, -13, -4, -14, 2, -8, 0, -1, -2, 6, 0,
     4, -3, 9, 12, 9, 14, 10, 3, 2, -6, 3, 13, 19, 7, 10, -3, -9, -12, -3, 8, 10, 13, 3, -7, -15,
     -14, -18, -7, -1, 4, -9, -15, -27, -23, -9, -23, -5, -9, -16, -5, -17),
    (13, 10, 18, 15, 12, 12, 8, 5, 11, 13, 13, 11, -3, 3, 8, 3, 7, 7, 7, 5, 4, -3, -5, -3, 4, 3,
     13, 1, 2, 1, -1, 2, 3, 5, 8, 4, -5, -6, -8, -11, -4, 0, -5, -1, -7, -12, -8, -16, -6, -6, 0,
     2, -9, -9, -11, -3, -9, 2, 3, -1, -5, -13, 4, -20),
    (-9, 22, 22, 27, 27, 19, 10, 20, -17, 20, 32, 41, 58, 25, 30, 0, -20, 6, 9, 49, 47, 35, 19, 9,
     3, 22, 24, 45, 57, 40, 57, 36, -18, 28, 19, 47, 31, 34, 39, 23, -16, -27, 15, 6, 9, 17, 10,
     5, -22, -23, -30, -16, -16, -23, -36, -32, -33, -28, -22, -43, -5, -32, -20, -41),
    (-74, -35, -18, -18, -11, 15, 4, -17, -12, 17, 14, 17, 17, 38, 23, 11, 10, 17, 23, 15, 20, 45,
     44, 13, -8, 22, 24, 27, 26, 33, 26, 3, -18, -4, 21, 24, 27, 23, 9, -11, -19, -3, 11, 21, 23,
     16, 7, -9, -27, -11, 4, 13, 14, 4, -5, -17, -53, -34, -21, -11, -28, -14, -24, -43),
)

# Layout of the weight vector W (int32). Scalar terms are (middlegame, endgame) pairs.
W_MAT = 0                 # 2 x 6: mg then eg material
W_PST = 12                # 2 x 6 x 64: mg then eg tables (diagram order)
W_MOB = 780               # 2 x 6: per reachable square, mg then eg
W_MOB_BASE = 792          # 6: squares counted as neutral
W_PASSED = 798            # 2 x 8 by relative rank, mg then eg
W_TERMS = 814             # pairs below
DOUBLED, ISOLATED, BACKWARD, CONNECTED, PASSED_FREE, PASSED_OWN_KING, PASSED_THEIR_KING, \
    BISHOP_PAIR, ROOK_OPEN, ROOK_SEMI, QUEEN_OPEN, ROOK_SEVENTH, SHIELD, THREAT_PAWN, \
    THREAT_MINOR, THREAT_ROOK, TEMPO = range(17)
W_KING_ATT = W_TERMS + 2 * 17     # 6: attack units per attacking piece type
W_SAFETY = W_KING_ATT + 6         # 64: king danger (mg) by attack units
W_SIZE = W_SAFETY + 64
PHASE_INC = (0, 1, 1, 2, 4, 0)
MATE_BOUND = 30000

_TERMS = {
    DOUBLED: (-10, -22), ISOLATED: (-12, -16), BACKWARD: (-8, -10), CONNECTED: (8, 6),
    PASSED_FREE: (0, 6), PASSED_OWN_KING: (0, -3), PASSED_THEIR_KING: (0, 6),
    BISHOP_PAIR: (28, 48), ROOK_OPEN: (26, 12), ROOK_SEMI: (12, 6), QUEEN_OPEN: (4, 4),
    ROOK_SEVENTH: (10, 24), SHIELD: (12, 0), THREAT_PAWN: (40, 30), THREAT_MINOR: (25, 20),
    THREAT_ROOK: (20, 15), TEMPO: (12, 6),
}


def default_weights():
    """The engine's weight vector W (int32)."""
    W = np.zeros(W_SIZE, dtype=np.int32)
    W[W_MAT:W_MAT + 6] = MAT_MG
    W[W_MAT + 6:W_MAT + 12] = MAT_EG
    for t in range(6):
        W[W_PST + t * 64:W_PST + t * 64 + 64] = PST_MG[t]
        W[W_PST + 384 + t * 64:W_PST + 384 + t * 64 + 64] = PST_EG[t]
    W[W_MOB:W_MOB + 6] = (0, 4, 5, 3, 2, 0)
    W[W_MOB + 6:W_MOB + 12] = (0, 4, 5, 5, 4, 0)
    W[W_MOB_BASE:W_MOB_BASE + 6] = (0, 4, 6, 6, 12, 0)
    W[W_PASSED:W_PASSED + 8] = (0, 2, 6, 12, 28, 55, 95, 0)
    W[W_PASSED + 8:W_PASSED + 16] = (0, 10, 16, 32, 58, 100, 160, 0)
    for k, (mg, eg) in _TERMS.items():
        W[W_TERMS + 2 * k] = mg
        W[W_TERMS + 2 * k + 1] = eg
    W[W_KING_ATT:W_KING_ATT + 6] = (0, 2, 2, 3, 5, 0)
    W[W_SAFETY:W_SAFETY + 64] = [min(i * i // 10, 500) for i in range(64)]
    return W


WEIGHTS = default_weights()


@njit(cache=True)
def evaluate(T, W, bb, stm):
    """Static evaluation of bitboards bb[0:15] in centipawns for the side to move stm."""
    occ = bb[14]
    mg = 0
    eg = 0
    phase = 0
    wp = bb[0]
    bp = bb[6]
    # squares attacked by each side's pawns
    w_patt = ((wp & NOT_A) << _U7) | ((wp & NOT_H) << _U9)
    b_patt = ((bp & NOT_A) >> _U9) | ((bp & NOT_H) >> _U7)
    units_w = 0        # attack units of white against the black king
    units_b = 0
    for c in range(2):
        sign = 1 if c == 0 else -1
        o = 6 * (c ^ 1)
        base = 6 * c
        own = bb[12 + c]
        ours_p = bb[base]
        theirs_p = bb[o]
        their_patt = b_patt if c == 0 else w_patt
        our_patt = w_patt if c == 0 else b_patt
        mob_area = ~own & ~their_patt
        eksq = lsb(bb[o + 5])
        oksq = lsb(bb[base + 5])
        zone = T[KING + eksq] | (U1 << np.uint64(eksq))
        units = 0
        attackers = 0
        cmg = 0
        ceg = 0
        # material, piece-square tables, mobility, king attack units
        for t in range(6):
            pcs = bb[base + t]
            while pcs:
                sq = lsb(pcs)
                pcs &= pcs - U1
                idx = sq ^ 56 if c == 0 else sq
                cmg += W[W_MAT + t] + W[W_PST + t * 64 + idx]
                ceg += W[W_MAT + 6 + t] + W[W_PST + 384 + t * 64 + idx]
                phase += PHASE_INC[t]
                if t == 0 or t == 5:
                    continue
                if t == 1:
                    att = T[KNIGHT + sq]
                elif t == 2:
                    att = bishop_attacks(T, sq, occ)
                elif t == 3:
                    att = rook_attacks(T, sq, occ)
                else:
                    att = bishop_attacks(T, sq, occ) | rook_attacks(T, sq, occ)
                n = popcount(att & mob_area) - W[W_MOB_BASE + t]
                cmg += W[W_MOB + t] * n
                ceg += W[W_MOB + 6 + t] * n
                if att & zone:
                    attackers += 1
                    units += W[W_KING_ATT + t] * popcount(att & zone)
                # threats: lesser pieces attacking greater ones
                if t <= 2:
                    k = popcount(att & (bb[o + 3] | bb[o + 4]))
                    cmg += W[W_TERMS + 2 * THREAT_MINOR] * k
                    ceg += W[W_TERMS + 2 * THREAT_MINOR + 1] * k
                elif t == 3:
                    k = popcount(att & bb[o + 4])
                    cmg += W[W_TERMS + 2 * THREAT_ROOK] * k
                    ceg += W[W_TERMS + 2 * THREAT_ROOK + 1] * k
                if t == 3 or t == 4:
                    f = sq & 7
                    fb = T[FILE_BB + f]
                    if not (fb & ours_p):
                        if t == 3:
                            if fb & theirs_p:
                                cmg += W[W_TERMS + 2 * ROOK_SEMI]
                                ceg += W[W_TERMS + 2 * ROOK_SEMI + 1]
                            else:
                                cmg += W[W_TERMS + 2 * ROOK_OPEN]
                                ceg += W[W_TERMS + 2 * ROOK_OPEN + 1]
                        elif not (fb & theirs_p):
                            cmg += W[W_TERMS + 2 * QUEEN_OPEN]
                            ceg += W[W_TERMS + 2 * QUEEN_OPEN + 1]
                    rr = (sq >> 3) if c == 0 else 7 - (sq >> 3)
                    if t == 3 and rr == 6:
                        cmg += W[W_TERMS + 2 * ROOK_SEVENTH]
                        ceg += W[W_TERMS + 2 * ROOK_SEVENTH + 1]
        if attackers >= 2 or (attackers == 1 and bb[base + 4] != U0):
            if units > 63:
                units = 63
            if c == 0:
                units_w = units
            else:
                units_b = units
        # threats by pawns on pieces
        k = popcount(our_patt & (bb[o + 1] | bb[o + 2] | bb[o + 3] | bb[o + 4]))
        cmg += W[W_TERMS + 2 * THREAT_PAWN] * k
        ceg += W[W_TERMS + 2 * THREAT_PAWN + 1] * k
        # bishop pair
        if popcount(bb[base + 2]) >= 2:
            cmg += W[W_TERMS + 2 * BISHOP_PAIR]
            ceg += W[W_TERMS + 2 * BISHOP_PAIR + 1]
        # pawn structure and passed pawns
        pcs = ours_p
        while pcs:
            sq = lsb(pcs)
            pcs &= pcs - U1
            f = sq & 7
            r = sq >> 3
            rr = r if c == 0 else 7 - r
            ahead = T[FWD_RANKS + 8 * c + r]
            fb = T[FILE_BB + f]
            adj = T[ADJ_FILES + f]
            if ahead & fb & ours_p:
                cmg += W[W_TERMS + 2 * DOUBLED]
                ceg += W[W_TERMS + 2 * DOUBLED + 1]
            if not (adj & ours_p):
                cmg += W[W_TERMS + 2 * ISOLATED]
                ceg += W[W_TERMS + 2 * ISOLATED + 1]
            else:
                stop = sq + 8 if c == 0 else sq - 8
                behind_or_level = adj & ours_p & ~ahead
                if not behind_or_level and (T[PAWN_ATT + 64 * c + stop] & theirs_p):
                    cmg += W[W_TERMS + 2 * BACKWARD]
                    ceg += W[W_TERMS + 2 * BACKWARD + 1]
                rank_bb = np.uint64(0xFF) << np.uint64(8 * r)
                if (adj & ours_p & rank_bb) or (T[PAWN_ATT + 64 * (c ^ 1) + sq] & ours_p):
                    cmg += W[W_TERMS + 2 * CONNECTED]
                    ceg += W[W_TERMS + 2 * CONNECTED + 1]
            if not (ahead & (fb | adj) & theirs_p) and not (ahead & fb & ours_p):
                cmg += W[W_PASSED + rr]
                ceg += W[W_PASSED + 8 + rr]
                stop = sq + 8 if c == 0 else sq - 8
                if not (ahead & fb & occ):
                    ceg += W[W_TERMS + 2 * PASSED_FREE + 1] * rr
                w8 = rr - 2 if rr > 2 else 0
                ceg += W[W_TERMS + 2 * PASSED_OWN_KING + 1] * w8 * np.int64(T[DIST + oksq * 64 + stop])
                ceg += W[W_TERMS + 2 * PASSED_THEIR_KING + 1] * w8 * np.int64(T[DIST + eksq * 64 + stop])
        # pawn shield in front of our own king
        kf = oksq & 7
        kr = oksq >> 3
        krr = kr if c == 0 else 7 - kr
        if krr <= 1:
            front = T[FWD_RANKS + 8 * c + kr] & ~T[FWD_RANKS + 8 * c + (kr + 2 if c == 0 else kr - 2)]
            files = T[FILE_BB + kf] | T[ADJ_FILES + kf]
            cmg += W[W_TERMS + 2 * SHIELD] * popcount(front & files & ours_p)
        mg += sign * cmg
        eg += sign * ceg
    # king danger: quadratic in the attack units gathered against each king
    mg += W[W_SAFETY + units_w] - W[W_SAFETY + units_b]
    if phase > 24:
        phase = 24
    if stm == 1:
        mg = -mg
        eg = -eg
    mg += W[W_TERMS + 2 * TEMPO]
    eg += W[W_TERMS + 2 * TEMPO + 1]
    score = (mg * phase + eg * (24 - phase)) // 24
    # drawish material: the side ahead has no pawns and at most a minor piece more
    ahead = stm if score > 0 else stm ^ 1
    if bb[6 * ahead] == U0:
        npm_a = 0
        npm_b = 0
        for t in range(1, 5):
            npm_a += W[W_MAT + t] * popcount(bb[6 * ahead + t])
            npm_b += W[W_MAT + t] * popcount(bb[6 * (ahead ^ 1) + t])
        if npm_a - npm_b < 400:
            score = score // 4 if score > 0 else -((-score) // 4)
    return score
