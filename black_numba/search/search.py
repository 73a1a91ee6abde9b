"""Alpha-beta search: principal variation search with a transposition table, quiescence,
pruning, reductions and extensions.

Everything here is compiled, the iterative deepening too (``deepen``, with the GIL released):
every thread runs it, the main thread's driver in ``driver.py`` one depth at a time to report
and keep time. Tunable numbers live in ``params.py``, move ordering in ``movepick.py``, board
rules (SEE, checks, blockers) in ``rules.py`` and the search state in ``state.py``.

The evaluation seam: the search asks for a static evaluation only through ``node_eval`` and
changes the position only through ``do_move``/``undo_move``/``do_null``/``undo_null``; an
incremental evaluation keeps its state in step there and on the per-ply stack.
"""
import numpy as np
from numba import njit

from black_numba.evaluation import endgame, nnue
from black_numba.board.bitboard import U0, mix64, popcount
from black_numba.evaluation.evaluate import evaluate
from black_numba.board.movegen import ALL_MOVES, FIRST_SLOT, MAX_PLY, generate
from black_numba.board.move import (
    NULL_MOVE, is_capture, is_promotion, is_quiet, move_from_to, move_to, promo_piece_type,
)
from black_numba.search.movepick import (
    REFUTATION, eval_swing_update, history_bonus, history_update, owns_from_square, pick,
    piece_to, prior_move_bonus, score_moves, update_quiet_stats,
)
from black_numba.evaluation.nnue import H_HIDDEN
from black_numba.search.params import (
    ASPIRATION_DELTA, ASPIRATION_GIVE_UP, ASPIRATION_MIN_DEPTH, CORR_BONUS_DIV, CORR_DIV,
    CORR_LIMIT, CORR_SIZE, CUT_NODE_R, FUTILITY_MAX_DEPTH, IIR_MIN_DEPTH, LMP_MAX_DEPTH,
    LMR_MIN_DEPTH, LMR_MIN_MOVES,
    LMR_MIN_MOVES_PV, M_DELTA, M_FUTILITY_BASE, M_FUTILITY_PER_DEPTH, M_LMP_BASE,
    M_EVAL_SCALE_BARE, M_EVAL_SCALE_FULL,
    M_LMR_HISTORY_DIV, M_NMP_BASE_R, M_NMP_EVAL_DIV, M_PROBCUT, M_RFP, M_SEE_PRUNE,
    M_SE_PER_DEPTH, M_TT_CUT_HISTORY, M_EVAL_SWING_MULT, M_PRIOR_FAIL_LOW, M_SE_MIN_DEPTH,
    M_NEG_EXTENSION, M_CHECK_EXT_MIN_DEPTH, M_CHECK_EXT_MIN_EVAL, M_NMP_VERIFY_DEPTH,
    M_LMR_CAPTURES, NMP_DEPTH_DIV, NMP_EVAL_MAX_R, NMP_MIN_DEPTH, PROBCUT_MIN_DEPTH,
    PRIOR_FAIL_LOW_DEPTH, PRIOR_FAIL_LOW_MARGIN, PROBCUT_REDUCTION, RFP_MAX_DEPTH,
    ROOT_LMR_MIN_MOVES, SEE_PRUNE_MAX_DEPTH, SE_TT_DEPTH_SLACK,
)
from black_numba.board.position import (
    B_PAWN, BISHOP, BOARD, CASTLE, EMPTY, HALFMOVE, KEY, KNIGHT, OCC, QUEEN, ROOK, SIDE,
    W_PAWN,
    in_check, is_repetition, make_move, make_null, unmake_move, unmake_null,
)
from black_numba.board.rules import (
    SEE_VALUE, discoverers, gives_check, insufficient_material, see_ge,
)
from black_numba.search.state import (
    C_ABORT, C_AGE, C_BEST_MOVE, C_BEST_SCORE, C_CURRMOVE, C_CURRNUM, C_FAIL_LOW, C_FAIL_SCORE,
    C_GROUPS_N, C_MULTIPV, C_NMP_COLOR, C_NMP_MIN_PLY, C_NODE_LIMIT, C_NODES, C_PV_IDX,
    C_REPORT_FAILS, C_RESULT_MOVE, C_RESULT_SCORE, C_RESUME, C_ROOT_DONE, C_ROOT_N,
    C_ROOT_TOTAL, C_SELDEPTH,
    C_SKIP_PHASE, C_SKIP_SIZE, C_STOP, C_TB_DEPTH, C_TB_LIMIT, C_TB_RULE50, C_TBHITS,
    C_WIN_ALPHA, C_WIN_BETA, C_WIN_DELTA, NO_PIECE_TO, atomic_load,
)
from black_numba.search.styleterms import draw_score, styled
from black_numba.tablebase.tbprobe import TB_ERROR, probe_wdl
from black_numba.search.tt import (
    BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, MATE, TB_WIN, TB_WIN_IN_MAX, tt_bound,
    tt_depth, tt_eval, tt_move, tt_prefetch, tt_probe, tt_score, tt_store,
)

INF = 32001
TB_DEPTH_BONUS = 6               # a tablebase result is stored as this much deeper (Stockfish)
NO_TB = np.int64(-3)             # _tb_wdl: the node is not probed, or its table is missing
CAPTURES_ONLY = np.bool_(True)
POLL_MASK = 1023                 # the stop flag is read every 1024 nodes
QUIET_PRUNE_DEPTH = max(LMP_MAX_DEPTH, FUTILITY_MAX_DEPTH)


# -- the evaluation seam -------------------------------------------------------------------
@njit(cache=True, inline='always')
def node_eval(T, EV, pos, s, ply):
    """The static evaluation of the node at ply, from the side to move's point of view:
    the network's output from the accumulators of the ply, scaled down in drawish material
    and by the material on the board (evaluation/endgame.py; off by default), or the tapered
    evaluation (which scales it itself).
    EV = (W, NN, MG): the tapered weights, the network (NN[0] == 0: none) and the search
    margins of the evaluation in use (params.margins)."""
    W, NN, MG = EV[0], EV[1], EV[2]
    stm = np.int64(pos[SIDE])
    if NN[H_HIDDEN] != 0:
        v = endgame.scale_network(pos, stm, nnue.output(NN, s.acc[ply], stm,
                                                        popcount(pos[OCC])))
        return endgame.scale_material(pos, v, MG[M_EVAL_SCALE_BARE], MG[M_EVAL_SCALE_FULL])
    return evaluate(T, W, pos, stm)


