"""Fully legal move generation (pins, check masks, en-passant discovered checks, castling).

Moves are written into a caller-owned int64 buffer from index ``start``; the functions return
the index after the last move, so a search can keep one buffer of ``MAX_PLY * MAX_MOVES``.
"""
import numpy as np
from numba import njit

from black_numba.board.bitboard import (
    BETWEEN, BISHOP_RAYS, FULL, KING_ATT, KNIGHT_ATT, LINE, NOT_A, NOT_H, PAWN_ATT, RANK_2,
    RANK_3, RANK_6, RANK_7, ROOK_RAYS, TABLES, U0, U1, bishop_attacks, lsb, popcount,
    rook_attacks,
)
from black_numba.board.move import (
    CAPTURE, DOUBLE_PUSH, EP_CAPTURE, KING_CASTLE, PROMO, QUIET, is_castling, make_move_code,
    move_flag, move_from, move_to,
)
from black_numba.board.position import (
    BISHOP, BOARD, CASTLE, CASTLE_EMPTY, CASTLE_KING_TO, CASTLE_PATH, CASTLE_ROOK, EMPTY, EP,
    KING, KNIGHT, NO_SQ, OCC, OCC_W, PAWN, QUEEN, ROOK, SIDE, WHITE, move_to_uci,
)

MAX_MOVES = 256
MAX_PLY = 128
# Typed (not literal) arguments for generate: a literal would compile a second copy of it.
ALL_MOVES = np.bool_(False)      # captures_only=False
FIRST_SLOT = np.int64(0)
_U7 = np.uint64(7)
_U8 = np.uint64(8)
_U9 = np.uint64(9)


@njit(cache=True, _nrt=False)
def _emit(moves, n, frm, targets, enemy):
    """Append frm->to for every target, flagging captures."""
    caps = targets & enemy
    quiet = targets ^ caps
    while caps:
        to = lsb(caps)
        caps &= caps - U1
        moves[n] = make_move_code(frm, to, CAPTURE)
        n += 1
    while quiet:
        to = lsb(quiet)
        quiet &= quiet - U1
        moves[n] = make_move_code(frm, to, QUIET)
        n += 1
    return n


@njit(cache=True, _nrt=False)
def _emit_pawns(moves, n, targets, delta, flag):
    """Append set-wise pawn moves: from = to - delta."""
    while targets:
        to = lsb(targets)
        targets &= targets - U1
        moves[n] = make_move_code(to - delta, to, flag)
        n += 1
    return n


@njit(cache=True, _nrt=False)
def _emit_promos(moves, n, targets, delta, capture):
    base = PROMO | (CAPTURE if capture else 0)
    while targets:
        to = lsb(targets)
        targets &= targets - U1
        for k in range(3, -1, -1):
            moves[n] = make_move_code(to - delta, to, base | k)
            n += 1
    return n


