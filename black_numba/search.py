"""Alpha-beta search: PVS with aspiration windows, transposition table, quiescence with SEE,
null-move pruning, reverse futility, futility and late-move pruning, late-move reductions,
internal iterative reductions, check extensions, killers, counter moves and history.

Everything here is compiled; the iterative-deepening driver that reports `info` lines and
manages time lives in Python (``engine.py``) and calls ``search_root`` once per aspiration
window.
The search state is one int64 array ``S`` (layout below); the UCI thread writes ``S[C_STOP]``
and the search polls it with an atomic load, so LLVM cannot hoist the read out of a loop.
"""
import math

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from black_numba.bitboard import (
    BETWEEN, KING, KNIGHT, LINE, PAWN_ATT, U0, U1, bishop_attacks, lsb, popcount, rook_attacks,
)
from black_numba.evaluate import evaluate
from black_numba.movegen import MAX_MOVES, MAX_PLY, generate
from black_numba.position import (
    BOARD, CAPTURE, EMPTY, EP_CAPTURE, HALFMOVE, KEY, OCC, OCC_W, PROMO, SIDE, in_check,
    is_repetition, make_move, make_null, unmake_move, unmake_null,
)
from black_numba.tt import (
    BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, MATE, MATE_IN_MAX, tt_bound, tt_depth, tt_eval,
    tt_move, tt_probe, tt_score, tt_store,
)

INF = 32001
# Control words of S.
C_STOP, C_ABORT, C_NODES, C_NODE_LIMIT, C_SELDEPTH, C_AGE, C_PV_IDX, C_ROOT_N, C_BEST_MOVE, \
    C_BEST_SCORE, C_ROOT_DONE, C_CURRMOVE, C_CURRNUM = range(13)
MOVES = 32
SCORES = MOVES + MAX_PLY * MAX_MOVES
HIST = SCORES + MAX_PLY * MAX_MOVES           # [side][from][to]
KILLERS = HIST + 2 * 64 * 64                  # 2 per ply
COUNTER = KILLERS + 2 * MAX_PLY               # [previous from*64+to]
CONT = COUNTER + 64 * 64                      # continuation history [piece*64+to][piece*64+to]
PV = CONT + 768 * 768                        # MAX_PLY x MAX_PLY triangular PV table
PV_LEN = PV + MAX_PLY * MAX_PLY
EVALS = PV_LEN + MAX_PLY                      # static eval per ply ("improving")
MSTACK = EVALS + MAX_PLY                      # move played at each ply (0: null move)
LMR = MSTACK + MAX_PLY                        # 64 x 64 late-move reduction table
ROOT_MOVES = LMR + 64 * 64
ROOT_SCORES = ROOT_MOVES + MAX_MOVES
ROOT_NODES = ROOT_SCORES + MAX_MOVES
PSTACK = ROOT_NODES + MAX_MOVES               # piece*64+to of the move at each ply (-1: null)
EXCLUDED = PSTACK + MAX_PLY                   # move left out by a singular-extension search
S_SIZE = EXCLUDED + MAX_PLY

SEE_VALUE = (100, 320, 330, 500, 950, 20000, 0)
HIST_MAX = 16384


@intrinsic
def atomic_load(typingctx, arr, idx):
    """Monotonic atomic load of arr[idx] (int64): a flag written by another thread."""
    sig = types.int64(arr, idx)

    def codegen(context, builder, signature, args):
        arrty = signature.args[0]
        ary = context.make_array(arrty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, arrty, ary, [args[1]])
        return builder.load_atomic(ptr, ordering="monotonic", align=8)

    return sig, codegen


def new_state():
    """A fresh search state array with the late-move reduction table filled in."""
    S = np.zeros(S_SIZE, dtype=np.int64)
    for d in range(1, 64):
        for m in range(1, 64):
            S[LMR + d * 64 + m] = int(0.75 + math.log(d) * math.log(m) / 2.25)
    return S


def clear_heuristics(S):
    """Forget history, continuation history, killers and counter moves (ucinewgame)."""
    S[HIST:PV] = 0


