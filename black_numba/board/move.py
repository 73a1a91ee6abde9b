"""The engine's two small integer codes, read and written only here: a move, and a piece on
a square.

A move is 16 bits, ``from | to << 6 | flag << 12`` (Weiss's move.h): from and to are squares
a1 = 0 .. h8 = 63; the flag says what else the move does (QUIET .. EP_CAPTURE, or PROMO with
the promoted piece in its low two bits and CAPTURE when it takes). Castling is the king's move
to its destination square (g1, c1; in Chess960 too). The null move is 0.

A piece on a square is ``piece * 64 + square`` (piece colour * 6 + type): the index of
Zobrist keys, piece-square tables, continuation history, network inputs and the training
data's piece codes.

The accessors are compiled and inlined (``inline='always'``), so compiled callers pay nothing
for them; plain Python calls them too (a move as a Python or numpy integer).
"""
from numba import njit

# Move flags (bits 12..15).
QUIET, DOUBLE_PUSH, KING_CASTLE, QUEEN_CASTLE, CAPTURE, EP_CAPTURE = 0, 1, 2, 3, 4, 5
PROMO = 8          # flag & 8: promotion, flag & 3: N B R Q, flag & 4: capture
NOISY = CAPTURE | PROMO         # flag bits that make a move not quiet (for the search)
NULL_MOVE = 0
PROMO_FIRST = 1    # piece type of the first promotion piece (the knight: position.KNIGHT)
FROM_TO_SIZE = 4096             # move_from_to's range: 64 x 64 squares
PIECE_SQUARE_SIZE = 768         # piece_square's range: 12 pieces x 64 squares

_TO_SHIFT = 6
_FLAG_SHIFT = 12
_SQ_MASK = 63
_FROM_TO_MASK = 4095
_PROMO_PIECE_MASK = 3
_SQUARES = 64


@njit(cache=True, inline='always')
def make_move_code(frm, to, flag):
    """The move from frm to to with flag."""
    return frm | (to << _TO_SHIFT) | (flag << _FLAG_SHIFT)


@njit(cache=True, inline='always')
def move_from(m):
    """The square the move starts from."""
    return m & _SQ_MASK


@njit(cache=True, inline='always')
def move_to(m):
    """The square the move lands on (the king's destination when castling)."""
    return (m >> _TO_SHIFT) & _SQ_MASK


@njit(cache=True, inline='always')
def move_flag(m):
    """The move's flag (QUIET .. EP_CAPTURE, or PROMO | piece [| CAPTURE])."""
    return m >> _FLAG_SHIFT


@njit(cache=True, inline='always')
def move_from_to(m):
    """From and to squares in one number, to * 64 + from (the butterfly history's and the
    counter move's index)."""
    return m & _FROM_TO_MASK


@njit(cache=True, inline='always')
def is_promotion(m):
    """Does the move promote a pawn?"""
    return ((m >> _FLAG_SHIFT) & PROMO) != 0


@njit(cache=True, inline='always')
def promo_piece_type(m):
    """The piece type (position.KNIGHT .. QUEEN) a promotion promotes to."""
    return PROMO_FIRST + ((m >> _FLAG_SHIFT) & _PROMO_PIECE_MASK)


@njit(cache=True, inline='always')
def is_capture(m):
    """Does the move take a piece (en passant and capturing promotions included)?"""
    return ((m >> _FLAG_SHIFT) & CAPTURE) != 0


@njit(cache=True, inline='always')
def is_quiet(m):
    """Neither a capture nor a promotion (castling and pawn pushes are quiet)."""
    return ((m >> _FLAG_SHIFT) & NOISY) == 0


@njit(cache=True, inline='always')
def is_castling(m):
    """Is the move castling, on either wing?"""
    flag = m >> _FLAG_SHIFT
    return flag == KING_CASTLE or flag == QUEEN_CASTLE


@njit(cache=True, inline='always')
def castle_wing(m):
    """0 for a king's-side castling move, 1 for a queen's-side one (the castling right's
    wing, position's right index 2 * colour + wing)."""
    return (m >> _FLAG_SHIFT) - KING_CASTLE


@njit(cache=True, inline='always')
def piece_square(piece, sq):
    """The code of piece on square sq: piece * 64 + sq."""
    return piece * _SQUARES + sq


@njit(cache=True, inline='always')
def code_piece(code):
    """The piece of a piece_square code."""
    return code >> _TO_SHIFT


@njit(cache=True, inline='always')
def code_square(code):
    """The square of a piece_square code."""
    return code & _SQ_MASK
