"""The position array: layout, FEN in/out, Polyglot Zobrist keys, make/unmake and null move.

A position is one flat uint64 array so that a call from Python into compiled code carries a
single argument. Layout (indices are module constants):

    0..11   piece bitboards, index colour*6 + type (P N B R Q K; white 0..5, black 6..11)
    12..14  occupancy: white, black, all
    15..21  side to move, en-passant square (64 = none), castling rights (1 K, 2 Q, 4 k, 8 q),
            halfmove clock, fullmove number, Zobrist key, undo-stack depth
    24..87  mailbox: piece index on each square, 12 when empty
    88..163 castling geometry, set from the FEN (Chess960 puts king and rooks on any files):
            for each right its rook's square, the squares that must be empty and the king's
            path that must not be attacked; then, for every square, the rights a move touching
            it keeps
    164..   undo stack, two words per ply: packed state before the move, key before the move

The en-passant square is stored only when a pawn of the side to move attacks it (X-FEN), which
is exactly when Polyglot hashes the en-passant file, so the key equals
``chess.polyglot.zobrist_hash``.
"""
import numpy as np
from numba import njit

from black_numba.board.bitboard import (
    KING_ATT, KNIGHT_ATT, PAWN_ATT, TABLES, U0, U1, ZOB_CASTLE, ZOB_EP,
    ZOB_PIECE, ZOB_SIDE, bishop_attacks, lsb, popcount, rook_attacks,
)
from black_numba.board.move import (
    DOUBLE_PUSH, EP_CAPTURE, NULL_MOVE, castle_wing, is_castling, is_promotion, move_flag,
    move_from, move_to, piece_square, promo_piece_type,
)

WHITE, BLACK = 0, 1
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 0, 1, 2, 3, 4, 5
# Piece slots: the bitboard index (and mailbox value) of each piece, colour * 6 + type.
W_PAWN, W_KNIGHT, W_BISHOP, W_ROOK, W_QUEEN, W_KING = 0, 1, 2, 3, 4, 5
B_PAWN, B_KNIGHT, B_BISHOP, B_ROOK, B_QUEEN, B_KING = 6, 7, 8, 9, 10, 11
EMPTY = 12
# Castling rights bits; right index r = 2 * colour + wing (0 king's side, 1 queen's side).
WHITE_OO, WHITE_OOO, BLACK_OO, BLACK_OOO = 1, 2, 4, 8
# Where king and rook land, by right index (the same in Chess960 as in standard chess).
CASTLE_KING_TO = (6, 2, 62, 58)
CASTLE_ROOK_TO = (5, 3, 61, 59)
OCC_W, OCC_B, OCC = 12, 13, 14
SIDE, EP, CASTLE, HALFMOVE, FULLMOVE, KEY, SP = 15, 16, 17, 18, 19, 20, 21
BOARD = 24
CASTLE_ROOK = 88      # 4: the rook's start square for each right (NO_SQ when none)
CASTLE_EMPTY = 92     # 4: squares that must be empty, king and rook aside
CASTLE_PATH = 96      # 4: the king's path past its own square, and its destination
RIGHTS_KEPT = 100     # 64: rights kept when a move starts or ends on the square
STACK = 164
MAX_STACK = 1024
POS_SIZE = STACK + 2 * MAX_STACK
NO_SQ = 64

PIECE_CHARS = "PNBRQKpnbrqk"
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
SQUARE_NAMES = [f + r for r in "12345678" for f in "abcdefgh"]



@njit(cache=True, inline="always")
def attackers_to(T, pos, sq, occ, by):
    """Pieces of colour `by` attacking square sq, given occupancy occ."""
    b = by * 6
    att = T[PAWN_ATT + (by ^ 1) * 64 + sq] & pos[b]
    att |= T[KNIGHT_ATT + sq] & pos[b + KNIGHT]
    att |= T[KING_ATT + sq] & pos[b + KING]
    att |= bishop_attacks(T, sq, occ) & (pos[b + BISHOP] | pos[b + QUEEN])
    att |= rook_attacks(T, sq, occ) & (pos[b + ROOK] | pos[b + QUEEN])
    return att & occ