@njit(cache=True, inline='always')
def do_move(T, EV, pos, s, ply, m):
    """Play move m from ply; the network's accumulators of ply + 1 follow it (incremental
    update: only the features the move changes)."""
    NN = EV[1]
    redo = nnue.NO_REFRESH
    if NN[H_HIDDEN] != 0:
        redo = nnue.update(NN, pos, m, s.acc[ply], s.acc[ply + 1])
    make_move(T, pos, m)
    if redo != nnue.NO_REFRESH:
        # the king changed wings (input mirroring) or king bucket: its side's view is built
        # again, from the refresh cache
        nnue.refresh_cached(NN, pos, s.acc[ply + 1], redo, s.finny_acc, s.finny_bb,
                            s.finny_ok)


@njit(cache=True, inline='always')
def undo_move(T, pos, s, ply):
    """Take back the move played from ply (the accumulators of ply are untouched)."""
    unmake_move(T, pos)


@njit(cache=True, inline='always')
def do_null(T, EV, pos, s, ply):
    """Pass at ply (null-move pruning)."""
    NN = EV[1]
    if NN[H_HIDDEN] != 0:
        nnue.copy(NN, s.acc[ply], s.acc[ply + 1])
    make_null(T, pos)


@njit(cache=True, inline='always')
def undo_null(T, pos, s, ply):
    """Take back the null move of ply."""
    unmake_null(T, pos)


@njit(cache=True, _nrt=False)
def refresh_root(EV, pos, s, ply):
    """Build the accumulators of ply from the position (the root of a search), and empty the
    refresh cache (the network may have changed since the last search)."""
    NN = EV[1]
    if NN[H_HIDDEN] != 0:
        s.finny_ok[:, :] = 0
        nnue.refresh(NN, pos, s.acc[ply])


@njit(cache=True, nogil=True)
def static_eval(T, EV, pos):
    """The evaluation of pos (side-to-move point of view) as the batch kernel computes it:
    the network's or the tapered evaluation's own score, before the endgame knowledge
    node_eval adds."""
    W, NN = EV[0], EV[1]
    if NN[H_HIDDEN] != 0:
        acc = np.empty((2, nnue.MAX_HIDDEN), dtype=np.int16)
        return nnue.evaluate_board(NN, pos, np.int64(pos[SIDE]), acc)
    return evaluate(T, W, pos, np.int64(pos[SIDE]))


# -- correction history --------------------------------------------------------------------
@njit(cache=True, inline='always')
def _pawn_index(pos):
    """The pawn structure's slot in the correction history (a hash of both pawn bitboards:
    no incremental pawn key, so make and perft pay nothing)."""
    return np.int64(mix64(pos[W_PAWN] ^ mix64(pos[B_PAWN])) & np.uint64(CORR_SIZE - 1))


@njit(cache=True, inline='always')
def corrected(s, pos, raw):
    """Correction history: the static evaluation moved by how far searches strayed from it in
    positions of the same pawn structure, by at most CORR_LIMIT^2 / CORR_DIV; never into the
    mate range."""
    cv = np.int64(s.corr[np.int64(pos[SIDE]), _pawn_index(pos)])
    c = cv * cv // CORR_DIV
    v = raw + (c if cv > 0 else -c)
    return min(max(v, -TB_WIN_IN_MAX + 1), TB_WIN_IN_MAX - 1)


