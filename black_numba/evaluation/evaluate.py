"""Tapered static evaluation: one source for the CPU search and the CUDA batch kernel.

``evaluate(T, W, bb, stm)`` reads the 15 bitboards ``bb[0:15]`` (a position array or one row of
a batch), the side to move and the weight vector ``W`` (int32), and returns centipawns from the
side to move's point of view. GPU-safe by construction: plain loops over arrays, no recursion,
no allocation, SWAR popcount, shift counts always uint64 and below 64, no uint64/int64 mixing.
By concern: ``_pieces`` (material, piece-square tables, mobility, threats by pieces, files,
king attack units), ``_pawns`` (structure, passed pawns), the labelled blocks of
``evaluate``'s colour loop (pawn threats, bishop pair, king shield) and king danger, and
``_scale`` (drawish endings). The helpers are inlined, each from one call site: as separate
calls they made the evaluation twice as slow (docs/numba.md).

The weights are declared once, in ``weights.py``: its tables, and its TERMS list of
(name, middlegame, endgame). The layout of W below is derived from those declarations, so a
new term is one line in TERMS plus the code that scores it (``T_<NAME>`` is its W index).
"""
import numpy as np
from numba import njit

from black_numba.evaluation import weights
from black_numba.board.bitboard import (
    ADJ_FILES, DIST, FILE_BB, FWD_RANKS, KING_ATT, KNIGHT_ATT, NOT_A, NOT_H, PAWN_ATT, U0, U1,
    bishop_attacks, lsb, popcount, rook_attacks,
)
from black_numba.board.move import piece_square
from black_numba.board.position import (
    B_BISHOP, B_KNIGHT, B_PAWN, B_QUEEN, B_ROOK, BISHOP, BLACK, KING, KNIGHT, OCC, OCC_W, PAWN,
    QUEEN, ROOK, W_BISHOP, W_KNIGHT, W_PAWN, W_QUEEN, W_ROOK, WHITE,
)

_U7 = np.uint64(7)
_U9 = np.uint64(9)
_LIGHT = np.uint64(0x55AA55AA55AA55AA)
PHASE_INC = (0, 1, 1, 2, 4, 0)       # game phase per piece type; 24 is a full middlegame
PHASE_MAX = 24
MAX_ATTACK_UNITS = 63                # the king-danger table's last index
DRAWISH_MARGIN = 400                 # no pawns and less than this in pieces ahead: drawish
DRAWISH_DIVISOR = 4
OCB_DIVISOR = 2                      # opposite-coloured bishops and pawns only


def layout(w=weights):
    """Layout of the weight vector W (int32) for the declarations of weights module w:
    ((table name, offset, length), ...) and the total length. Tables are packed in this
    order; TERMS holds (middlegame, endgame) pairs in w.TERMS order."""
    sizes = (("MAT_MG", 6), ("MAT_EG", 6), ("PST_MG", 6 * 64), ("PST_EG", 6 * 64),
             ("MOB_MG", 6), ("MOB_EG", 6), ("MOB_BASE", 6), ("PASSED_MG", 8),
             ("PASSED_EG", 8), ("TERMS", 2 * len(w.TERMS)), ("KING_ATT", 6),
             ("SAFETY", MAX_ATTACK_UNITS + 1))
    out, off = [], 0
    for name, n in sizes:
        out.append((name, off, n))
        off += n
    return tuple(out), off


WEIGHT_TABLES, W_SIZE = layout()
_OFFSET = {name: off for name, off, _ in WEIGHT_TABLES}
W_MAT = _OFFSET["MAT_MG"]           # 2 x 6: middlegame then endgame material
W_PST = _OFFSET["PST_MG"]           # 2 x 6 x 64: middlegame then endgame tables
W_MOB = _OFFSET["MOB_MG"]           # 2 x 6: per reachable square
W_MOB_BASE = _OFFSET["MOB_BASE"]    # 6: squares counted as neutral
W_PASSED = _OFFSET["PASSED_MG"]     # 2 x 8 by relative rank
W_TERMS = _OFFSET["TERMS"]
W_KING_ATT = _OFFSET["KING_ATT"]    # 6: attack units per attacking piece type
W_SAFETY = _OFFSET["SAFETY"]        # king danger (middlegame) by attack units