@njit(cache=True, _nrt=False)
def in_check(T, pos):
    """True when the side to move is in check."""
    us = np.int64(pos[SIDE])
    ksq = lsb(pos[us * 6 + KING])
    return attackers_to(T, pos, ksq, pos[OCC], us ^ 1) != U0


@njit(cache=True, _nrt=False)
def _castle(T, pos, us, kfrom, kto, wing, undo):
    """Move king and rook for castling on wing (0 king's side, 1 queen's side; back when undo);
    returns the Zobrist change. Both pieces leave before either lands: in Chess960 the king may
    stay put, or land on its rook."""
    r = 2 * us + wing
    rfrom = np.int64(pos[CASTLE_ROOK + r])
    rto = CASTLE_ROOK_TO[r]
    if undo:
        kfrom, kto, rfrom, rto = kto, kfrom, rto, rfrom
    king = us * 6 + KING
    rook = us * 6 + ROOK
    bk_from = U1 << np.uint64(kfrom)
    br_from = U1 << np.uint64(rfrom)
    bk_to = U1 << np.uint64(kto)
    br_to = U1 << np.uint64(rto)
    pos[king] = (pos[king] & ~bk_from) | bk_to
    pos[rook] = (pos[rook] & ~br_from) | br_to
    gone = ~(bk_from | br_from)
    come = bk_to | br_to
    pos[OCC_W + us] = (pos[OCC_W + us] & gone) | come
    pos[OCC] = (pos[OCC] & gone) | come
    pos[BOARD + kfrom] = EMPTY
    pos[BOARD + rfrom] = EMPTY
    pos[BOARD + kto] = king
    pos[BOARD + rto] = rook
    return (T[ZOB_PIECE + piece_square(king, kfrom)] ^ T[ZOB_PIECE + piece_square(king, kto)]
            ^ T[ZOB_PIECE + piece_square(rook, rfrom)] ^ T[ZOB_PIECE + piece_square(rook, rto)])


@njit(cache=True, _nrt=False)
def make_move(T, pos, move):
    """Play a legal move, pushing what unmake needs on the undo stack; updates the key."""
    frm = move_from(move)
    to = move_to(move)
    flag = move_flag(move)
    us = np.int64(pos[SIDE])
    them = us ^ 1
    castling = is_castling(move)
    piece = np.int64(pos[BOARD + frm])
    # a Chess960 king may castle onto its own rook: that is no capture
    cap = EMPTY if castling else np.int64(pos[BOARD + to])
    sp = np.int64(pos[SP])
    ep = np.int64(pos[EP])
    castle = np.int64(pos[CASTLE])
    hm = np.int64(pos[HALFMOVE])
    key = pos[KEY]
    slot = STACK + 2 * sp
    pos[slot] = np.uint64(move | (cap << 16) | (castle << 20) | (ep << 24) | (hm << 32))
    pos[slot + 1] = key
    pos[SP] = np.uint64(sp + 1)
    if ep != NO_SQ:
        key ^= T[ZOB_EP + (ep & 7)]
    new_ep = NO_SQ
    hm += 1
    if castling:
        key ^= _castle(T, pos, us, frm, to, castle_wing(move), False)
    else:
        bf = U1 << np.uint64(frm)
        bt = U1 << np.uint64(to)
        if flag == EP_CAPTURE:
            capsq = to ^ 8
            cp = them * 6 + PAWN
            bc = U1 << np.uint64(capsq)
            pos[cp] ^= bc
            pos[OCC_W + them] ^= bc
            pos[OCC] ^= bc
            pos[BOARD + capsq] = EMPTY
            key ^= T[ZOB_PIECE + piece_square(cp, capsq)]
        elif cap != EMPTY:
            pos[cap] ^= bt
            pos[OCC_W + them] ^= bt
            pos[OCC] ^= bt
            key ^= T[ZOB_PIECE + piece_square(cap, to)]
            hm = 0
        bft = bf | bt
        pos[piece] ^= bft
        pos[OCC_W + us] ^= bft
        pos[OCC] ^= bft
        pos[BOARD + frm] = EMPTY
        pos[BOARD + to] = piece
        key ^= T[ZOB_PIECE + piece_square(piece, frm)] ^ T[ZOB_PIECE + piece_square(piece, to)]
        if piece == us * 6 + PAWN:
            hm = 0
            if is_promotion(move):
                np_ = us * 6 + promo_piece_type(move)
                pos[piece] ^= bt
                pos[np_] ^= bt
                pos[BOARD + to] = np_
                key ^= (T[ZOB_PIECE + piece_square(piece, to)]
                        ^ T[ZOB_PIECE + piece_square(np_, to)])
            elif flag == DOUBLE_PUSH:
                epsq = (frm + to) >> 1
                if T[PAWN_ATT + us * 64 + epsq] & pos[them * 6 + PAWN]:
                    new_ep = epsq
                    key ^= T[ZOB_EP + (epsq & 7)]
    nc = castle & np.int64(pos[RIGHTS_KEPT + frm] & pos[RIGHTS_KEPT + to])
    if nc != castle:
        key ^= T[ZOB_CASTLE + castle] ^ T[ZOB_CASTLE + nc]
        pos[CASTLE] = np.uint64(nc)
    pos[EP] = np.uint64(new_ep)
    pos[HALFMOVE] = np.uint64(hm)
    pos[FULLMOVE] += np.uint64(us)
    pos[SIDE] = np.uint64(them)
    pos[KEY] = key ^ T[ZOB_SIDE]