@njit(cache=True)
def see_ge(T, pos, move, threshold):
    """Static exchange evaluation: does move win at least threshold centipawns?"""
    frm = move & 63
    to = (move >> 6) & 63
    flag = move >> 12
    if flag == EP_CAPTURE or (flag & PROMO) or flag == 2 or flag == 3:
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
    bq = pos[2] | pos[4] | pos[8] | pos[10]
    rq = pos[3] | pos[4] | pos[9] | pos[10]
    attackers = ((T[PAWN_ATT + 64 + to] & pos[0]) | (T[PAWN_ATT + to] & pos[6])
                 | (T[KNIGHT + to] & (pos[1] | pos[7])) | (T[KING + to] & (pos[5] | pos[11]))
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
        pt = 0
        while pt < 6 and not (mine & pos[b + pt]):
            pt += 1
        if pt == 5:
            # the king may capture only if the square is no longer defended
            if attackers & pos[OCC_W + (stm ^ 1)]:
                return (res ^ 1) == 1
            return res == 1
        swap = SEE_VALUE[pt] - swap
        if swap < res:
            break
        bit = mine & pos[b + pt]
        occ ^= bit & (~bit + U1)
        if pt == 0 or pt == 2 or pt == 4:
            attackers |= bishop_attacks(T, to, occ) & bq
        if pt == 3 or pt == 4:
            attackers |= rook_attacks(T, to, occ) & rq
    return res == 1


@njit(cache=True)
def _enter(S, ply):
    """Count a node, track the selective depth and, every 1024 nodes, honour stop requests
    and node limits; True when the search must unwind."""
    n = S[C_NODES] + 1
    S[C_NODES] = n
    if (n & 1023) == 0:
        if atomic_load(S, C_STOP) != 0:
            S[C_ABORT] = 1
        lim = S[C_NODE_LIMIT]
        if lim > 0 and n >= lim:
            S[C_ABORT] = 1
    if S[C_ABORT]:
        return True
    if ply > S[C_SELDEPTH]:
        S[C_SELDEPTH] = ply
    return False


@njit(cache=True)
def _tt_cuts(bound, score, alpha, beta):
    """Does a stored bound settle this window?"""
    return (bound == BOUND_EXACT or (bound == BOUND_LOWER and score >= beta)
            or (bound == BOUND_UPPER and score <= alpha))


@njit(cache=True)
def _insufficient(pos):
    """No mating material: bare kings, or one minor piece in all."""
    if pos[0] | pos[6] | pos[3] | pos[9] | pos[4] | pos[10]:
        return False
    return popcount(pos[1] | pos[2] | pos[7] | pos[8]) <= 1


@njit(cache=True)
def _discoverers(T, pos, us):
    """Our pieces that alone stand between one of our sliders and the enemy king."""
    eksq = lsb(pos[(us ^ 1) * 6 + 5])
    b = us * 6
    occ = pos[OCC]
    snipers = ((rook_attacks(T, eksq, U0) & (pos[b + 3] | pos[b + 4]))
               | (bishop_attacks(T, eksq, U0) & (pos[b + 2] | pos[b + 4])))
    disc = U0
    while snipers:
        s = lsb(snipers)
        snipers &= snipers - U1
        between = T[BETWEEN + eksq * 64 + s] & occ
        if between and not (between & (between - U1)) and (between & pos[OCC_W + us]):
            disc |= between
    return disc


@njit(cache=True)
def _gives_check(T, pos, m, us, disc):
    """Does the quiet move m check the enemy king (directly or by discovery)? Decided before
    the move is made, so pruning can spare checking moves without playing them."""
    frm = m & 63
    to = (m >> 6) & 63
    eksq = lsb(pos[(us ^ 1) * 6 + 5])
    if (disc >> np.uint64(frm)) & U1 and not ((T[LINE + eksq * 64 + frm] >> np.uint64(to)) & U1):
        return True
    pt = np.int64(pos[BOARD + frm]) % 6
    occ = pos[OCC] ^ (U1 << np.uint64(frm))
    tb = U1 << np.uint64(to)
    if pt == 0:
        return (T[PAWN_ATT + (us ^ 1) * 64 + eksq] & tb) != U0
    if pt == 1:
        return (T[KNIGHT + eksq] & tb) != U0
    if pt == 2:
        return (bishop_attacks(T, eksq, occ) & tb) != U0
    if pt == 3:
        return (rook_attacks(T, eksq, occ) & tb) != U0
    if pt == 4:
        return ((bishop_attacks(T, eksq, occ) | rook_attacks(T, eksq, occ)) & tb) != U0
    return False


@njit(cache=True)
def _score_moves(T, pos, S, start, end, tt_mv, ply):
    """Ordering keys: TT move, good captures (MVV-LVA, SEE >= 0), queen promotions, killers,
    counter move, history; bad captures and underpromotions last."""
    us = np.int64(pos[SIDE])
    k0 = S[KILLERS + 2 * ply]
    k1 = S[KILLERS + 2 * ply + 1]
    prev = S[MSTACK + ply - 1] if ply > 0 else 0
    counter = S[COUNTER + (prev & 4095)] if prev != 0 else 0
    c1 = _cont_row(S, ply, 1)
    c2 = _cont_row(S, ply, 2)
    for i in range(start, end):
        m = S[i]
        flag = m >> 12
        if m == tt_mv:
            sc = 1 << 30
        elif flag & PROMO:
            sc = (1 << 28) + 9000 if (flag & 3) == 3 else -(1 << 21)
        elif flag & CAPTURE:
            victim = np.int64(pos[BOARD + ((m >> 6) & 63)])
            v = SEE_VALUE[victim % 6] if victim != EMPTY else 100
            a = np.int64(pos[BOARD + (m & 63)]) % 6
            sc = v * 16 - a
            if see_ge(T, pos, m, 0):
                sc += 1 << 28
            else:
                sc -= 1 << 22
        elif m == k0:
            sc = (1 << 27) + 2
        elif m == k1:
            sc = (1 << 27) + 1
        elif m == counter:
            sc = 1 << 27
        else:
            pt = np.int64(pos[BOARD + (m & 63)]) * 64 + ((m >> 6) & 63)
            sc = S[HIST + us * 4096 + (m & 4095)]
            if c1 >= 0:
                sc += S[c1 + pt]
            if c2 >= 0:
                sc += S[c2 + pt]
        S[i + (SCORES - MOVES)] = sc


@njit(cache=True)
def _pick(S, i, end):
    """Selection sort step: bring the best-scored move of i..end to i."""
    best = i
    bs = S[i + (SCORES - MOVES)]
    for j in range(i + 1, end):
        s = S[j + (SCORES - MOVES)]
        if s > bs:
            bs = s
            best = j
    if best != i:
        m = S[i]
        S[i] = S[best]
        S[best] = m
        s = S[i + (SCORES - MOVES)]
        S[i + (SCORES - MOVES)] = bs
        S[best + (SCORES - MOVES)] = s
    return S[i]


@njit(cache=True)
def _gravity(S, i, bonus):
    """History with gravity: values saturate smoothly at +-HIST_MAX."""
    h = S[i]
    S[i] = h + bonus - h * abs(bonus) // HIST_MAX


@njit(cache=True)
def _cont_row(S, ply, back):
    """Start of the continuation-history row for the move played `back` plies before `ply`,
    or -1 when there is none (root or null move)."""
    if ply < back:
        return -1
    pt = S[PSTACK + ply - back]
    return CONT + pt * 768 if pt >= 0 else -1


@njit(cache=True)
def _history_update(S, pos, us, ply, move, bonus):
    """Butterfly history and continuation history (one and two plies back) of a quiet move."""
    _gravity(S, HIST + us * 4096 + (move & 4095), bonus)
    pt = np.int64(pos[BOARD + (move & 63)]) * 64 + ((move >> 6) & 63)
    c1 = _cont_row(S, ply, 1)
    if c1 >= 0:
        _gravity(S, c1 + pt, bonus)
    c2 = _cont_row(S, ply, 2)
    if c2 >= 0:
        _gravity(S, c2 + pt, bonus)


@njit(cache=True)
def qsearch(T, W, pos, tt, S, alpha, beta, ply):
    """Quiescence: stand pat, then captures and queen promotions (SEE-pruned); all evasions
    when in check."""
    if _enter(S, ply):
        return 0
    us = np.int64(pos[SIDE])
    if ply >= MAX_PLY - 1:
        return evaluate(T, W, pos, us)
    if _insufficient(pos):
        return 0
    key = pos[KEY]
    hit, data = tt_probe(tt, key)
    tmove = 0
    if hit:
        tmove = tt_move(data)
        ts = tt_score(data, ply)
        if _tt_cuts(tt_bound(data), ts, alpha, beta):
            return ts
    chk = in_check(T, pos)
    if chk:
        best = -MATE + ply
        stand = -INF
    else:
        stand = tt_eval(data) if hit else evaluate(T, W, pos, us)
        if stand >= beta:
            if not hit:
                tt_store(tt, key, 0, stand, stand, -1, BOUND_LOWER, S[C_AGE], ply)
            return stand
        if stand > alpha:
            alpha = stand
        best = stand
    start = MOVES + ply * MAX_MOVES
    end = generate(T, pos, S, start, not chk)
    _score_moves(T, pos, S, start, end, tmove, ply)
    old_alpha = alpha
    best_move = 0
    for i in range(start, end):
        m = _pick(S, i, end)
        if not chk:
            flag = m >> 12
            if (flag & PROMO) and (flag & 3) != 3:
                continue
            if S[i + (SCORES - MOVES)] < (1 << 27) and not (flag & PROMO):
                continue                                   # losing capture by SEE
            # delta pruning: even winning this piece cannot lift the score to alpha
            victim = np.int64(pos[BOARD + ((m >> 6) & 63)])
            if not (flag & PROMO) and victim != EMPTY and stand + SEE_VALUE[victim % 6] + 200 <= alpha:
                continue
        make_move(T, pos, m)
        score = -qsearch(T, W, pos, tt, S, -beta, -alpha, ply + 1)
        unmake_move(T, pos)
        if S[C_ABORT]:
            return 0
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                best_move = m
                if score >= beta:
                    break
    if chk and end == start:
        return -MATE + ply
    bound = BOUND_LOWER if best >= beta else (BOUND_EXACT if alpha > old_alpha else BOUND_UPPER)
    tt_store(tt, key, best_move, best, stand if not chk else 0, 0, bound, S[C_AGE], ply)
    return best


@njit(cache=True)
def negamax(T, W, pos, tt, S, depth, alpha, beta, ply):
    """Principal variation search below the root."""
    pv_node = beta - alpha > 1
    S[PV_LEN + ply] = ply
    if depth <= 0:
        return qsearch(T, W, pos, tt, S, alpha, beta, ply)
    if _enter(S, ply):
        return 0
    us = np.int64(pos[SIDE])
    # draws: repetition, fifty-move rule, no mating material
    if is_repetition(pos, ply) or _insufficient(pos):
        return 0
    chk = in_check(T, pos)
    if np.int64(pos[HALFMOVE]) >= 100 and not chk:
        return 0
    # mate distance pruning
    if alpha < -MATE + ply:
        alpha = -MATE + ply
    if beta > MATE - ply - 1:
        beta = MATE - ply - 1
    if alpha >= beta:
        return alpha
    if ply >= MAX_PLY - 2:
        return evaluate(T, W, pos, us)
    key = pos[KEY]
    excluded = S[EXCLUDED + ply]
    hit, data = tt_probe(tt, key)
    tmove = 0
    if hit:
        tmove = tt_move(data)
        if not pv_node and tt_depth(data) >= depth and excluded == 0:
            ts = tt_score(data, ply)
            if _tt_cuts(tt_bound(data), ts, alpha, beta):
                return ts
    b = us * 6
    non_pawn = (pos[b + 1] | pos[b + 2] | pos[b + 3] | pos[b + 4]) != U0
    improving = False
    if chk:
        static = -INF
        S[EVALS + ply] = -INF
    else:
        static = tt_eval(data) if hit else evaluate(T, W, pos, us)
        S[EVALS + ply] = static
        improving = ply >= 2 and static > S[EVALS + ply - 2]
        if not pv_node and excluded == 0:
            # reverse futility pruning: far above beta, a shallow search will not fall below it
            margin = 80 * (depth - (1 if improving else 0))
            if depth <= 8 and static - margin >= beta and beta > -MATE_IN_MAX and beta < MATE_IN_MAX:
                return static
            # null-move pruning (adaptive R); never in pawn-only positions or twice in a row
            if depth >= 3 and static >= beta and non_pawn and ply > 0 and S[MSTACK + ply - 1] != 0:
                r = 3 + depth // 3 + min((static - beta) // 200, 3)
                make_null(T, pos)
                S[MSTACK + ply] = 0
                S[PSTACK + ply] = -1
                score = -negamax(T, W, pos, tt, S, depth - r, -beta, -beta + 1, ply + 1)
                unmake_null(T, pos)
                if S[C_ABORT]:
                    return 0
                if score >= beta:
                    return beta if score >= MATE_IN_MAX else score
    # internal iterative reduction: no hash move, so this node was never searched well
    if depth >= 4 and tmove == 0:
        depth -= 1
    # singular extension: when every move but the hash move fails low against a margin below
    # its score, the hash move is forced and is searched one ply deeper; when even the
    # reduced search without it beats beta, several moves do (multi-cut) and the node is cut.
    # Done before this node's move list is generated: the verification search uses this
    # ply's slots of S.
    singular = -1
    if (ply > 0 and depth >= 7 and excluded == 0 and hit and tmove != 0
            and (tt_bound(data) & BOUND_LOWER) and tt_depth(data) >= depth - 3):
        ts = tt_score(data, ply)
        if abs(ts) < MATE_IN_MAX:
            sbeta = ts - 2 * depth
            S[EXCLUDED + ply] = tmove
            score = negamax(T, W, pos, tt, S, (depth - 1) // 2, sbeta - 1, sbeta, ply)
            S[EXCLUDED + ply] = 0
            S[PV_LEN + ply] = ply
            if S[C_ABORT]:
                return 0
            if score < sbeta:
                singular = tmove
            elif sbeta >= beta:
                return sbeta
    start = MOVES + ply * MAX_MOVES
    end = generate(T, pos, S, start, False)
    if end == start:
        return -MATE + ply if chk else 0
    _score_moves(T, pos, S, start, end, tmove, ply)
    best = -INF
    best_move = 0
    old_alpha = alpha
    searched = 0
    quiets = 0
    disc = U0
    disc_ready = False
    for i in range(start, end):
        m = _pick(S, i, end)
        flag = m >> 12
        quiet = (flag & (CAPTURE | PROMO)) == 0
        order = S[i + (SCORES - MOVES)]
        if ply > 0 and best > -MATE_IN_MAX and non_pawn and searched > 0:
            prunable = quiet
            if quiet and not chk and depth <= 8:
                if not disc_ready:
                    disc = _discoverers(T, pos, us)
                    disc_ready = True
                prunable = not _gives_check(T, pos, m, us, disc)    # checks are never pruned
            if prunable:
                # late move pruning
                if not chk and depth <= 8 and quiets >= (3 + depth * depth) // (1 if improving else 2):
                    continue
                # futility pruning
                if not chk and depth <= 6 and static + 100 + 90 * depth <= alpha and order < (1 << 27):
                    continue
            elif not quiet and depth <= 6 and order < (1 << 27) and not see_ge(T, pos, m, -90 * depth):
                continue
        if m == excluded:
            continue
        S[PSTACK + ply] = np.int64(pos[BOARD + (m & 63)]) * 64 + ((m >> 6) & 63)
        make_move(T, pos, m)
        gives_check = in_check(T, pos)
        # check extension and singular extension
        new_depth = depth - 1 + (1 if gives_check or m == singular else 0)
        S[MSTACK + ply] = m
        if searched == 0:
            score = -negamax(T, W, pos, tt, S, new_depth, -beta, -alpha, ply + 1)
        else:
            r = 0
            # late move reductions from the log(depth)*log(moves) table, tuned by history
            if depth >= 3 and searched >= (3 if pv_node else 1) and (quiet or order < 0):
                r = S[LMR + min(depth, 63) * 64 + min(searched, 63)]
                if not pv_node:
                    r += 1
                if not improving:
                    r += 1
                if gives_check:
                    r -= 1
                if order >= (1 << 27):
                    r -= 1                                   # killer or counter move
                elif quiet:
                    r -= order // 6000
                if r < 0:
                    r = 0
                if r > new_depth - 1:
                    r = new_depth - 1 if new_depth > 1 else 0
            score = -negamax(T, W, pos, tt, S, new_depth - r, -alpha - 1, -alpha, ply + 1)
            if score > alpha and r > 0:
                score = -negamax(T, W, pos, tt, S, new_depth, -alpha - 1, -alpha, ply + 1)
            if score > alpha and score < beta:
                score = -negamax(T, W, pos, tt, S, new_depth, -beta, -alpha, ply + 1)
        unmake_move(T, pos)
        if S[C_ABORT]:
            return 0
        searched += 1
        if quiet:
            quiets += 1
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                best_move = m
                row = PV + ply * MAX_PLY
                S[row + ply] = m
                child = PV + (ply + 1) * MAX_PLY
                n = S[PV_LEN + ply + 1]
                for k in range(ply + 1, n):
                    S[row + k] = S[child + k]
                S[PV_LEN + ply] = max(n, ply + 1)
                if score >= beta:
                    if quiet:
                        if S[KILLERS + 2 * ply] != m:
                            S[KILLERS + 2 * ply + 1] = S[KILLERS + 2 * ply]
                            S[KILLERS + 2 * ply] = m
                        if ply > 0 and S[MSTACK + ply - 1] != 0:
                            S[COUNTER + (S[MSTACK + ply - 1] & 4095)] = m
                        bonus = min(300 * depth - 250, 1500)
                        _history_update(S, pos, us, ply, m, bonus)
                        # malus for the quiet moves tried before the cut
                        for j in range(start, i):
                            q = S[j]
                            if ((q >> 12) & (CAPTURE | PROMO)) == 0 and q != excluded:
                                _history_update(S, pos, us, ply, q, -bonus)
                    break
    if searched == 0:
        # every move was pruned or excluded (a fresh node always searches its first move)
        return alpha
    if excluded != 0:
        return best                  # a singular verification search: this node's entry stays
    bound = BOUND_LOWER if best >= beta else (BOUND_EXACT if alpha > old_alpha else BOUND_UPPER)
    tt_store(tt, key, best_move, best, static if not chk else 0, depth, bound, S[C_AGE], ply)
    return best


@njit(cache=True, nogil=True)
def search_root(T, W, pos, tt, S, depth, alpha, beta):
    """Search the root moves S[ROOT_MOVES + pv_idx:] (earlier ones belong to earlier MultiPV
    lines) inside (alpha, beta); records the best move found so far for an interrupted
    iteration. Releases the GIL so the UCI thread keeps reading stdin."""
    S[PV_LEN] = 0
    n = S[C_ROOT_N]
    first = S[C_PV_IDX]
    best = -INF
    old_alpha = alpha
    # a typed ply, never a literal: a literal argument to a cached recursive function makes a
    # second specialisation that crashes the next process on cache load (numba issue 6713)
    child_ply = np.int64(1)
    for i in range(first, n):
        m = S[ROOT_MOVES + i]
        S[C_CURRMOVE] = m
        S[C_CURRNUM] = i + 1
        nodes_before = S[C_NODES]
        S[PSTACK] = np.int64(pos[BOARD + (m & 63)]) * 64 + ((m >> 6) & 63)
        make_move(T, pos, m)
        gives_check = in_check(T, pos)
        new_depth = depth - 1 + (1 if gives_check else 0)
        S[MSTACK] = m
        if i == first:
            score = -negamax(T, W, pos, tt, S, new_depth, -beta, -alpha, child_ply)
        else:
            r = 0
            quiet = ((m >> 12) & (CAPTURE | PROMO)) == 0
            if depth >= 3 and i - first >= 3 and quiet and not gives_check:
                r = S[LMR + min(depth, 63) * 64 + min(i - first, 63)] // 2
            score = -negamax(T, W, pos, tt, S, new_depth - r, -alpha - 1, -alpha, child_ply)
            if score > alpha and r > 0:
                score = -negamax(T, W, pos, tt, S, new_depth, -alpha - 1, -alpha, child_ply)
            if score > alpha and score < beta:
                score = -negamax(T, W, pos, tt, S, new_depth, -beta, -alpha, child_ply)
        unmake_move(T, pos)
        S[ROOT_NODES + i] += S[C_NODES] - nodes_before
        if S[C_ABORT]:
            break
        S[C_ROOT_DONE] = i - first + 1
        if score > best:
            best = score
            if score > alpha:
                # move the new best to the front of this line's moves, keeping the rest in order
                for k in range(i, first, -1):
                    S[ROOT_MOVES + k] = S[ROOT_MOVES + k - 1]
                    S[ROOT_NODES + k] = S[ROOT_NODES + k - 1]
                S[ROOT_MOVES + first] = m
                S[ROOT_NODES + first] = 0
                alpha = score
                S[PV] = m
                nn = S[PV_LEN + 1]
                for k in range(1, nn):
                    S[PV + k] = S[PV + MAX_PLY + k]
                S[PV_LEN] = max(nn, 1)
                S[C_BEST_MOVE] = m
                S[C_BEST_SCORE] = score
                if score >= beta:
                    break
    if not S[C_ABORT]:
        bound = BOUND_LOWER if best >= beta else (BOUND_EXACT if alpha > old_alpha else BOUND_UPPER)
        if first == 0:
            tt_store(tt, pos[KEY], S[ROOT_MOVES + first], best, 0, depth, bound, S[C_AGE], 0)
    return best


@njit(cache=True, nogil=True)
def static_eval(T, W, pos):
    """The evaluation the search uses at a node (side-to-move point of view)."""
    return evaluate(T, W, pos, np.int64(pos[SIDE]))