def term_index(name):
    """W index of a scalar term's middlegame weight (its endgame weight follows)."""
    names = [t[0] for t in weights.TERMS]
    return W_TERMS + 2 * names.index(name)


T_DOUBLED = term_index("DOUBLED")
T_ISOLATED = term_index("ISOLATED")
T_BACKWARD = term_index("BACKWARD")
T_CONNECTED = term_index("CONNECTED")
T_PASSED_FREE = term_index("PASSED_FREE")
T_PASSED_OWN_KING = term_index("PASSED_OWN_KING")
T_PASSED_THEIR_KING = term_index("PASSED_THEIR_KING")
T_BISHOP_PAIR = term_index("BISHOP_PAIR")
T_ROOK_OPEN = term_index("ROOK_OPEN")
T_ROOK_SEMI = term_index("ROOK_SEMI")
T_QUEEN_OPEN = term_index("QUEEN_OPEN")
T_ROOK_SEVENTH = term_index("ROOK_SEVENTH")
T_SHIELD = term_index("SHIELD")
T_THREAT_PAWN = term_index("THREAT_PAWN")
T_THREAT_MINOR = term_index("THREAT_MINOR")
T_THREAT_ROOK = term_index("THREAT_ROOK")
T_TEMPO = term_index("TEMPO")


def default_weights(w=weights):
    """The weight vector W (int32) from the declarations of weights module w."""
    tables, size = layout(w)
    W = np.zeros(size, dtype=np.int32)
    for name, off, n in tables:
        if name == "TERMS":
            values = [v for _, mg, eg in w.TERMS for v in (mg, eg)]
        else:
            values = getattr(w, name)
        W[off:off + n] = np.array(values, dtype=np.int32).reshape(n)
    return W


WEIGHTS = default_weights()


@njit(cache=True, inline='always')
def _pieces(T, W, bb, c, their_patt, zone):
    """Pieces of colour c: material, piece-square tables, mobility (outside squares our
    pieces hold or enemy pawns attack), threats by pieces, rooks and queens on files, rooks
    on the seventh. Returns (mg, eg, game phase, king attack units, king attackers)."""
    base = 6 * c
    o = 6 * (c ^ 1)
    occ = bb[OCC]
    ours_p = bb[base + PAWN]
    theirs_p = bb[o + PAWN]
    mob_area = ~bb[OCC_W + c] & ~their_patt
    mg = 0
    eg = 0
    phase = 0
    units = 0
    attackers = 0
    for t in range(6):
        pcs = bb[base + t]
        while pcs:
            sq = lsb(pcs)
            pcs &= pcs - U1
            idx = sq ^ 56 if c == WHITE else sq
            mg += W[W_MAT + t] + W[W_PST + piece_square(t, idx)]
            eg += W[W_MAT + 6 + t] + W[W_PST + 384 + piece_square(t, idx)]
            phase += PHASE_INC[t]
            if t == PAWN or t == KING:
                continue
            if t == KNIGHT:
                att = T[KNIGHT_ATT + sq]
            elif t == BISHOP:
                att = bishop_attacks(T, sq, occ)
            elif t == ROOK:
                att = rook_attacks(T, sq, occ)
            else:
                att = bishop_attacks(T, sq, occ) | rook_attacks(T, sq, occ)
            # mobility
            n = popcount(att & mob_area) - W[W_MOB_BASE + t]
            mg += W[W_MOB + t] * n
            eg += W[W_MOB + 6 + t] * n
            # king attack units: pieces hitting the enemy king's zone
            if att & zone:
                attackers += 1
                units += W[W_KING_ATT + t] * popcount(att & zone)
            # threats: minor pieces on rooks and queens, rooks on queens
            if t <= BISHOP:
                k = popcount(att & (bb[o + ROOK] | bb[o + QUEEN]))
                mg += W[T_THREAT_MINOR] * k
                eg += W[T_THREAT_MINOR + 1] * k
            elif t == ROOK:
                k = popcount(att & bb[o + QUEEN])
                mg += W[T_THREAT_ROOK] * k
                eg += W[T_THREAT_ROOK + 1] * k
            # open and half-open files, the seventh rank
            if t == ROOK or t == QUEEN:
                fb = T[FILE_BB + (sq & 7)]
                if not (fb & ours_p):
                    f_term = -1
                    if t == ROOK:
                        f_term = T_ROOK_SEMI if fb & theirs_p else T_ROOK_OPEN
                    elif not (fb & theirs_p):
                        f_term = T_QUEEN_OPEN
                    if f_term >= 0:
                        mg += W[f_term]
                        eg += W[f_term + 1]
                rr = (sq >> 3) if c == WHITE else 7 - (sq >> 3)
                if t == ROOK and rr == 6:
                    mg += W[T_ROOK_SEVENTH]
                    eg += W[T_ROOK_SEVENTH + 1]
    return mg, eg, phase, units, attackers