@njit(cache=True, _nrt=False)
def unmake_move(T, pos):
    """Take back the last move made with make_move."""
    sp = np.int64(pos[SP]) - 1
    slot = STACK + 2 * sp
    info = np.int64(pos[slot])
    pos[KEY] = pos[slot + 1]
    pos[SP] = np.uint64(sp)
    move = info & 0xFFFF
    cap = (info >> 16) & 15
    pos[CASTLE] = np.uint64((info >> 20) & 15)
    pos[EP] = np.uint64((info >> 24) & 127)
    pos[HALFMOVE] = np.uint64(info >> 32)
    them = np.int64(pos[SIDE])
    us = them ^ 1
    pos[SIDE] = np.uint64(us)
    pos[FULLMOVE] -= np.uint64(us)
    frm = move_from(move)
    to = move_to(move)
    flag = move_flag(move)
    if is_castling(move):
        _castle(T, pos, us, frm, to, castle_wing(move), True)
        return
    bf = U1 << np.uint64(frm)
    bt = U1 << np.uint64(to)
    piece = np.int64(pos[BOARD + to])
    if is_promotion(move):
        pos[piece] ^= bt
        piece = us * 6 + PAWN
        pos[piece] ^= bt
    bft = bf | bt
    pos[piece] ^= bft
    pos[OCC_W + us] ^= bft
    pos[OCC] ^= bft
    pos[BOARD + frm] = piece
    pos[BOARD + to] = EMPTY
    if cap != EMPTY:
        pos[cap] ^= bt
        pos[OCC_W + them] ^= bt
        pos[OCC] ^= bt
        pos[BOARD + to] = cap
    elif flag == EP_CAPTURE:
        capsq = to ^ 8
        bc = U1 << np.uint64(capsq)
        pos[them * 6 + PAWN] ^= bc
        pos[OCC_W + them] ^= bc
        pos[OCC] ^= bc
        pos[BOARD + capsq] = them * 6 + PAWN


@njit(cache=True, _nrt=False)
def make_null(T, pos):
    """Pass the move (null-move pruning): flips side, clears en passant, pushes an undo entry."""
    sp = np.int64(pos[SP])
    slot = STACK + 2 * sp
    ep = np.int64(pos[EP])
    pos[slot] = np.uint64(NULL_MOVE | (EMPTY << 16) | (np.int64(pos[CASTLE]) << 20)
                          | (ep << 24) | (np.int64(pos[HALFMOVE]) << 32))
    pos[slot + 1] = pos[KEY]
    pos[SP] = np.uint64(sp + 1)
    key = pos[KEY] ^ T[ZOB_SIDE]
    if ep != NO_SQ:
        key ^= T[ZOB_EP + (ep & 7)]
    pos[KEY] = key
    pos[EP] = np.uint64(NO_SQ)
    pos[HALFMOVE] += U1
    pos[SIDE] ^= U1