@njit(cache=True, inline='always')
def _pinned_pawn_moves(T, moves, n, pp, us, ksq, occ, enemy, captures_only):
    """Pinned pawns move only along the pin line (the caller skips this when in check)."""
    empty = ~occ
    fwd = 8 if us == WHITE else -8
    while pp:
        sq = lsb(pp)
        pp &= pp - U1
        line = T[LINE + ksq * 64 + sq]
        caps = T[PAWN_ATT + us * 64 + sq] & enemy & line
        last = (sq + fwd) // 8 == (7 if us == WHITE else 0)
        while caps:
            to = lsb(caps)
            caps &= caps - U1
            if last:
                n = _emit_promos(moves, n, U1 << np.uint64(to), to - sq, True)
            else:
                moves[n] = make_move_code(sq, to, CAPTURE)
                n += 1
        one = sq + fwd
        if (empty >> np.uint64(one)) & U1 and (line >> np.uint64(one)) & U1:
            if last:
                n = _emit_promos(moves, n, U1 << np.uint64(one), fwd, False)
            elif not captures_only:
                moves[n] = make_move_code(sq, one, QUIET)
                n += 1
                two = one + fwd
                if (sq // 8 == (1 if us == WHITE else 6)) and (empty >> np.uint64(two)) & U1:
                    moves[n] = make_move_code(sq, two, DOUBLE_PUSH)
                    n += 1
    return n


@njit(cache=True, inline='always')
def _leaper_attacks(T, pos, them):
    """Squares attacked by the pawns, knights and king of colour them (set-wise: they do not
    depend on the occupancy, so one map serves every square the king may step to)."""
    b = them * 6
    p = pos[b + PAWN]
    if them == WHITE:
        att = ((p & NOT_A) << _U7) | ((p & NOT_H) << _U9)
    else:
        att = ((p & NOT_A) >> _U9) | ((p & NOT_H) >> _U7)
    att |= T[KING_ATT + lsb(pos[b + KING])]
    kn = pos[b + KNIGHT]
    while kn:
        att |= T[KNIGHT_ATT + lsb(kn)]
        kn &= kn - U1
    return att


@njit(cache=True, inline='always')
def _slider_attacked(T, pos, sq, occ, them):
    """Does a slider of colour them attack sq through occ? The empty-board rays first: a square
    no slider lines up with costs no magic lookup."""
    b = them * 6
    rq = pos[b + ROOK] | pos[b + QUEEN]
    if T[ROOK_RAYS + sq] & rq and rook_attacks(T, sq, occ) & rq:
        return True
    bq = pos[b + BISHOP] | pos[b + QUEEN]
    return bool(T[BISHOP_RAYS + sq] & bq and bishop_attacks(T, sq, occ) & bq)


@njit(cache=True, inline='always')
def _checks_and_pins(T, pos, ksq, us, occ, enemy):
    """(checkers, pinned) of the king of us on ksq in one pass: enemy sliders seen from the
    king through our own pieces (rays stop only at enemy pieces) check it with nothing between
    and pin the one piece between; pawns, knights and the king check by table."""
    b = (us ^ 1) * 6
    checkers = ((T[PAWN_ATT + us * 64 + ksq] & pos[b + PAWN])
                | (T[KNIGHT_ATT + ksq] & pos[b + KNIGHT]) | (T[KING_ATT + ksq] & pos[b + KING]))
    snipers = U0
    rq = pos[b + ROOK] | pos[b + QUEEN]
    if T[ROOK_RAYS + ksq] & rq:
        snipers = rook_attacks(T, ksq, enemy) & rq
    bq = pos[b + BISHOP] | pos[b + QUEEN]
    if T[BISHOP_RAYS + ksq] & bq:
        snipers |= bishop_attacks(T, ksq, enemy) & bq
    pinned = U0
    while snipers:
        s = lsb(snipers)
        snipers &= snipers - U1
        between = T[BETWEEN + ksq * 64 + s] & occ
        if between == U0:
            checkers |= U1 << np.uint64(s)
        elif not (between & (between - U1)):
            pinned |= between
    return checkers, pinned


@njit(cache=True, inline='always')
def _ep_legal(T, pos, ksq, occ2, them, checkers, capsq):
    """Is the king safe after an en-passant capture (occ2: the occupancy after it)? No pawn,
    knight or king check may remain but the captured pawn's, and no slider may see the king
    through the two squares the capture empties (a rank or diagonal pin)."""
    b = them * 6
    leapers = pos[b + PAWN] | pos[b + KNIGHT] | pos[b + KING]
    if checkers & leapers & ~(U1 << np.uint64(capsq)):
        return False
    return not _slider_attacked(T, pos, ksq, occ2, them)


@njit(cache=True, inline='always')
def _castling(T, pos, moves, n, us, ksq, leap):
    """Castling (the caller checks the king is not in check), standard and Chess960 alike:
    the squares both pieces cross or land on are empty but for the two of them, and no square
    of the king's path is attacked once king and rook have lifted (a Chess960 rook can shield
    the king's destination); leap: the enemy's pawn, knight and king attacks."""
    rights = (np.int64(pos[CASTLE]) >> (2 * us)) & 3
    if rights == 0:
        return n
    occ = pos[OCC]
    them = us ^ 1
    for wing in range(2):
        if not rights & (1 << wing):
            continue
        r = 2 * us + wing
        if occ & pos[CASTLE_EMPTY + r]:
            continue
        path = pos[CASTLE_PATH + r]
        if path & leap:
            continue
        lifted = occ ^ (U1 << np.uint64(ksq)) ^ (U1 << np.uint64(pos[CASTLE_ROOK + r]))
        safe = True
        while path:
            sq = lsb(path)
            path &= path - U1
            if _slider_attacked(T, pos, sq, lifted, them):
                safe = False
                break
        if safe:
            moves[n] = make_move_code(ksq, CASTLE_KING_TO[r], KING_CASTLE + wing)
            n += 1
    return n


@njit(cache=True, _nrt=False)
def generate(T, pos, moves, start, captures_only):
    """Write the legal moves (or only captures and promotions) of pos into moves[start:]."""
    n = start
    us = np.int64(pos[SIDE])
    them = us ^ 1
    b = us * 6
    occ = pos[OCC]
    own = pos[OCC_W + us]
    enemy = pos[OCC_W + them]
    ksq = lsb(pos[b + KING])
    checkers, pinned = _checks_and_pins(T, pos, ksq, us, occ, enemy)

    # King moves: the destination must not be attacked once the king has left its square
    # (leapers by one map, sliders square by square through the occupancy without the king).
    leap = _leaper_attacks(T, pos, them)
    occ_nok = occ ^ (U1 << np.uint64(ksq))
    kt = T[KING_ATT + ksq] & ~own & ~leap
    if captures_only:
        kt &= enemy
    while kt:
        to = lsb(kt)
        kt &= kt - U1
        if not _slider_attacked(T, pos, to, occ_nok, them):
            flag = CAPTURE if (enemy >> np.uint64(to)) & U1 else 0
            moves[n] = make_move_code(ksq, to, flag)
            n += 1
    if checkers & (checkers - U1):
        return n                              # double check: only the king moves
    # check mask: with one checker, capture it or block its line
    if checkers:
        mask = T[BETWEEN + ksq * 64 + lsb(checkers)] | checkers
    else:
        mask = FULL
    target = ~own & mask
    if captures_only:
        target &= enemy

    # Knights (a pinned knight never moves).
    pcs = pos[b + KNIGHT] & ~pinned
    while pcs:
        sq = lsb(pcs)
        pcs &= pcs - U1
        n = _emit(moves, n, sq, T[KNIGHT_ATT + sq] & target, enemy)
    # Diagonal sliders.
    pcs = pos[b + BISHOP] | pos[b + QUEEN]
    while pcs:
        sq = lsb(pcs)
        pcs &= pcs - U1
        t = bishop_attacks(T, sq, occ) & target
        if (pinned >> np.uint64(sq)) & U1:
            t &= T[LINE + ksq * 64 + sq]
        n = _emit(moves, n, sq, t, enemy)
    # Orthogonal sliders.
    pcs = pos[b + ROOK] | pos[b + QUEEN]
    while pcs:
        sq = lsb(pcs)
        pcs &= pcs - U1
        t = rook_attacks(T, sq, occ) & target
        if (pinned >> np.uint64(sq)) & U1:
            t &= T[LINE + ksq * 64 + sq]
        n = _emit(moves, n, sq, t, enemy)

    # Pawns, set-wise for the unpinned ones.
    empty = ~occ
    pawns = pos[b + PAWN]
    free = pawns & ~pinned
    emask = enemy & mask
    if us == WHITE:
        norm = free & ~RANK_7
        prom = free & RANK_7
        if not captures_only:
            single = (norm << _U8) & empty
            double = ((single & RANK_3) << _U8) & empty & mask
            n = _emit_pawns(moves, n, single & mask, 8, 0)
            n = _emit_pawns(moves, n, double, 16, DOUBLE_PUSH)
        n = _emit_pawns(moves, n, ((norm & NOT_A) << _U7) & emask, 7, CAPTURE)
        n = _emit_pawns(moves, n, ((norm & NOT_H) << _U9) & emask, 9, CAPTURE)
        if prom:
            n = _emit_promos(moves, n, ((prom & NOT_A) << _U7) & emask, 7, True)
            n = _emit_promos(moves, n, ((prom & NOT_H) << _U9) & emask, 9, True)
            n = _emit_promos(moves, n, (prom << _U8) & empty & mask, 8, False)
    else:
        norm = free & ~RANK_2
        prom = free & RANK_2
        if not captures_only:
            single = (norm >> _U8) & empty
            double = ((single & RANK_6) >> _U8) & empty & mask
            n = _emit_pawns(moves, n, single & mask, -8, 0)
            n = _emit_pawns(moves, n, double, -16, DOUBLE_PUSH)
        n = _emit_pawns(moves, n, ((norm & NOT_A) >> _U9) & emask, -9, CAPTURE)
        n = _emit_pawns(moves, n, ((norm & NOT_H) >> _U7) & emask, -7, CAPTURE)
        if prom:
            n = _emit_promos(moves, n, ((prom & NOT_A) >> _U9) & emask, -9, True)
            n = _emit_promos(moves, n, ((prom & NOT_H) >> _U7) & emask, -7, True)
            n = _emit_promos(moves, n, (prom >> _U8) & empty & mask, -8, False)

    # Moves with rules of their own: pinned pawns (never while in check), castling.
    pp = pawns & pinned
    if pp and not checkers:
        n = _pinned_pawn_moves(T, moves, n, pp, us, ksq, occ, enemy, captures_only)
    ep = np.int64(pos[EP])
    if ep != NO_SQ:
        # en passant, played on the bitboards: no attack on the king may follow (rank pins)
        capsq = ep ^ 8
        cand = T[PAWN_ATT + them * 64 + ep] & pawns
        while cand:
            sq = lsb(cand)
            cand &= cand - U1
            occ2 = occ ^ (U1 << np.uint64(sq)) ^ (U1 << np.uint64(ep)) ^ (U1 << np.uint64(capsq))
            if _ep_legal(T, pos, ksq, occ2, them, checkers, capsq):
                moves[n] = make_move_code(sq, ep, EP_CAPTURE)
                n += 1
    if not checkers and not captures_only:
        n = _castling(T, pos, moves, n, us, ksq, leap)
    return n


@njit(cache=True, _nrt=False)
def hash_move_legal(T, pos, m):
    """Is m, a hash move that may come from another position (a key collision), a legal move
    of pos? Answered for the ordinary moves (quiet, double push, capture) by the rules
    generate applies; castling, en passant and promotions answer False, and so does every
    move that is not legal. Staged generation's first stage: a hash move tried before the
    node's moves are generated (run LV12's build, commit a1a6894)."""
    flag = move_flag(m)
    if m == 0 or not (flag == QUIET or flag == DOUBLE_PUSH or flag == CAPTURE):
        return False
    frm = move_from(m)
    to = move_to(m)
    us = np.int64(pos[SIDE])
    them = us ^ 1
    piece = np.int64(pos[BOARD + frm])
    if piece == EMPTY or piece // 6 != us:
        return False
    kind = piece % 6
    victim = np.int64(pos[BOARD + to])
    if flag == CAPTURE:
        if victim == EMPTY or victim // 6 != them or victim % 6 == KING:
            return False
    elif victim != EMPTY:
        return False
    occ = pos[OCC]
    tbit = U1 << np.uint64(to)
    if kind == PAWN:
        step = 8 if us == WHITE else -8
        if to // 8 == (7 if us == WHITE else 0):
            return False                     # a move to the last rank is a promotion
        if flag == QUIET:
            reach = to == frm + step
        elif flag == DOUBLE_PUSH:
            reach = (frm // 8 == (1 if us == WHITE else 6) and to == frm + 2 * step
                     and np.int64(pos[BOARD + frm + step]) == EMPTY)
        else:
            reach = (T[PAWN_ATT + us * 64 + frm] & tbit) != U0
    elif flag == DOUBLE_PUSH:
        return False
    elif kind == KNIGHT:
        reach = (T[KNIGHT_ATT + frm] & tbit) != U0
    elif kind == BISHOP:
        reach = (bishop_attacks(T, frm, occ) & tbit) != U0
    elif kind == ROOK:
        reach = (rook_attacks(T, frm, occ) & tbit) != U0
    elif kind == QUEEN:
        reach = ((bishop_attacks(T, frm, occ) | rook_attacks(T, frm, occ)) & tbit) != U0
    else:
        # the king: its destination not attacked once it has left its square
        if not (T[KING_ATT + frm] & tbit) or _leaper_attacks(T, pos, them) & tbit:
            return False
        return not _slider_attacked(T, pos, to, occ ^ (U1 << np.uint64(frm)), them)
    if not reach:
        return False
    ksq = lsb(pos[us * 6 + KING])
    checkers, pinned = _checks_and_pins(T, pos, ksq, us, occ, pos[OCC_W + them])
    if checkers:
        if checkers & (checkers - U1):
            return False                     # double check: only the king moves
        if not ((T[BETWEEN + ksq * 64 + lsb(checkers)] | checkers) & tbit):
            return False
    if (pinned >> np.uint64(frm)) & U1 and not (T[LINE + ksq * 64 + frm] & tbit):
        return False
    return True


@njit(cache=True, _nrt=False)
def count_legal(T, pos, scratch, start):
    """The number of legal moves of pos, counted by popcount where generate writes them one by
    one (perft's bulk counting at the last ply); the same rules as generate. The rare moves with
    rules of their own (pinned pawns, en passant, castling) reuse generate's helpers and
    write into scratch[start:start + MAX_MOVES]."""
    us = np.int64(pos[SIDE])
    them = us ^ 1
    b = us * 6
    occ = pos[OCC]
    own = pos[OCC_W + us]
    enemy = pos[OCC_W + them]
    ksq = lsb(pos[b + KING])
    checkers, pinned = _checks_and_pins(T, pos, ksq, us, occ, enemy)
    leap = _leaper_attacks(T, pos, them)
    occ_nok = occ ^ (U1 << np.uint64(ksq))
    kt = T[KING_ATT + ksq] & ~own & ~leap
    n = 0
    while kt:
        to = lsb(kt)
        kt &= kt - U1
        if not _slider_attacked(T, pos, to, occ_nok, them):
            n += 1
    if checkers & (checkers - U1):
        return n
    if checkers:
        mask = T[BETWEEN + ksq * 64 + lsb(checkers)] | checkers
    else:
        mask = FULL
    target = ~own & mask
    pcs = pos[b + KNIGHT] & ~pinned
    while pcs:
        sq = lsb(pcs)
        pcs &= pcs - U1
        n += popcount(T[KNIGHT_ATT + sq] & target)
    pcs = pos[b + BISHOP] | pos[b + QUEEN]
    while pcs:
        sq = lsb(pcs)
        pcs &= pcs - U1
        t = bishop_attacks(T, sq, occ) & target
        if (pinned >> np.uint64(sq)) & U1:
            t &= T[LINE + ksq * 64 + sq]
        n += popcount(t)
    pcs = pos[b + ROOK] | pos[b + QUEEN]
    while pcs:
        sq = lsb(pcs)
        pcs &= pcs - U1
        t = rook_attacks(T, sq, occ) & target
        if (pinned >> np.uint64(sq)) & U1:
            t &= T[LINE + ksq * 64 + sq]
        n += popcount(t)
    empty = ~occ
    pawns = pos[b + PAWN]
    free = pawns & ~pinned
    emask = enemy & mask
    if us == WHITE:
        norm = free & ~RANK_7
        prom = free & RANK_7
        single = (norm << _U8) & empty
        n += popcount(single & mask) + popcount(((single & RANK_3) << _U8) & empty & mask)
        n += popcount(((norm & NOT_A) << _U7) & emask) + popcount(((norm & NOT_H) << _U9) & emask)
        if prom:
            n += 4 * (popcount(((prom & NOT_A) << _U7) & emask)
                      + popcount(((prom & NOT_H) << _U9) & emask)
                      + popcount((prom << _U8) & empty & mask))
    else:
        norm = free & ~RANK_2
        prom = free & RANK_2
        single = (norm >> _U8) & empty
        n += popcount(single & mask) + popcount(((single & RANK_6) >> _U8) & empty & mask)
        n += popcount(((norm & NOT_A) >> _U9) & emask) + popcount(((norm & NOT_H) >> _U7) & emask)
        if prom:
            n += 4 * (popcount(((prom & NOT_A) >> _U9) & emask)
                      + popcount(((prom & NOT_H) >> _U7) & emask)
                      + popcount((prom >> _U8) & empty & mask))
    pp = pawns & pinned
    if pp and not checkers:
        n += _pinned_pawn_moves(T, scratch, start, pp, us, ksq, occ, enemy, False) - start
    ep = np.int64(pos[EP])
    if ep != NO_SQ:
        capsq = ep ^ 8
        cand = T[PAWN_ATT + them * 64 + ep] & pawns
        while cand:
            sq = lsb(cand)
            cand &= cand - U1
            occ2 = occ ^ (U1 << np.uint64(sq)) ^ (U1 << np.uint64(ep)) ^ (U1 << np.uint64(capsq))
            if _ep_legal(T, pos, ksq, occ2, them, checkers, capsq):
                n += 1
    if not checkers:
        n += _castling(T, pos, scratch, start, us, ksq, leap) - start
    return n


def new_move_buffer():
    """A move buffer big enough for a search of MAX_PLY plies."""
    return np.zeros(MAX_PLY * MAX_MOVES, dtype=np.int64)


def legal_moves(pos, captures_only=False):
    """The legal moves of pos as a Python list of encoded ints."""
    buf = np.zeros(MAX_MOVES, dtype=np.int64)
    n = generate(TABLES, pos, buf, 0, captures_only)
    return [int(m) for m in buf[:n]]


def parse_uci_move(pos, text, chess960=False):
    """The encoded legal move matching UCI text; ValueError if malformed or illegal. With
    chess960, castling is read as the king taking its own rook (e1h1) and the king's two-square
    form (e1g1) is illegal, as in Stockfish; without it, the other way round. Where a Chess960
    king's castling and an ordinary king move have the same text, the ordinary move wins."""
    for m in legal_moves(pos):
        if move_to_uci(m, pos if chess960 else None) == text:
            return m
    if len(text) not in (4, 5) or not text.isalnum():
        raise ValueError(f"malformed move {text!r}")
    hint = ""
    for m in legal_moves(pos):
        if is_castling(m) and move_to_uci(m, None if chess960 else pos) == text:
            hint = (f" (castling is {move_to_uci(m, pos)} with UCI_Chess960 on)" if chess960
                    else f" (castling is {move_to_uci(m)}; king-takes-rook needs UCI_Chess960)")
    raise ValueError(f"illegal move {text!r}{hint}")