@njit(cache=True, inline='always')
def _pawns(T, W, bb, c, oksq, eksq):
    """Pawn structure (doubled, isolated, backward, connected) and passed pawns by rank,
    with a free path and the distances of both kings to the stop square."""
    ours_p = bb[6 * c]
    theirs_p = bb[6 * (c ^ 1)]
    occ = bb[OCC]
    mg = 0
    eg = 0
    pcs = ours_p
    while pcs:
        sq = lsb(pcs)
        pcs &= pcs - U1
        f = sq & 7
        r = sq >> 3
        rr = r if c == WHITE else 7 - r
        ahead = T[FWD_RANKS + 8 * c + r]
        fb = T[FILE_BB + f]
        adj = T[ADJ_FILES + f]
        stop = sq + 8 if c == WHITE else sq - 8
        if ahead & fb & ours_p:
            mg += W[T_DOUBLED]
            eg += W[T_DOUBLED + 1]
        if not (adj & ours_p):
            mg += W[T_ISOLATED]
            eg += W[T_ISOLATED + 1]
        else:
            behind_or_level = adj & ours_p & ~ahead
            if not behind_or_level and (T[PAWN_ATT + 64 * c + stop] & theirs_p):
                mg += W[T_BACKWARD]
                eg += W[T_BACKWARD + 1]
            rank_bb = np.uint64(0xFF) << np.uint64(8 * r)
            if (adj & ours_p & rank_bb) or (T[PAWN_ATT + 64 * (c ^ 1) + sq] & ours_p):
                mg += W[T_CONNECTED]
                eg += W[T_CONNECTED + 1]
        if not (ahead & (fb | adj) & theirs_p) and not (ahead & fb & ours_p):
            mg += W[W_PASSED + rr]
            eg += W[W_PASSED + 8 + rr]
            if not (ahead & fb & occ):
                eg += W[T_PASSED_FREE + 1] * rr
            w8 = rr - 2 if rr > 2 else 0
            eg += W[T_PASSED_OWN_KING + 1] * w8 * np.int64(T[DIST + oksq * 64 + stop])
            eg += W[T_PASSED_THEIR_KING + 1] * w8 * np.int64(T[DIST + eksq * 64 + stop])
    return mg, eg