@njit(cache=True, inline='always')
def update_correction(s, pos, depth, best, static):
    """Pull the pawn structure's entry toward best - static (a non-mate search result), with
    gravity: entries stay within +-CORR_LIMIT."""
    diff = (best - static) * depth
    bonus = diff // CORR_BONUS_DIV if diff >= 0 else -((-diff) // CORR_BONUS_DIV)
    bonus = min(max(bonus, -CORR_LIMIT // 4), CORR_LIMIT // 4)
    side = np.int64(pos[SIDE])
    i = _pawn_index(pos)
    e = np.int64(s.corr[side, i])
    e += bonus - e * abs(bonus) // CORR_LIMIT
    s.corr[side, i] = min(max(e, -CORR_LIMIT), CORR_LIMIT)


# -- node bookkeeping ----------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _enter(s, ply):
    """Count a node, track the selective depth, honour the node limit at once (`go nodes N`
    searches N nodes, as a fixed-node test expects) and, every 1024 nodes, stop requests
    from other threads; True when the search must unwind."""
    ctl = s.ctl
    n = ctl[C_NODES] + 1
    ctl[C_NODES] = n
    lim = ctl[C_NODE_LIMIT]
    if lim > 0 and n >= lim:
        ctl[C_ABORT] = 1
    if (n & POLL_MASK) == 0 and atomic_load(ctl, C_STOP) != 0:
        ctl[C_ABORT] = 1
    if ctl[C_ABORT]:
        return True
    if ply > ctl[C_SELDEPTH]:
        ctl[C_SELDEPTH] = ply
    return False


@njit(cache=True, _nrt=False)
def _tt_cuts(bound, score, alpha, beta):
    """Does a stored bound settle this window?"""
    return (bound == BOUND_EXACT or (bound == BOUND_LOWER and score >= beta)
            or (bound == BOUND_UPPER and score <= alpha))


@njit(cache=True, inline='always')
def _bound(best, beta, alpha, old_alpha):
    """The bound a finished node's score is."""
    if best >= beta:
        return BOUND_LOWER
    return BOUND_EXACT if alpha > old_alpha else BOUND_UPPER


@njit(cache=True, inline='always')
def _record_move(s, pos, ply, m):
    """Note on the per-ply stack the move about to be played from ply (before it is made);
    a null move has no piece (no continuation history follows it)."""
    e = s.stack[ply]
    e.move = m
    if m == NULL_MOVE:
        e.piece_to = NO_PIECE_TO
    else:
        e.piece_to = piece_to(pos, m)


@njit(cache=True, inline='always')
def _update_pv(s, ply, m):
    """m followed by the child's principal variation becomes this ply's."""
    row = s.pv[ply]
    child = s.pv[ply + 1]
    row[ply] = m
    n = s.stack[ply + 1].pv_len
    for k in range(ply + 1, n):
        row[k] = child[k]
    s.stack[ply].pv_len = max(n, ply + 1)


# -- quiescence ----------------------------------------------------------------------------
@njit(cache=True, inline='always')
def _qsearch_skips(MG, pos, m, order, stand, alpha):
    """Quiescence move filter: under-promotions, captures that lose material by SEE, and
    captures that cannot lift the score to alpha even winning the piece (delta pruning)."""
    if is_promotion(m):
        return promo_piece_type(m) != QUEEN
    if order < REFUTATION:
        return True
    victim = np.int64(pos[BOARD + move_to(m)])
    return victim != EMPTY and stand + SEE_VALUE[victim % 6] + MG[M_DELTA] <= alpha


@njit(cache=True, _nrt=False)
def qsearch(T, EV, pos, tt, st, alpha, beta, ply):
    """Quiescence: stand pat, then captures and queen promotions (SEE-pruned); all evasions
    when in check."""
    s = st[0]
    if _enter(s, ply):
        return 0
    if ply >= MAX_PLY - 1:
        return node_eval(T, EV, pos, s, ply)
    if insufficient_material(pos):
        return draw_score(s, pos)
    key = pos[KEY]
    hit, data = tt_probe(tt, key)
    tmove = 0
    if hit:
        tmove = tt_move(data)
        ts = tt_score(data, ply)
        if _tt_cuts(tt_bound(data), ts, alpha, beta):
            return ts
    # stand pat: the side to move may decline every capture (not when in check)
    chk = in_check(T, pos)
    raw = 0
    if chk:
        best = -MATE + ply
        stand = -INF
    else:
        raw = tt_eval(data) if hit else node_eval(T, EV, pos, s, ply)
        # the style's terms come after the correction (never stored, never learnt)
        stand = styled(s, pos, corrected(s, pos, raw))
        if stand >= beta:
            if not hit:
                tt_store(tt, key, 0, stand, raw, -1, BOUND_LOWER, s.ctl[C_AGE], ply)
            return stand
        if stand > alpha:
            alpha = stand
        best = stand
    n = generate(T, pos, s.moves[ply], FIRST_SLOT, not chk)
    score_moves(T, pos, s, ply, n, tmove)
    old_alpha = alpha
    best_move = 0
    for i in range(n):
        m = pick(s, ply, i, n)
        if not chk and _qsearch_skips(EV[2], pos, m, s.scores[ply, i], stand, alpha):
            continue
        do_move(T, EV, pos, s, ply, m)
        tt_prefetch(tt, pos[KEY])
        score = -qsearch(T, EV, pos, tt, st, -beta, -alpha, ply + 1)
        undo_move(T, pos, s, ply)
        if s.ctl[C_ABORT]:
            return 0
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                best_move = m
                if score >= beta:
                    break
    if chk and n == 0:
        return -MATE + ply
    tt_store(tt, key, best_move, best, raw, 0, _bound(best, beta, alpha, old_alpha),
             s.ctl[C_AGE], ply)
    return best


# -- the steps of a node -------------------------------------------------------------------
@njit(cache=True, inline='always')
def _tb_wdl(T, EV, pos, s, depth):
    """The Syzygy WDL (-2..2, side to move) of a node the search probes, else NO_TB: as
    Stockfish, only after a capture or a pawn move (the fifty-move counter at 0, where the
    tables' WDL is exact), without castling rights, with at most C_TB_LIMIT pieces (the
    largest tables only from C_TB_DEPTH on). EV[3] is the tables' meta (syzygy.py)."""
    limit = s.ctl[C_TB_LIMIT]
    if limit == 0 or np.int64(pos[HALFMOVE]) != 0 or pos[CASTLE] != U0:
        return NO_TB
    pieces = popcount(pos[OCC])
    if pieces > limit or (pieces == limit and depth < s.ctl[C_TB_DEPTH]):
        return NO_TB
    wdl = probe_wdl(T, pos, EV[3], s.tbbuf)
    if wdl <= TB_ERROR:
        return NO_TB
    s.ctl[C_TBHITS] += 1
    return wdl


@njit(cache=True, inline='always')
def _tb_score(s, pos, wdl, ply):
    """(score, bound) of a tablebase WDL at ply: wins and losses just inside the mate
    scores by distance from the root (TB_WIN - ply), proving a lower or an upper bound; with
    the fifty-move rule on, cursed wins and blessed losses are draws (+-2, as Stockfish);
    a draw gets the style's draw score, as a repetition does."""
    draw = s.ctl[C_TB_RULE50]
    if wdl < -draw:
        return -TB_WIN + ply, BOUND_UPPER
    if wdl > draw:
        return TB_WIN - ply, BOUND_LOWER
    return 2 * wdl * draw + draw_score(s, pos), BOUND_EXACT


@njit(cache=True, inline='always')
def _node_start(T, pos, s, ply, alpha, beta):
    """Node set-up: count the node, score draws (repetition, no mating material, fifty
    moves) and narrow the window by mate distance pruning. Returns (done, score, alpha,
    beta, in check); done says the node's score is known without a search."""
    if _enter(s, ply):
        return True, 0, alpha, beta, False
    if is_repetition(pos, ply) or insufficient_material(pos):
        return True, draw_score(s, pos), alpha, beta, False
    chk = in_check(T, pos)
    if np.int64(pos[HALFMOVE]) >= 100 and not chk:
        return True, draw_score(s, pos), alpha, beta, chk
    alpha = max(alpha, -MATE + ply)
    beta = min(beta, MATE - ply - 1)
    if alpha >= beta:
        return True, alpha, alpha, beta, chk
    return False, 0, alpha, beta, chk


@njit(cache=True, inline='always')
def _tt_step(tt, key, ply, depth, alpha, beta, pv_node, excluded):
    """Transposition table probe: (hit, data, hash move, cut, score); cut when a deep enough
    entry settles the window (never at PV nodes or in a singular verification search)."""
    hit, data = tt_probe(tt, key)
    tmove = tt_move(data) if hit else 0
    if hit and not pv_node and tt_depth(data) >= depth and excluded == 0:
        ts = tt_score(data, ply)
        if _tt_cuts(tt_bound(data), ts, alpha, beta):
            return hit, data, tmove, True, ts
    return hit, data, tmove, False, 0


@njit(cache=True, inline='always')
def _static_step(T, EV, pos, s, ply, chk, hit, data):
    """The node's static evaluation (the hash entry's when there is one; none in check) as
    stored (raw) and as the search uses it (corrected), and whether it improved on ours two
    plies ago; the corrected one is recorded on the per-ply stack."""
    improving = False
    static = -INF
    raw = 0
    if not chk:
        raw = tt_eval(data) if hit else node_eval(T, EV, pos, s, ply)
        # the style's terms come after the correction: the table keeps raw, and the
        # correction learns best - static with the terms on both sides (they cancel)
        static = styled(s, pos, corrected(s, pos, raw))
        improving = ply >= 2 and static > s.stack[ply - 2].static_eval
    s.stack[ply].static_eval = static
    return static, raw, improving


@njit(cache=True, inline='always')
def _quiet_check(T, pos, m, us, quiet, chk, depth, disc, disc_ready):
    """(gives check, disc, disc_ready) for a quiet move the pruning could drop: checks are
    never pruned. The discovered-check candidates are found once per node, when first asked."""
    if not (quiet and not chk and depth <= QUIET_PRUNE_DEPTH):
        return False, disc, disc_ready
    if not disc_ready:
        disc = discoverers(T, pos, us)
    return gives_check(T, pos, m, us, disc), disc, True


@njit(cache=True, inline='always')
def _has_pieces(pos, us):
    """Does the side have a piece other than pawns and king (null move and pruning guard)?"""
    b = us * 6
    return (pos[b + KNIGHT] | pos[b + BISHOP] | pos[b + ROOK] | pos[b + QUEEN]) != U0


@njit(cache=True, inline='always')
def _reverse_futility(MG, depth, static, beta, improving):
    """Reverse futility pruning: far above beta, a shallow search will not fall below it."""
    margin = MG[M_RFP] * (depth - (1 if improving else 0))
    return (depth <= RFP_MAX_DEPTH and static - margin >= beta
            and beta > -TB_WIN_IN_MAX and beta < TB_WIN_IN_MAX)


@njit(cache=True, inline='always')
def _null_move_r(MG, s, ply, depth, static, beta, non_pawn, us):
    """Null-move reduction (adaptive R), or 0 where no null move is tried: too shallow,
    below beta, pawns only (zugzwang), at the root, right after another null move, or by the
    side whose null move a verification search is confirming."""
    if (depth >= NMP_MIN_DEPTH and static >= beta and non_pawn and ply > 0
            and s.stack[ply - 1].move != 0
            and (ply >= s.ctl[C_NMP_MIN_PLY] or us != s.ctl[C_NMP_COLOR])):
        by_eval = min((static - beta) // MG[M_NMP_EVAL_DIV], NMP_EVAL_MAX_R)
        return MG[M_NMP_BASE_R] + depth // NMP_DEPTH_DIV + by_eval
    return 0


@njit(cache=True, inline='always')
def _probcut_tries(MG, depth, beta, hit, data, ply):
    """Is ProbCut worth trying here: deep enough, beta not a mate score, and no hash entry
    deep enough to say the shallow search would fail below the raised beta?"""
    if depth < PROBCUT_MIN_DEPTH or beta <= -TB_WIN_IN_MAX or beta + MG[M_PROBCUT] >= TB_WIN_IN_MAX:
        return False
    return not (hit and tt_depth(data) >= depth - PROBCUT_REDUCTION + 1
                and tt_score(data, ply) < beta + MG[M_PROBCUT])


@njit(cache=True, inline='always')
def _probcut(T, EV, pos, tt, st, depth, beta, static, raw, ply, key, cut_node):
    """ProbCut: a capture whose reduced search beats beta by a margin will very likely beat
    beta at full depth, so the node is cut. Captures that cannot win the margin by SEE are
    skipped; each is verified by quiescence first, then by the reduced search. Returns the
    reduced search's score (never a mate score) or -INF when nothing cut. Inlined: a cached
    function that calls back into negamax would be mutual recursion, which Numba's cache
    cannot load."""
    s = st[0]
    pbeta = beta + EV[2][M_PROBCUT]
    n = generate(T, pos, s.moves[ply], FIRST_SLOT, CAPTURES_ONLY)
    score_moves(T, pos, s, ply, n, 0)
    for i in range(n):
        m = pick(s, ply, i, n)
        if not is_capture(m) or not see_ge(T, pos, m, pbeta - static):
            continue
        _record_move(s, pos, ply, m)
        do_move(T, EV, pos, s, ply, m)
        score = -qsearch(T, EV, pos, tt, st, -pbeta, -pbeta + 1, ply + 1)
        if score >= pbeta:
            score = -negamax(T, EV, pos, tt, st, depth - PROBCUT_REDUCTION, -pbeta, -pbeta + 1,
                             ply + 1, 1 - cut_node)
        undo_move(T, pos, s, ply)
        if s.ctl[C_ABORT]:
            return 0
        if score >= pbeta and score < TB_WIN_IN_MAX:
            tt_store(tt, key, m, score, raw, depth - PROBCUT_REDUCTION + 1, BOUND_LOWER,
                     s.ctl[C_AGE], ply)
            return score
    return -INF


@njit(cache=True, inline='always')
def _singular_beta(MG, ply, depth, excluded, hit, data, tmove):
    """(True, singular beta) when the hash move is a candidate for a singular extension: a
    deep enough lower bound with a non-mate score; else (False, 0). When every move but the
    hash move fails low against the singular beta, the hash move is forced and searched a
    ply deeper; when even that reduced search beats beta, several moves do (multi-cut) and
    the node is cut."""
    if (ply > 0 and depth >= MG[M_SE_MIN_DEPTH] and excluded == 0 and hit and tmove != 0
            and (tt_bound(data) & BOUND_LOWER) and tt_depth(data) >= depth - SE_TT_DEPTH_SLACK):
        ts = tt_score(data, ply)
        if abs(ts) < TB_WIN_IN_MAX:
            return True, ts - MG[M_SE_PER_DEPTH] * depth
    return False, 0


@njit(cache=True, inline='always')
def _prunes_move(T, MG, pos, m, quiet, checks, order, chk, depth, improving, quiets, static,
                 alpha):
    """Move-loop pruning once a move has been searched: late-move and futility pruning of
    quiet moves that do not give check, SEE pruning of captures that are not good ones."""
    if quiet and not checks:
        if chk:
            return False
        # late move pruning
        if depth <= LMP_MAX_DEPTH and \
                quiets >= (MG[M_LMP_BASE] + depth * depth) // (1 if improving else 2):
            return True
        # futility pruning
        margin = MG[M_FUTILITY_BASE] + MG[M_FUTILITY_PER_DEPTH] * depth
        return depth <= FUTILITY_MAX_DEPTH and order < REFUTATION and static + margin <= alpha
    if not quiet:
        return (depth <= SEE_PRUNE_MAX_DEPTH and order < REFUTATION
                and not see_ge(T, pos, m, -MG[M_SEE_PRUNE] * depth))
    return False


@njit(cache=True, inline='always')
def _reduction(MG, s, depth, searched, new_depth, order, quiet, checks, pv_node, cut_node,
               improving):
    """Late-move reduction of a quiet move or a bad capture: the log(depth) * log(moves)
    table, more away from the PV, more again at an expected cut node (its first move should
    have cut: the rest matter less) and when not improving, less for checks, killers, the
    counter move and quiet moves with a good history."""
    if depth < LMR_MIN_DEPTH or searched < (LMR_MIN_MOVES_PV if pv_node else LMR_MIN_MOVES) \
            or not (quiet or order < 0 or (MG[M_LMR_CAPTURES] > 0 and not pv_node)):
        return 0
    r = s.lmr[min(depth, 63), min(searched, 63)]
    if not pv_node:
        r += 1
    if cut_node:
        r += CUT_NODE_R
    if not improving:
        r += 1
    if checks:
        r -= 1
    if order >= REFUTATION:
        r -= 1
    elif quiet:
        r -= order // MG[M_LMR_HISTORY_DIV]
    if r < 0:
        r = 0
    if r > new_depth - 1:
        r = new_depth - 1 if new_depth > 1 else 0
    return r


@njit(cache=True, _nrt=False)
def negamax(T, EV, pos, tt, st, depth, alpha, beta, ply, cut_node):
    """Principal variation search below the root. cut_node (0 or 1): a zero-window node
    expected to fail high. The root's zero-window children are; below the root a zero-window
    child is one when its parent is not (1 - cut_node, alternating down the tree), except the
    child of a reduced search, which is not (making it one, as Stockfish does, gained nothing
    in games)."""
    s = st[0]
    not_cut = np.int64(0)   # a typed flag, never a literal (see search_root)
    pv_node = beta - alpha > 1
    s.stack[ply].pv_len = ply
    if depth <= 0:
        return qsearch(T, EV, pos, tt, st, alpha, beta, ply)
    # -- node set-up: draws, mate distance pruning, the ply limit
    done, score, alpha, beta, chk = _node_start(T, pos, s, ply, alpha, beta)
    if done:
        return score
    if ply >= MAX_PLY - 2:
        return node_eval(T, EV, pos, s, ply)
    us = np.int64(pos[SIDE])
    # -- transposition table
    key = pos[KEY]
    excluded = s.stack[ply].excluded
    hit, data, tmove, tt_cut, score = _tt_step(tt, key, ply, depth, alpha, beta, pv_node,
                                               excluded)
    if tt_cut:
        # a table cut-off still teaches the history (Stockfish 15.1; TT_CUT_HISTORY): the
        # quiet hash move earns the cut-off's bonus when it fails high, a malus when it fails low
        if EV[2][M_TT_CUT_HISTORY] > 0 and tmove != 0 and is_quiet(tmove) \
                and owns_from_square(pos, us, tmove):
            bonus = history_bonus(EV[2], depth) * EV[2][M_TT_CUT_HISTORY] // 100
            if score >= beta:
                update_quiet_stats(s, pos, us, ply, bonus, tmove, not_cut, not_cut)
            else:
                history_update(s, pos, us, ply, tmove, -bonus)
        return score
    # -- Syzygy tables: a result that settles the window ends the node (stored as a deep
    # entry); at a PV node a win is a floor and a loss a ceiling of what the moves can give
    tb_floor = -INF
    tb_ceiling = INF
    if excluded == 0:
        wdl = _tb_wdl(T, EV, pos, s, depth)
        if wdl != NO_TB:
            value, tb_bound = _tb_score(s, pos, wdl, ply)
            if tb_bound == BOUND_EXACT or (value >= beta if tb_bound == BOUND_LOWER
                                           else value <= alpha):
                raw = 0 if chk else node_eval(T, EV, pos, s, ply)
                tt_store(tt, key, 0, value, raw, min(depth + TB_DEPTH_BONUS, MAX_PLY - 1),
                         tb_bound, s.ctl[C_AGE], ply)
                return value
            if pv_node:
                if tb_bound == BOUND_LOWER:
                    tb_floor = value
                    alpha = max(alpha, value)
                else:
                    tb_ceiling = value
    # -- static evaluation and whole-node pruning
    non_pawn = _has_pieces(pos, us)
    static, raw, improving = _static_step(T, EV, pos, s, ply, chk, hit, data)
    # the static evaluation's swing judges the opponent's quiet move (EVAL_SWING_MULT; the
    # root, ply 0, records no static evaluation: from ply 2 on)
    if EV[2][M_EVAL_SWING_MULT] > 0 and not chk and excluded == 0 and ply > 1 \
            and s.stack[ply - 1].static_eval != -INF:
        eval_swing_update(EV[2], s, ply, static)
    if not chk and not pv_node and excluded == 0:
        if _reverse_futility(EV[2], depth, static, beta, improving):
            return static
        r = _null_move_r(EV[2], s, ply, depth, static, beta, non_pawn, us)
        if r > 0:
            # null-move pruning: even passing keeps us above beta
            _record_move(s, pos, ply, NULL_MOVE)
            do_null(T, EV, pos, s, ply)
            score = -negamax(T, EV, pos, tt, st, depth - r, -beta, -beta + 1, ply + 1,
                              1 - cut_node)
            undo_null(T, pos, s, ply)
            if s.ctl[C_ABORT]:
                return 0
            if score >= beta:
                verify = EV[2][M_NMP_VERIFY_DEPTH]
                if verify == 0 or depth < verify or s.ctl[C_NMP_MIN_PLY] != 0:
                    return beta if score >= TB_WIN_IN_MAX else score
                # verification at high depth (Stockfish): this node searched depth - r deep,
                # with no null move of ours in the first 3/4 of its plies, must fail high too
                s.ctl[C_NMP_MIN_PLY] = ply + 3 * (depth - r) // 4
                s.ctl[C_NMP_COLOR] = us
                v = negamax(T, EV, pos, tt, st, depth - r, beta - 1, beta, ply, not_cut)
                s.ctl[C_NMP_MIN_PLY] = 0
                s.stack[ply].pv_len = ply
                if s.ctl[C_ABORT]:
                    return 0
                if v >= beta:
                    return beta if score >= TB_WIN_IN_MAX else score
        if _probcut_tries(EV[2], depth, beta, hit, data, ply):
            score = _probcut(T, EV, pos, tt, st, depth, beta, static, raw, ply, key, cut_node)
            if score != -INF:
                return score
    # -- internal iterative reduction
    if depth >= IIR_MIN_DEPTH and tmove == 0:
        depth -= 1
    # -- singular extension and multi-cut (see _singular_beta); run before this node's moves
    # are generated: the verification search uses this ply's move list
    singular = -1
    shallower = -1
    candidate, sbeta = _singular_beta(EV[2], ply, depth, excluded, hit, data, tmove)
    if candidate:
        s.stack[ply].excluded = tmove
        score = negamax(T, EV, pos, tt, st, (depth - 1) // 2, sbeta - 1, sbeta, ply, cut_node)
        s.stack[ply].excluded = 0
        s.stack[ply].pv_len = ply
        if s.ctl[C_ABORT]:
            return 0
        if score < sbeta:
            singular = tmove
        elif sbeta >= beta:
            return sbeta
        elif EV[2][M_NEG_EXTENSION] > 0 and tt_score(data, ply) >= beta:
            # negative extension (Stockfish 15.1): not singular, and its own score at or
            # above beta: the hash move is searched NEG_EXTENSION plies shallower
            shallower = tmove
    # -- the move loop
    n = generate(T, pos, s.moves[ply], FIRST_SLOT, ALL_MOVES)
    if n == 0:
        return -MATE + ply if chk else draw_score(s, pos)
    score_moves(T, pos, s, ply, n, tmove)
    best = tb_floor
    best_move = 0
    old_alpha = alpha
    searched = 0
    quiets = 0
    disc = U0
    disc_ready = False
    for i in range(n):
        m = pick(s, ply, i, n)
        quiet = is_quiet(m)
        order = s.scores[ply, i]
        if ply > 0 and best > -TB_WIN_IN_MAX and non_pawn and searched > 0:
            checks, disc, disc_ready = _quiet_check(T, pos, m, us, quiet, chk, depth, disc,
                                                    disc_ready)
            if _prunes_move(T, EV[2], pos, m, quiet, checks, order, chk, depth, improving, quiets,
                            static, alpha):
                continue
        if m == excluded:
            continue
        _record_move(s, pos, ply, m)
        do_move(T, EV, pos, s, ply, m)
        tt_prefetch(tt, pos[KEY])
        checks = in_check(T, pos)
        # check extension (from CHECK_EXT_MIN_DEPTH, where |static| >= CHECK_EXT_MIN_EVAL; in
        # check the static evaluation is -INF), singular extension, negative extension; with
        # the limit on, as in Stockfish's else-if, not for a hash move the singular test took
        extend = m == singular or (checks and depth >= EV[2][M_CHECK_EXT_MIN_DEPTH]
                                   and abs(static) >= EV[2][M_CHECK_EXT_MIN_EVAL]
                                   and not (candidate and m == tmove
                                            and EV[2][M_CHECK_EXT_MIN_DEPTH] > 0))
        new_depth = depth - 1 + (1 if extend else 0)
        if m == shallower:
            new_depth = depth - 1 - EV[2][M_NEG_EXTENSION]
        if searched == 0:
            score = -negamax(T, EV, pos, tt, st, new_depth, -beta, -alpha, ply + 1,
                             not_cut if pv_node else 1 - cut_node)
        else:
            r = _reduction(EV[2], s, depth, searched, new_depth, order, quiet, checks, pv_node,
                           cut_node, improving)
            score = -negamax(T, EV, pos, tt, st, new_depth - r, -alpha - 1, -alpha, ply + 1,
                             not_cut if r > 0 else 1 - cut_node)
            if score > alpha and r > 0:
                score = -negamax(T, EV, pos, tt, st, new_depth, -alpha - 1, -alpha, ply + 1,
                                 1 - cut_node)
            if score > alpha and score < beta:
                score = -negamax(T, EV, pos, tt, st, new_depth, -beta, -alpha, ply + 1,
                                 not_cut)
        undo_move(T, pos, s, ply)
        if s.ctl[C_ABORT]:
            return 0
        searched += 1
        if quiet:
            quiets += 1
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                best_move = m
                _update_pv(s, ply, m)
                if score >= beta:
                    if quiet:
                        update_quiet_stats(s, pos, us, ply, history_bonus(EV[2], depth), m, i,
                                           excluded)
                    break
    # -- the store
    if searched == 0:
        # every move was pruned or excluded (a fresh node always searches its first move)
        return alpha
    if excluded != 0:
        return best                  # a singular verification search: this node's entry stays
    # the quiet move that led here, which no reply refuted, earns continuation history
    # (Stockfish 15.1; PRIOR_FAIL_LOW), twice at PV and cut nodes and after a deep fail-low
    if EV[2][M_PRIOR_FAIL_LOW] > 0 and best <= old_alpha and ply > 0 \
            and (depth >= PRIOR_FAIL_LOW_DEPTH or pv_node):
        extra = pv_node or cut_node != 0 or best < old_alpha - PRIOR_FAIL_LOW_MARGIN * depth
        bonus = history_bonus(EV[2], depth) * EV[2][M_PRIOR_FAIL_LOW] // 100
        prior_move_bonus(s, ply, bonus * (2 if extra else 1))
    best = min(best, tb_ceiling)
    bound = _bound(best, beta, alpha, old_alpha)
    # correction history learns from quiet (or no) best moves whose bound says which side of
    # the static evaluation the truth lies; mate scores teach it nothing
    if (not chk and abs(best) < TB_WIN_IN_MAX
            and (best_move == 0 or is_quiet(best_move))
            and not (bound == BOUND_LOWER and best <= static)
            and not (bound == BOUND_UPPER and best >= static)):
        update_correction(s, pos, depth, best, static)
    tt_store(tt, key, best_move, best, raw, depth, bound, s.ctl[C_AGE], ply)
    return best


@njit(cache=True, nogil=True, _nrt=False)
def search_root(T, EV, pos, tt, st, depth, alpha, beta):
    """Search the root moves s.root_moves[pv_idx:] (earlier ones belong to earlier MultiPV
    lines) inside (alpha, beta); records the best move found so far for an interrupted
    iteration. The root's accumulators (s.acc[0]) are deepen's to build: nothing below the
    root writes them. Releases the GIL so the UCI thread keeps reading stdin."""
    s = st[0]
    ctl = s.ctl
    s.stack[0].pv_len = 0
    n = ctl[C_ROOT_N]
    first = ctl[C_PV_IDX]
    best = -INF
    old_alpha = alpha
    # a typed ply, never a literal: a literal argument to a cached recursive function makes a
    # second specialisation that crashes the next process on cache load (numba issue 6713)
    root_ply = np.int64(0)
    child_ply = np.int64(1)
    cut = np.int64(1)
    not_cut = np.int64(0)
    for i in range(first, n):
        m = s.root_moves[i]
        ctl[C_CURRMOVE] = m
        ctl[C_CURRNUM] = i + 1
        nodes_before = ctl[C_NODES]
        _record_move(s, pos, root_ply, m)
        do_move(T, EV, pos, s, root_ply, m)
        checks = in_check(T, pos)
        new_depth = depth - 1 + (1 if checks else 0)
        if i == first:
            score = -negamax(T, EV, pos, tt, st, new_depth, -beta, -alpha, child_ply, not_cut)
        else:
            r = 0
            quiet = is_quiet(m)
            # late-move reductions at the root: half the table's, quiet non-checking moves
            if depth >= LMR_MIN_DEPTH and i - first >= ROOT_LMR_MIN_MOVES and quiet \
                    and not checks:
                r = s.lmr[min(depth, 63), min(i - first, 63)] // 2
            score = -negamax(T, EV, pos, tt, st, new_depth - r, -alpha - 1, -alpha, child_ply,
                             cut)
            if score > alpha and r > 0:
                score = -negamax(T, EV, pos, tt, st, new_depth, -alpha - 1, -alpha, child_ply,
                                 cut)
            if score > alpha and score < beta:
                score = -negamax(T, EV, pos, tt, st, new_depth, -beta, -alpha, child_ply,
                                 not_cut)
        undo_move(T, pos, s, root_ply)
        s.root_nodes[i] += ctl[C_NODES] - nodes_before
        if first == 0:      # node-share time: the first line's (MultiPV's others shrink it)
            s.root_effort[move_from_to(m)] += ctl[C_NODES] - nodes_before
        if ctl[C_ABORT]:
            break
        ctl[C_ROOT_DONE] = i - first + 1
        if score > best:
            best = score
            if score > alpha:
                # move the new best to the front of this line's moves, keeping the rest in order
                for k in range(i, first, -1):
                    s.root_moves[k] = s.root_moves[k - 1]
                    s.root_nodes[k] = s.root_nodes[k - 1]
                s.root_moves[first] = m
                s.root_nodes[first] = 0
                alpha = score
                _update_pv(s, root_ply, m)
                ctl[C_BEST_MOVE] = m
                ctl[C_BEST_SCORE] = score
                if score >= beta:
                    break
    if not ctl[C_ABORT] and first == 0:
        tt_store(tt, pos[KEY], s.root_moves[first], best, 0, depth,
                 _bound(best, beta, alpha, old_alpha), ctl[C_AGE], 0)
    return best


@njit(cache=True, _nrt=False)
def first_window(depth, prev):
    """An iteration's first aspiration window (alpha, beta, delta) around the previous
    iteration's score: the full window while shallow or near a mate score."""
    delta = np.int64(ASPIRATION_DELTA)
    if depth >= ASPIRATION_MIN_DEPTH and abs(prev) < TB_WIN_IN_MAX:
        return max(prev - delta, -INF), min(prev + delta, INF), delta
    return np.int64(-INF), np.int64(INF), delta


@njit(cache=True, _nrt=False)
def next_window(score, alpha, beta, delta):
    """The window (alpha, beta, delta) after a search that failed low or high: wider on the
    failed side (a fail low also pulls beta down to the middle), the full window once the
    half-width passes ASPIRATION_GIVE_UP."""
    if score <= alpha:
        beta = (alpha + beta) // 2
        alpha = max(score - delta, -INF)
    else:
        beta = min(score + delta, INF)
    delta += delta // 2 + 5
    if delta > ASPIRATION_GIVE_UP:
        return np.int64(-INF), np.int64(INF), delta
    return alpha, beta, delta


@njit(cache=True, _nrt=False)
def _rank_line(s, lo, k):
    """MultiPV ranking after each line, as Stockfish's stable_sort of the lines searched so
    far: line k (its score, PV, root move and subtree count) moves up past every line from
    lo on that scores below it, so the lines stay ordered by score, equal scores in search
    order. Returns line k's new index."""
    j = k
    while j > lo and s.line_prev[j - 1] < s.line_prev[j]:
        s.line_prev[j - 1], s.line_prev[j] = s.line_prev[j], s.line_prev[j - 1]
        s.root_moves[j - 1], s.root_moves[j] = s.root_moves[j], s.root_moves[j - 1]
        s.root_nodes[j - 1], s.root_nodes[j] = s.root_nodes[j], s.root_nodes[j - 1]
        a = s.line_len[j - 1]
        b = s.line_len[j]
        for i in range(max(a, b)):
            s.line_pv[j - 1, i], s.line_pv[j, i] = s.line_pv[j, i], s.line_pv[j - 1, i]
        s.line_len[j - 1] = b
        s.line_len[j] = a
        j -= 1
    return j


# What deepen returns.
ITER_DONE, ITER_STOPPED, ITER_ABORTED, ITER_FAILED = range(4)


@njit(cache=True, _nrt=False)
def _reorder_root(s, n, multipv, groups_n):
    """Next iteration's root order: the MultiPV bests, then the rest by subtree size, within
    each rank group of a root in the tables (a stable insertion sort: equal subtrees keep
    their order)."""
    start = 0
    for g in range(max(groups_n, 1)):
        end = s.groups[g] if groups_n > 0 else n
        a = max(start, multipv)
        for i in range(a + 1, end):
            m = s.root_moves[i]
            c = s.root_nodes[i]
            j = i
            while j > a and s.root_nodes[j - 1] < c:
                s.root_moves[j] = s.root_moves[j - 1]
                s.root_nodes[j] = s.root_nodes[j - 1]
                j -= 1
            s.root_moves[j] = m
            s.root_nodes[j] = c
        start = end
    for i in range(n):
        s.root_nodes[i] = 0


@njit(cache=True, nogil=True, _nrt=False)
def deepen(T, EV, pos, tt, st, first, last):
    """Iterative deepening with aspiration windows, the loop every search thread runs, from
    depth `first` to `last` over the root moves and settings in its control words: MultiPV
    lines (each searched after the ones before it, within its rank group when the root is in
    the tables), the depths a helper's skip pattern keeps, the node limit (the main thread's
    first iteration always ends, as Stockfish's depth 1, so that `go nodes 1` answers with a
    move and a score). After each completed iteration every line's score and PV are in
    s.line_*, the result (best move, score) in C_RESULT_*; an interrupted iteration counts
    only if its first move (the previous best) was searched completely. The main thread's
    driver (engine.py) runs it one depth at a time to report and keep time; a search nobody
    watches, and each helper, runs it whole. Returns ITER_DONE, ITER_STOPPED (the stop
    request, after an iteration), ITER_ABORTED (inside one) or ITER_FAILED (a failed window
    to report, C_REPORT_FAILS set: call again, C_RESUME goes on with the next window)."""
    s = st[0]
    ctl = s.ctl
    n = ctl[C_ROOT_TOTAL]
    multipv = max(np.int64(1), min(ctl[C_MULTIPV], n))
    skip_size = ctl[C_SKIP_SIZE]
    main = skip_size == 0
    groups_n = ctl[C_GROUPS_N]
    node_limit = ctl[C_NODE_LIMIT]
    # the root's accumulators, once a call: every window searches from them unchanged
    refresh_root(EV, pos, s, np.int64(0))
    for depth in range(first, last + 1):
        if not main and depth > 1 and ((depth + ctl[C_SKIP_PHASE]) // skip_size) % 2 == 1:
            continue
        if main and depth == 1:
            ctl[C_NODE_LIMIT] = 0
        k0 = ctl[C_PV_IDX] if ctl[C_RESUME] != 0 else 0
        for k in range(k0, multipv):
            ctl[C_PV_IDX] = k
            lo = 0
            if groups_n > 0:
                # a root in the tables: line k searches within its rank group only
                g = 0
                while s.groups[g] <= k:
                    g += 1
                ctl[C_ROOT_N] = s.groups[g]
                lo = s.groups[g - 1] if g > 0 else 0
            if ctl[C_RESUME] != 0:
                alpha, beta, delta = ctl[C_WIN_ALPHA], ctl[C_WIN_BETA], ctl[C_WIN_DELTA]
                ctl[C_RESUME] = 0
            else:
                ctl[C_ROOT_DONE] = 0
                alpha, beta, delta = first_window(np.int64(depth), s.line_prev[k])
            while True:
                sc = search_root(T, EV, pos, tt, st, np.int64(depth), alpha, beta)
                if ctl[C_ABORT] or alpha < sc < beta:
                    break
                low = sc <= alpha
                alpha, beta, delta = next_window(sc, alpha, beta, delta)
                if main and atomic_load(ctl, C_REPORT_FAILS) != 0:
                    ctl[C_FAIL_SCORE] = sc
                    ctl[C_FAIL_LOW] = 1 if low else 0
                    ctl[C_WIN_ALPHA], ctl[C_WIN_BETA], ctl[C_WIN_DELTA] = alpha, beta, delta
                    ctl[C_RESUME] = 1
                    ctl[C_NODE_LIMIT] = node_limit
                    return ITER_FAILED
            if ctl[C_ABORT]:
                if main and k == 0 and ctl[C_ROOT_DONE] > 0 and ctl[C_BEST_MOVE] != 0:
                    ctl[C_RESULT_MOVE] = ctl[C_BEST_MOVE]
                    ctl[C_RESULT_SCORE] = ctl[C_BEST_SCORE]
                ctl[C_NODE_LIMIT] = node_limit
                return ITER_ABORTED
            s.line_prev[k] = sc
            pv_n = s.stack[0].pv_len
            s.line_len[k] = pv_n
            for i in range(pv_n):
                s.line_pv[k, i] = s.pv[0, i]
            # lines ranked by score within the search, so every reader gets them in order
            if _rank_line(s, lo, k) == 0 and main:
                ctl[C_RESULT_MOVE] = s.line_pv[0, 0] if s.line_len[0] > 0 else s.root_moves[0]
                ctl[C_RESULT_SCORE] = s.line_prev[0]
        ctl[C_NODE_LIMIT] = node_limit
        _reorder_root(s, n, multipv, groups_n if main else 0)
        if atomic_load(ctl, C_STOP) != 0:
            return ITER_STOPPED
    return ITER_DONE
