"""Tapered static evaluation: one source for the CPU search and the CUDA batch kernel.

``evaluate(T, W, bb, stm)`` reads the 15 bitboards ``bb[0:15]`` (a position array or one row of
a batch), the side to move and the weight vector ``W`` (int32), and returns centipawns from the
side to move's point of view. GPU-safe by construction: plain loops over arrays, no recursion,
no allocation, SWAR popcount, shift counts always uint64 and below 64, no uint64/int64 mixing.
"""
import numpy as np
from numba import njit

from black_numba import weights
from black_numba.bitboard import (
    ADJ_FILES, DIST, FILE_BB, FWD_RANKS, KING, KNIGHT, NOT_A, NOT_H, PAWN_ATT, U0, U1,
    bishop_attacks, lsb, popcount, rook_attacks,
)

_U7 = np.uint64(7)
_U9 = np.uint64(9)
_LIGHT = np.uint64(0x55AA55AA55AA55AA)

# Layout of the weight vector W (int32). Scalar terms are (middlegame, endgame) pairs.
W_MAT = 0                 # 2 x 6: mg then eg material
W_PST = 12                # 2 x 6 x 64: mg then eg tables (diagram order)
W_MOB = 780               # 2 x 6: per reachable square, mg then eg
W_MOB_BASE = 792          # 6: squares counted as neutral
W_PASSED = 798            # 2 x 8 by relative rank, mg then eg
W_TERMS = 814             # (mg, eg) pairs in this order:
DOUBLED, ISOLATED, BACKWARD, CONNECTED, PASSED_FREE, PASSED_OWN_KING, PASSED_THEIR_KING, \
    BISHOP_PAIR, ROOK_OPEN, ROOK_SEMI, QUEEN_OPEN, ROOK_SEVENTH, SHIELD, THREAT_PAWN, \
    THREAT_MINOR, THREAT_ROOK, TEMPO = range(17)
W_KING_ATT = W_TERMS + 2 * 17     # 6: attack units per attacking piece type
W_SAFETY = W_KING_ATT + 6         # 64: king danger (mg) by attack units
W_SIZE = W_SAFETY + 64
PHASE_INC = (0, 1, 1, 2, 4, 0)
MATE_BOUND = 30000


# Where each table of weights.py lives in W: (name, offset, length). Piece-square tables are
# six rows of 64, flattened.
WEIGHT_TABLES = (
    ("MAT_MG", W_MAT, 6), ("MAT_EG", W_MAT + 6, 6), ("PST_MG", W_PST, 384),
    ("PST_EG", W_PST + 384, 384), ("MOB_MG", W_MOB, 6), ("MOB_EG", W_MOB + 6, 6),
    ("MOB_BASE", W_MOB_BASE, 6), ("PASSED_MG", W_PASSED, 8), ("PASSED_EG", W_PASSED + 8, 8),
    ("TERMS", W_TERMS, 34), ("KING_ATT", W_KING_ATT, 6), ("SAFETY", W_SAFETY, 64),
)


def default_weights():
    """The engine's weight vector W (int32), from the tables of ``weights.py``."""
    W = np.zeros(W_SIZE, dtype=np.int32)
    for name, off, n in WEIGHT_TABLES:
        W[off:off + n] = np.array(getattr(weights, name), dtype=np.int32).reshape(n)
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
    # opposite-coloured bishops with nothing else but pawns: the defender's bishop holds the
    # squares of the other colour, so a pawn or two up is often a draw (endgame scale factor)
    elif (bb[1] | bb[3] | bb[4] | bb[7] | bb[9] | bb[10]) == U0 and popcount(bb[2]) == 1 \
            and popcount(bb[8]) == 1 and ((bb[2] & _LIGHT) == U0) != ((bb[8] & _LIGHT) == U0):
        score = score // 2 if score > 0 else -((-score) // 2)
    return score