@njit(cache=True, _nrt=False)
def unmake_null(T, pos):
    """Take back make_null."""
    sp = np.int64(pos[SP]) - 1
    slot = STACK + 2 * sp
    info = np.int64(pos[slot])
    pos[KEY] = pos[slot + 1]
    pos[SP] = np.uint64(sp)
    pos[EP] = np.uint64((info >> 24) & 127)
    pos[HALFMOVE] = np.uint64(info >> 32)
    pos[SIDE] ^= U1


@njit(cache=True, _nrt=False)
def compute_key(T, pos):
    """Zobrist key from scratch (the make/unmake key is checked against it in tests)."""
    key = U0
    for p in range(12):
        b = pos[p]
        while b:
            sq = lsb(b)
            b &= b - U1
            key ^= T[ZOB_PIECE + piece_square(p, sq)]
    key ^= T[ZOB_CASTLE + np.int64(pos[CASTLE])]
    ep = np.int64(pos[EP])
    if ep != NO_SQ:
        key ^= T[ZOB_EP + (ep & 7)]
    if pos[SIDE] == U0:
        key ^= T[ZOB_SIDE]
    return key


@njit(cache=True, _nrt=False)
def is_repetition(pos, ply_from_root):
    """True when the position repeated once inside the search or twice in all (game history
    included), looking back only as far as the halfmove clock allows."""
    sp = np.int64(pos[SP])
    limit = min(np.int64(pos[HALFMOVE]), sp)
    key = pos[KEY]
    count = 0
    i = 4
    while i <= limit:
        if pos[STACK + 2 * (sp - i) + 1] == key:
            if i <= ply_from_root:
                return True
            count += 1
            if count >= 2:
                return True
        i += 2
    return False


def trim_history(pos, keep):
    """Drop all but the last `keep` undo entries (their keys still serve repetition checks;
    moves of a game from a GUI are never taken back)."""
    sp = int(pos[SP])
    keep = min(keep, sp)
    pos[STACK:STACK + 2 * keep] = pos[STACK + 2 * (sp - keep):STACK + 2 * sp].copy()
    pos[SP] = keep


def new_position():
    """An empty position array."""
    return np.zeros(POS_SIZE, dtype=np.uint64)


def _square(name):
    if len(name) != 2 or name[0] not in "abcdefgh" or name[1] not in "12345678":
        raise ValueError(f"invalid square {name!r}")
    return "abcdefgh".index(name[0]) + 8 * (int(name[1]) - 1)


_COLOUR_NAMES = ("white", "black")


def _castling_field(board, field):
    """Castling rights and each right's rook square from a FEN castling field.

    Accepts KQkq, X-FEN and Shredder-FEN, in standard chess and Chess960 alike (as Stockfish
    does): K or Q names the outermost rook on that side of the king and is dropped when there
    is none (as python-chess and Stockfish drop stale rights); a file letter names the rook's
    file and must name a rook on the king's back rank, one right per wing."""
    rooks = [NO_SQ] * 4
    rights = 0
    if field == "-":
        return rights, rooks
    if len(set(field)) != len(field) or any(c not in "KQkqABCDEFGHabcdefgh" for c in field):
        raise ValueError(f"bad castling field {field!r}")
    for c in field:
        colour = WHITE if c.isupper() else BLACK
        name = _COLOUR_NAMES[colour]
        base = 56 * colour
        rook = colour * 6 + ROOK
        ksq = board.index(colour * 6 + KING)
        kf = ksq % 8
        on_back_rank = ksq // 8 == base // 8
        files = [f for f in range(8) if board[base + f] == rook]
        lc = c.lower()
        if lc in "kq":
            wing_files = [f for f in files if (f > kf if lc == "k" else f < kf)]
            if not on_back_rank or not wing_files:
                continue
            f = max(wing_files) if lc == "k" else min(wing_files)
        else:
            f = "abcdefgh".index(lc)
            if not on_back_rank:
                raise ValueError(f"castling right {c!r}: the {name} king is not on its back rank")
            if f not in files:
                raise ValueError(f"castling right {c!r}: no {name} rook on {SQUARE_NAMES[base + f]}")
        r = 2 * colour + (0 if f > kf else 1)
        if rights & (1 << r):
            raise ValueError(f"castling field {field!r}: two {name} rooks on one side of the king "
                             f"(the king must stand between its castling rooks)")
        rights |= 1 << r
        rooks[r] = base + f
    return rights, rooks


