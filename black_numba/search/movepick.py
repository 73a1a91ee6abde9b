"""Move ordering: the picker's stages as score bands, selection of the next move, and the
history heuristics that learn from cut-offs.

Moves are generated all at once and scored; ``pick`` then hands them out best first (a
selection sort step per move), so the stages below come out in this order:

    TT move > good captures (MVV-LVA, SEE >= 0) and queen promotions > killer 1 > killer 2 >
    counter move > quiet moves by history > bad captures > under-promotions

The bands are wide enough that no history value crosses into a neighbouring stage; the
search reads them too (a move below REFUTATION is neither a good capture nor a killer).
"""
import numpy as np
from numba import njit

from black_numba.search.params import (
    EVAL_SWING_MAX, HIST_BONUS_OFFSET, HIST_MAX, M_EVAL_SWING_MULT, M_HIST_BONUS_MAX,
    M_HIST_BONUS_PER_DEPTH,
)
from black_numba.board.move import (
    is_capture, is_promotion, is_quiet, move_from, move_from_to, move_to, piece_square,
    promo_piece_type,
)
from black_numba.board.position import BOARD, EMPTY, QUEEN, SIDE
from black_numba.board.rules import SEE_VALUE, see_ge
from black_numba.search.state import NO_PIECE_TO

# Stage score bands.
SCORE_TT_MOVE = 1 << 30
SCORE_GOOD_CAPTURE = 1 << 28            # plus MVV-LVA
SCORE_QUEEN_PROMOTION = SCORE_GOOD_CAPTURE + 9000
SCORE_KILLER_1 = (1 << 27) + 2
SCORE_KILLER_2 = (1 << 27) + 1
SCORE_COUNTER = 1 << 27
REFUTATION = 1 << 27                    # killers, counter move and everything above
BAD_CAPTURE_OFFSET = 1 << 22            # bad captures: MVV-LVA minus this
SCORE_UNDER_PROMOTION = -(1 << 21)
MVV_SCALE = 16                          # MVV-LVA: victim value * 16 - attacker type
PAWN_VALUE = 100                        # victim value of an en-passant capture
EVEN = np.int64(0)                      # SEE threshold of a good capture (typed, not literal)


@njit(cache=True, inline='always')
def piece_to(pos, m):
    """The continuation-history index of move m in pos (before it is made): its piece on its
    destination square."""
    return piece_square(np.int64(pos[BOARD + move_from(m)]), move_to(m))


@njit(cache=True, _nrt=False)
def cont_row(s, ply, back):
    """Continuation-history row of the move played `back` plies before `ply`, or -1 when
    there is none (before the root, or a null move)."""
    if ply < back:
        return -1
    pt = s.stack[ply - back].piece_to
    return pt if pt != NO_PIECE_TO else -1


@njit(cache=True, _nrt=False)
def _capture_score(T, pos, m):
    """MVV-LVA, lifted into the good-capture band when SEE says it does not lose."""
    victim = np.int64(pos[BOARD + move_to(m)])
    v = SEE_VALUE[victim % 6] if victim != EMPTY else PAWN_VALUE
    a = np.int64(pos[BOARD + move_from(m)]) % 6
    sc = v * MVV_SCALE - a
    if see_ge(T, pos, m, EVEN):
        return sc + SCORE_GOOD_CAPTURE
    return sc - BAD_CAPTURE_OFFSET


@njit(cache=True, _nrt=False)
def score_moves(T, pos, s, ply, n, tt_move):
    """Ordering keys s.scores[ply][:n] of the moves s.moves[ply][:n]."""
    us = np.int64(pos[SIDE])
    moves = s.moves[ply]
    scores = s.scores[ply]
    k0 = s.stack[ply].killers[0]
    k1 = s.stack[ply].killers[1]
    prev = s.stack[ply - 1].move if ply > 0 else 0
    counter = s.counter[move_from_to(prev)] if prev != 0 else 0
    c1 = cont_row(s, ply, 1)
    c2 = cont_row(s, ply, 2)
    for i in range(n):
        m = moves[i]
        if m == tt_move:
            sc = SCORE_TT_MOVE
        elif is_promotion(m):
            sc = SCORE_QUEEN_PROMOTION if promo_piece_type(m) == QUEEN else SCORE_UNDER_PROMOTION
        elif is_capture(m):
            sc = _capture_score(T, pos, m)
        elif m == k0:
            sc = SCORE_KILLER_1
        elif m == k1:
            sc = SCORE_KILLER_2
        elif m == counter:
            sc = SCORE_COUNTER
        else:
            pt = piece_to(pos, m)
            sc = s.history[us, move_from_to(m)]
            if c1 >= 0:
                sc += s.cont[c1, pt]
            if c2 >= 0:
                sc += s.cont[c2, pt]
        scores[i] = sc


