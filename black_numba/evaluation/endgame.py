"""Endgame knowledge the network lacks, applied to its score where the search reads it, as
Stockfish's evaluate() scaled its score after the evaluation: drawish material, by the
classical scale factors (the side ahead has no pawns and at most a minor piece more). The
batch kernel and the trainer keep the network's own score; the tapered evaluation scales
drawish material itself (``evaluate._scale``).

Why: in games against Stockfish most of our draws came after our score stood at a pawn or
more, many by insufficient material or the fifty-move rule in endings such as rook and minor
against rook that the network scored as won. (Scaling by the fifty-move counter too lost
Elo in self-play: docs/search.md.)
"""
from numba import njit

from black_numba.board.bitboard import U0, popcount
from black_numba.board.position import BISHOP, KNIGHT, PAWN, QUEEN, ROOK

# Non-pawn material as the scale factors weigh it (Stockfish's middlegame values: a bishop is
# worth a little more than a knight, so two bishops against a knight stay a win).
KNIGHT_VALUE = 781
BISHOP_VALUE = 825
ROOK_VALUE = 1276
QUEEN_VALUE = 2538
# Scale factors in 64ths (Stockfish's classical values), for a side ahead without pawns and at
# most BISHOP_VALUE ahead in pieces:
SCALE_ONE = 64
SCALE_LONE_MINOR = 0        # less than a rook of pieces: it cannot mate (KB v KP, KN v K)
SCALE_MINOR_DEFENDER = 4    # a rook or more against at most a bishop (KR v KB, KBN v KB)
SCALE_DRAWISH = 14          # the rest (KRB v KR, KRN v KR, KQ v KRB)
# Non-pawn material of both sides on a full board, for the material scaling
FULL_PIECES = 2 * (2 * KNIGHT_VALUE + 2 * BISHOP_VALUE + 2 * ROOK_VALUE + QUEEN_VALUE)
SCALE_UNIT = 1024           # the material scaling's scales are in 1024ths


@njit(cache=True, inline='always')
def _pieces(bb, colour):
    """Non-pawn material of colour."""
    b = 6 * colour
    return (KNIGHT_VALUE * popcount(bb[b + KNIGHT]) + BISHOP_VALUE * popcount(bb[b + BISHOP])
            + ROOK_VALUE * popcount(bb[b + ROOK]) + QUEEN_VALUE * popcount(bb[b + QUEEN]))


@njit(cache=True, inline='always')
def material_scale(bb, stm, score):
    """The scale factor (in 64ths) of score, from the side to move's view, for the material of
    bitboards bb: SCALE_ONE unless the side the score favours is drawish."""
    ahead = stm if score > 0 else stm ^ 1
    if bb[6 * ahead + PAWN] != U0:
        return SCALE_ONE
    mine = _pieces(bb, ahead)
    theirs = _pieces(bb, ahead ^ 1)
    if mine - theirs > BISHOP_VALUE:
        return SCALE_ONE
    if mine < ROOK_VALUE:
        return SCALE_LONE_MINOR
    return SCALE_MINOR_DEFENDER if theirs <= BISHOP_VALUE else SCALE_DRAWISH


@njit(cache=True, inline='always')
def scale_network(bb, stm, score):
    """The network's score (side to move's view) with drawish material scaled down, rounded
    toward zero (the same for either side's view)."""
    mag = abs(score) * material_scale(bb, stm, score) // SCALE_ONE
    return mag if score >= 0 else -mag


@njit(cache=True, inline='always')
def scale_material(bb, score, bare, full):
    """score x (bare + (full - bare) x pieces / FULL_PIECES) / SCALE_UNIT, rounded toward zero,
    pieces the non-pawn material of both sides (at most FULL_PIECES): Stockfish 15.1's scaling
    of its network by material. bare == full == SCALE_UNIT leaves score as it is."""
    if bare == SCALE_UNIT and full == SCALE_UNIT:
        return score
    pieces = min(_pieces(bb, 0) + _pieces(bb, 1), FULL_PIECES)
    scale = bare + (full - bare) * pieces // FULL_PIECES
    mag = abs(score) * scale // SCALE_UNIT
    return mag if score >= 0 else -mag