def _set_castling_geometry(pos, board, rights, rooks):
    """Fill the castling area of pos: rook squares, squares to keep empty, the king's path and
    the rights each square keeps."""
    pos[RIGHTS_KEPT:RIGHTS_KEPT + 64] = 15
    for r in range(4):
        pos[CASTLE_ROOK + r] = rooks[r]
        if not rights & (1 << r):
            continue
        colour = r // 2
        ksq = board.index(colour * 6 + KING)
        rsq = rooks[r]
        kto, rto = CASTLE_KING_TO[r], CASTLE_ROOK_TO[r]
        span = range(min(ksq, rsq, kto, rto), max(ksq, rsq, kto, rto) + 1)
        pos[CASTLE_EMPTY + r] = sum(1 << q for q in span if q not in (ksq, rsq))
        path = range(min(ksq, kto), max(ksq, kto) + 1)
        # the destination even when the king stands on it: its rook may have shielded it
        pos[CASTLE_PATH + r] = sum(1 << q for q in path if q != ksq or q == kto)
        pos[RIGHTS_KEPT + ksq] &= np.uint64(~(3 << (2 * colour)) & 15)
        pos[RIGHTS_KEPT + rsq] &= np.uint64(~(1 << r) & 15)


def set_fen(pos, fen):
    """Load a FEN into pos (4 to 6 fields; castling as KQkq, X-FEN or Shredder-FEN). Raises
    ValueError naming the problem."""
    if not isinstance(fen, str):
        raise ValueError("FEN must be a string")
    fields = fen.split()
    if not 4 <= len(fields) <= 6:
        raise ValueError(f"FEN needs 6 fields (4 to 6 accepted), got {len(fields)}")
    fields += ["0", "1"][len(fields) - 4:]
    placement, side, castling, ep, half, full = fields
    ranks = placement.split("/")
    if len(ranks) != 8:
        raise ValueError(f"FEN board needs 8 ranks, got {len(ranks)}")
    board = [EMPTY] * 64
    for i, rank_text in enumerate(ranks):
        rank = 7 - i
        f = 0
        prev_digit = False
        for ch in rank_text:
            if ch.isdigit():
                if ch in "09" or prev_digit:
                    raise ValueError(f"bad empty-square count in rank {rank + 1}: {rank_text!r}")
                f += int(ch)
                prev_digit = True
            elif ch in PIECE_CHARS:
                if f < 8:
                    board[rank * 8 + f] = PIECE_CHARS.index(ch)
                f += 1
                prev_digit = False
            else:
                raise ValueError(f"bad piece letter {ch!r} in FEN")
        if f != 8:
            raise ValueError(f"rank {rank + 1} has {f} squares, not 8: {rank_text!r}")
    if side not in ("w", "b"):
        raise ValueError(f"side to move must be 'w' or 'b', got {side!r}")
    for colour, name in ((WHITE, "white"), (BLACK, "black")):
        kings = board.count(colour * 6 + KING)
        if kings != 1:
            raise ValueError(f"{name} must have exactly one king, has {kings}")
        if board.count(colour * 6 + PAWN) > 8:
            raise ValueError(f"{name} has more than 8 pawns")
        if sum(1 for p in board if p != EMPTY and p // 6 == colour) > 16:
            raise ValueError(f"{name} has more than 16 pieces")
    for sq in list(range(8)) + list(range(56, 64)):
        if board[sq] in (W_PAWN, B_PAWN):
            raise ValueError(f"pawn on the back rank at {SQUARE_NAMES[sq]}")
    rights, rooks = _castling_field(board, castling)
    stm = WHITE if side == "w" else BLACK
    ep_sq = NO_SQ
    if ep != "-":
        sq = _square(ep)
        if sq // 8 != (5 if stm == WHITE else 2):
            raise ValueError(f"en-passant square {ep} is on the wrong rank")
        pusher = sq - 8 if stm == WHITE else sq + 8
        start = sq + 8 if stm == WHITE else sq - 8
        if board[pusher] != (stm ^ 1) * 6 + PAWN or board[sq] != EMPTY or board[start] != EMPTY:
            raise ValueError(f"en-passant square {ep} does not follow a double pawn push")
        ep_sq = sq
    try:
        hm, fm = int(half), int(full)
    except ValueError:
        raise ValueError(f"bad move counters {half!r} {full!r}") from None
    if hm < 0 or fm < 1 or hm > 10000 or fm > 100000:
        raise ValueError(f"move counters out of range: {half} {full}")
    T = TABLES
    pos[:] = 0
    for sq, p in enumerate(board):
        pos[BOARD + sq] = p
        if p != EMPTY:
            b = np.uint64(1 << sq)
            pos[p] |= b
            pos[OCC_W + p // 6] |= b
            pos[OCC] |= b
    pos[SIDE] = stm
    pos[CASTLE] = rights
    _set_castling_geometry(pos, board, rights, rooks)
    pos[HALFMOVE] = hm
    pos[FULLMOVE] = fm
    # X-FEN: keep the en-passant square only if a pawn of the side to move attacks it
    if ep_sq != NO_SQ and not (T[PAWN_ATT + (stm ^ 1) * 64 + ep_sq] & pos[stm * 6 + PAWN]):
        ep_sq = NO_SQ
    pos[EP] = ep_sq
    them = stm ^ 1
    tk = int(lsb(pos[them * 6 + KING]))
    if attackers_to(T, pos, tk, pos[OCC], stm):
        raise ValueError("the side not to move is in check")
    ck = attackers_to(T, pos, int(lsb(pos[stm * 6 + KING])), pos[OCC], them)
    if popcount(np.uint64(ck)) > 2:
        raise ValueError("the side to move is in check by more than two pieces")
    pos[KEY] = compute_key(T, pos)
    return pos


def _castling_text(pos):
    """X-FEN castling as python-chess writes it for a Chess960 board: K/Q/k/q for the
    outermost rook on its wing, the rook's file letter when another rook stands further out."""
    rights = int(pos[CASTLE])
    text = ""
    for colour in (WHITE, BLACK):
        back = range(56 * colour, 56 * colour + 8)
        rooks = [q for q in back if int(pos[BOARD + q]) == colour * 6 + ROOK]
        for wing in (0, 1):
            r = 2 * colour + wing
            if not rights & (1 << r):
                continue
            rsq = int(pos[CASTLE_ROOK + r])
            outer = [q for q in rooks if q != rsq and (q < rsq) == (wing == 1)]
            ch = "abcdefgh"[rsq % 8] if outer else "kq"[wing]
            text += ch.upper() if colour == WHITE else ch
    return text


def get_fen(pos):
    """The FEN of pos: X-FEN (en-passant square only when a capture is possible, castling as
    python-chess writes it; plain KQkq in standard chess)."""
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for f in range(8):
            p = int(pos[BOARD + rank * 8 + f])
            if p == EMPTY:
                empty += 1
            else:
                if empty:
                    row += str(empty)
                    empty = 0
                row += PIECE_CHARS[p]
        rows.append(row + (str(empty) if empty else ""))
    castling = _castling_text(pos) or "-"
    ep = int(pos[EP])
    return " ".join(["/".join(rows), "wb"[int(pos[SIDE])], castling,
                     SQUARE_NAMES[ep] if ep != NO_SQ else "-", str(int(pos[HALFMOVE])),
                     str(int(pos[FULLMOVE]))])


def from_fen(fen=START_FEN):
    """A new position array loaded from fen."""
    return set_fen(new_position(), fen)


def move_to_uci(move, chess960_pos=None):
    """UCI text of an encoded move ('0000' for the null move). Castling is written as the
    king's move (e1g1) unless chess960_pos, a position of the game, is given: then as the
    king taking its own rook (e1h1), the UCI_Chess960 notation."""
    move = int(move)
    if move == NULL_MOVE:
        return "0000"
    to = int(move_to(move))
    if chess960_pos is not None and is_castling(move):
        to = int(chess960_pos[CASTLE_ROOK + 2 * (to // 56) + castle_wing(move)])
    s = SQUARE_NAMES[move_from(move)] + SQUARE_NAMES[to]
    if is_promotion(move):
        s += PIECE_CHARS[B_PAWN + promo_piece_type(move)]      # lower case
    return s


def game_ply(pos):
    """Plies played in the game before pos, from its move number (0: White's first move)."""
    return max(0, 2 * (int(pos[FULLMOVE]) - 1) + int(pos[SIDE]))