@njit(cache=True, inline='always')
def _scale(W, bb, stm, score):
    """Endgame scale factors: drawish material, opposite-coloured bishops."""
    # drawish material: the side ahead has no pawns and at most a minor piece more
    ahead = stm if score > 0 else stm ^ 1
    if bb[6 * ahead + PAWN] == U0:
        npm_a = 0
        npm_b = 0
        for t in range(KNIGHT, KING):
            npm_a += W[W_MAT + t] * popcount(bb[6 * ahead + t])
            npm_b += W[W_MAT + t] * popcount(bb[6 * (ahead ^ 1) + t])
        if npm_a - npm_b < DRAWISH_MARGIN:
            score = score // DRAWISH_DIVISOR if score > 0 else -((-score) // DRAWISH_DIVISOR)
    # opposite-coloured bishops with nothing else but pawns: the defender's bishop holds the
    # squares of the other colour, so a pawn or two up is often a draw
    elif (bb[W_KNIGHT] | bb[W_ROOK] | bb[W_QUEEN] | bb[B_KNIGHT] | bb[B_ROOK]
          | bb[B_QUEEN]) == U0 and popcount(bb[W_BISHOP]) == 1 \
            and popcount(bb[B_BISHOP]) == 1 \
            and ((bb[W_BISHOP] & _LIGHT) == U0) != ((bb[B_BISHOP] & _LIGHT) == U0):
        score = score // OCB_DIVISOR if score > 0 else -((-score) // OCB_DIVISOR)
    return score


@njit(cache=True, _nrt=False)
def evaluate(T, W, bb, stm):
    """Static evaluation of bitboards bb[0:15] in centipawns for the side to move stm."""
    mg = 0
    eg = 0
    phase = 0
    wp = bb[W_PAWN]
    bp = bb[B_PAWN]
    # squares attacked by each side's pawns
    w_patt = ((wp & NOT_A) << _U7) | ((wp & NOT_H) << _U9)
    b_patt = ((bp & NOT_A) >> _U9) | ((bp & NOT_H) >> _U7)
    units_w = 0        # attack units of white against the black king
    units_b = 0
    for c in range(2):
        sign = 1 if c == WHITE else -1
        o = 6 * (c ^ 1)
        base = 6 * c
        their_patt = b_patt if c == WHITE else w_patt
        our_patt = w_patt if c == WHITE else b_patt
        eksq = lsb(bb[o + KING])
        oksq = lsb(bb[base + KING])
        zone = T[KING_ATT + eksq] | (U1 << np.uint64(eksq))
        # pieces: material, tables, mobility, threats, files; attack units on the king zone
        cmg, ceg, cphase, units, attackers = _pieces(T, W, bb, c, their_patt, zone)
        phase += cphase
        # attack units count with two attackers, or one with our queen on the board
        if attackers >= 2 or (attackers == 1 and bb[base + QUEEN] != U0):
            if units > MAX_ATTACK_UNITS:
                units = MAX_ATTACK_UNITS
            if c == WHITE:
                units_w = units
            else:
                units_b = units
        # threats by pawns on pieces
        k = popcount(our_patt & (bb[o + KNIGHT] | bb[o + BISHOP] | bb[o + ROOK] | bb[o + QUEEN]))
        cmg += W[T_THREAT_PAWN] * k
        ceg += W[T_THREAT_PAWN + 1] * k
        # bishop pair
        if popcount(bb[base + BISHOP]) >= 2:
            cmg += W[T_BISHOP_PAIR]
            ceg += W[T_BISHOP_PAIR + 1]
        # pawn structure and passed pawns
        pmg, peg = _pawns(T, W, bb, c, oksq, eksq)
        cmg += pmg
        ceg += peg
        # pawn shield in front of our own king (on its first two ranks)
        kf = oksq & 7
        kr = oksq >> 3
        krr = kr if c == WHITE else 7 - kr
        if krr <= 1:
            front = T[FWD_RANKS + 8 * c + kr] & ~T[FWD_RANKS + 8 * c + (kr + 2 if c == WHITE else kr - 2)]
            files = T[FILE_BB + kf] | T[ADJ_FILES + kf]
            cmg += W[T_SHIELD] * popcount(front & files & bb[base + PAWN])
        mg += sign * cmg
        eg += sign * ceg
    # king danger: quadratic in the attack units gathered against each king
    mg += W[W_SAFETY + units_w] - W[W_SAFETY + units_b]
    if phase > PHASE_MAX:
        phase = PHASE_MAX
    if stm == BLACK:
        mg = -mg
        eg = -eg
    mg += W[T_TEMPO]
    eg += W[T_TEMPO + 1]
    score = (mg * phase + eg * (PHASE_MAX - phase)) // PHASE_MAX
    return _scale(W, bb, stm, score)
