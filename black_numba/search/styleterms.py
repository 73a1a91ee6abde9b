"""The compiled half of the playing styles (style.py states the design): the draw score
and the evaluation terms the search adds after the correction history, read from the
thread's control words, so one compiled specialisation serves every style."""
import numpy as np
from numba import njit

from black_numba.board.bitboard import popcount
from black_numba.board.position import SIDE
from black_numba.search.state import C_CONTEMPT, C_ROOT_MATERIAL, C_ROOT_SIDE, C_STYLE_TERMS
from black_numba.search.style import (
    FULL_MATERIAL, MATERIAL, SAC_BONUS_BASE, SAC_BONUS_MAX, SAC_BONUS_PER_PAWN,
    SAC_CLEARLY_BETTER, SAC_EVAL_FLOOR, SAC_MIN_DEFICIT, SAC_MIN_MATERIAL, SCALE_ENDGAME,
    SCALE_FULL, SCALE_ONE, TERM_SACRIFICE, TERM_SCALE, material_balance,
)
from black_numba.search.tt import TB_WIN_IN_MAX


def set_root(ctl, settings_, pos):
    """Write a search's style words into a thread's control record (every thread's)."""
    ctl[C_STYLE_TERMS] = settings_.terms
    ctl[C_CONTEMPT] = settings_.contempt
    side = int(pos[SIDE])
    ctl[C_ROOT_SIDE] = side
    ctl[C_ROOT_MATERIAL] = material_balance(pos, side)[0]


# -- compiled: the draw score and the evaluation terms --------------------------------------
@njit(cache=True, inline='always')
def draw_score(s, pos):
    """A draw's score for the side to move: -contempt where the root side moves, +contempt
    where its opponent does (0 under Normal)."""
    c = s.ctl[C_CONTEMPT]
    return -c if np.int64(pos[SIDE]) == s.ctl[C_ROOT_SIDE] else c


@njit(cache=True, _nrt=False)
def _terms(s, pos, v, terms):
    """v (side to move's view) with the style's terms, from the root side's view."""
    root = s.ctl[C_ROOT_SIDE]
    stm = np.int64(pos[SIDE])
    vr = v if stm == root else -v
    white = np.int64(0)
    black = np.int64(0)
    for p in range(5):
        white += popcount(pos[p]) * MATERIAL[p]
        black += popcount(pos[6 + p]) * MATERIAL[p]
    total = white + black
    balance = white - black if root == 0 else black - white
    out = vr
    if (terms & TERM_SCALE) != 0 and vr > 0:
        scale = SCALE_ENDGAME + (SCALE_FULL - SCALE_ENDGAME) * min(total, FULL_MATERIAL) \
            // FULL_MATERIAL
        out = vr * scale // SCALE_ONE
    deficit = s.ctl[C_ROOT_MATERIAL] - balance
    if ((terms & TERM_SACRIFICE) != 0 and stm != root and deficit >= SAC_MIN_DEFICIT
            and total >= SAC_MIN_MATERIAL and out >= SAC_EVAL_FLOOR):
        bonus = min(SAC_BONUS_BASE + deficit * SAC_BONUS_PER_PAWN // 100, SAC_BONUS_MAX)
        if out > SAC_CLEARLY_BETTER:
            bonus *= 2
        out += bonus
    out = min(max(out, -TB_WIN_IN_MAX + 1), TB_WIN_IN_MAX - 1)
    return out if stm == root else -out


@njit(cache=True, inline='always')
def styled(s, pos, v):
    """A corrected static evaluation v with the style's terms (v itself under Normal)."""
    terms = s.ctl[C_STYLE_TERMS]
    if terms == 0:
        return v
    return _terms(s, pos, v, terms)