@njit(cache=True, _nrt=False)
def pick(s, ply, i, n):
    """Selection sort step: bring the best-scored move of i..n-1 to i and return it."""
    moves = s.moves[ply]
    scores = s.scores[ply]
    best = i
    bs = scores[i]
    for j in range(i + 1, n):
        if scores[j] > bs:
            bs = scores[j]
            best = j
    if best != i:
        m = moves[i]
        moves[i] = moves[best]
        moves[best] = m
        scores[best] = scores[i]
        scores[i] = bs
    return moves[i]


@njit(cache=True, _nrt=False)
def _gravity(table, a, b, bonus):
    """History with gravity: values saturate smoothly at +-HIST_MAX."""
    h = table[a, b]
    table[a, b] = h + bonus - h * abs(bonus) // HIST_MAX


@njit(cache=True, _nrt=False)
def history_update(s, pos, us, ply, move, bonus):
    """Butterfly history and continuation history (one and two plies back) of a quiet move."""
    _gravity(s.history, us, move_from_to(move), bonus)
    pt = piece_to(pos, move)
    c1 = cont_row(s, ply, 1)
    if c1 >= 0:
        _gravity(s.cont, c1, pt, bonus)
    c2 = cont_row(s, ply, 2)
    if c2 >= 0:
        _gravity(s.cont, c2, pt, bonus)


@njit(cache=True, inline='always')
def history_bonus(MG, depth):
    """The history bonus (and malus) of a cut-off at this depth (MG: the search's numbers)."""
    return min(MG[M_HIST_BONUS_PER_DEPTH] * depth - HIST_BONUS_OFFSET, MG[M_HIST_BONUS_MAX])


@njit(cache=True, _nrt=False)
def update_quiet_stats(s, pos, us, ply, bonus, move, i, excluded):
    """A quiet move cut off at ply: it becomes a killer and the counter move of the move
    before, earns a history bonus, and the quiet moves tried before it (moves[:i]) a malus."""
    e = s.stack[ply]
    if e.killers[0] != move:
        e.killers[1] = e.killers[0]
        e.killers[0] = move
    if ply > 0 and s.stack[ply - 1].move != 0:
        s.counter[move_from_to(s.stack[ply - 1].move)] = move
    history_update(s, pos, us, ply, move, bonus)
    moves = s.moves[ply]
    for j in range(i):
        q = moves[j]
        if is_quiet(q) and q != excluded:
            history_update(s, pos, us, ply, q, -bonus)


@njit(cache=True, _nrt=False)
def owns_from_square(pos, us, m):
    """Is the piece on move m's from-square one of side us's? (A hash move may come from
    another position; its history indices must stay in range.)"""
    piece = np.int64(pos[BOARD + move_from(m)])
    return piece != EMPTY and piece // 6 == us


@njit(cache=True, _nrt=False)
def eval_swing_update(MG, s, ply, static):
    """Butterfly history of the opponent's quiet move that led here, by the swing it caused
    in the static evaluation (Stockfish 15.1): their evaluation before it plus ours after it,
    times -MG[M_EVAL_SWING_MULT], within +-EVAL_SWING_MAX. Nothing after a null move or a
    capture; the caller leaves out nodes in check and children of one (no static
    evaluation)."""
    prev = s.stack[ply - 1]
    m = prev.move
    if m == 0 or not is_quiet(m):
        return
    bonus = min(max(-MG[M_EVAL_SWING_MULT] * (prev.static_eval + static), -EVAL_SWING_MAX),
                EVAL_SWING_MAX)
    them = (prev.piece_to // 64) // 6
    _gravity(s.history, them, move_from_to(m), bonus)


@njit(cache=True, _nrt=False)
def prior_move_bonus(s, ply, bonus):
    """Continuation history of the quiet move that led here, whose reply failed low: the
    move one and two plies before it are its rows (Stockfish 15.1)."""
    prev = s.stack[ply - 1]
    m = prev.move
    if m == 0 or not is_quiet(m):
        return
    c1 = cont_row(s, ply - 1, 1)
    if c1 >= 0:
        _gravity(s.cont, c1, prev.piece_to, bonus)
    c2 = cont_row(s, ply - 1, 2)
    if c2 >= 0:
        _gravity(s.cont, c2, prev.piece_to, bonus)
