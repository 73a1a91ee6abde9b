"""The search state: one numpy record (a structured array of length 1) per search thread.

Compiled code receives the array ``st`` and reads ``s = st[0]``; every part has a name:

    s.ctl[C_*]       control words shared with the Python driver (stop flag, node counts,
                     the root move being searched, the best move of an interrupted iteration)
    s.history        butterfly history [side][move_from_to of the move]
    s.counter        counter move [move_from_to of the previous move]
    s.corr           correction history [side][pawn-structure index] (search.py)
    s.cont           continuation history [piece_square(piece, to) of an earlier move][that of
                     the move]
    s.lmr            late-move reduction table [depth][moves searched]
    s.moves/scores   the move list and ordering keys of each ply [ply][i]
    s.pv             triangular principal-variation table [ply][ply..]
    s.root_moves     the root move list (MultiPV order) and nodes spent below each
    s.line_*         each MultiPV line's score and PV, for the driver's reports
    s.stack[ply]     the per-ply record (PLY_RECORD): what the search knows at that ply
    s.acc[ply]       the network's accumulators at that ply, both perspectives (NNUE)
    s.finny_*        the refresh cache of a perspective's king buckets (nnue.refresh_cached)

A record is one pointer for Numba (a tuple of a dozen arrays measured six times slower per
recursive call), caches like any array, and can be created once per thread. The UCI thread
writes ``ctl[C_STOP]``; the search reads it with ``atomic_load`` so LLVM cannot hoist the read
out of a loop.
"""
import math

import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from black_numba.board.move import FROM_TO_SIZE, PIECE_SQUARE_SIZE
from black_numba.board.movegen import MAX_MOVES, MAX_PLY
from black_numba.evaluation.nnue import CACHE_SLOTS, MAX_HIDDEN
from black_numba.search.params import CORR_SIZE, LMR_BASE, LMR_DIVISOR
from black_numba.tablebase.tbprobe import BUF_SIZE as TB_BUF_SIZE

# Control words (s.ctl).
C_STOP, C_ABORT, C_NODES, C_NODE_LIMIT, C_SELDEPTH, C_AGE, C_PV_IDX, C_ROOT_N, C_BEST_MOVE, \
    C_BEST_SCORE, C_ROOT_DONE, C_CURRMOVE, C_CURRNUM = range(13)
# Syzygy probing in the search: tablebase hits, and the settings of this search (the largest
# piece count probed, 0 for none; the least depth a node of that many pieces is probed at;
# whether the fifty-move rule turns cursed wins and blessed losses into draws).
C_TBHITS, C_TB_LIMIT, C_TB_DEPTH, C_TB_RULE50 = range(13, 17)
# The iterative deepening (search.deepen) each thread runs: the root moves in all (C_ROOT_N
# is the current line's share), MultiPV lines, the thread's depth-skip pattern (size 0: the
# main thread, which searches every depth), the rank groups of a root in the tables, the
# result so far (a completed iteration's first line, or an interrupted iteration's best), and
# a failed aspiration window handed to the driver for a report (C_REPORT_FAILS set) with the
# next window kept for C_RESUME.
C_ROOT_TOTAL, C_MULTIPV, C_SKIP_SIZE, C_SKIP_PHASE, C_GROUPS_N, C_RESULT_MOVE, \
    C_RESULT_SCORE, C_REPORT_FAILS, C_FAIL_SCORE, C_WIN_ALPHA, C_WIN_BETA, C_WIN_DELTA, \
    C_RESUME, C_FAIL_LOW = range(17, 31)
# The playing style (style.py), from the root side's view, set for every thread of a search:
# the evaluation terms in force (style.TERM_* bits, 0: none), the root's side to move and
# its material balance (style.material_balance), and the contempt (centipawns a draw costs
# the root side: the draw score is -contempt where the root side moves, +contempt elsewhere).
C_STYLE_TERMS, C_ROOT_SIDE, C_ROOT_MATERIAL, C_CONTEMPT = range(31, 35)
# Null-move verification (params.NMP_VERIFY_DEPTH): no null move for the verifying side
# (C_NMP_COLOR) below this ply while a verification search runs (0: none runs); its opponent
# may still pass (Stockfish's nmpMinPly and nmpColor).
C_NMP_MIN_PLY = 35
C_NMP_COLOR = 36
N_CONTROL = 40
NO_PIECE_TO = -1          # stack piece_to of a null move (no continuation history)

# What the search keeps for each ply (the network's accumulators are s.acc[ply]).
PLY_RECORD = np.dtype([
    ("static_eval", np.int64),   # the node's static evaluation ("improving" reads ply - 2)
    ("move", np.int64),          # the move played from this ply (0: the null move)
    ("piece_to", np.int64),      # piece_square(piece, to) of that move (continuation history)
    ("excluded", np.int64),      # move left out by a singular-extension verification search
    ("killers", np.int64, (2,)),
    ("pv_len", np.int64),        # end of this ply's row of the PV table
])

STATE = np.dtype([
    ("ctl", np.int64, (N_CONTROL,)),
    ("history", np.int64, (2, FROM_TO_SIZE)),
    ("counter", np.int64, (FROM_TO_SIZE,)),
    # |value| <= HIST_MAX + 1 (gravity): int16 is 1.2 MB a thread
    ("cont", np.int16, (PIECE_SQUARE_SIZE, PIECE_SQUARE_SIZE)),
    ("corr", np.int16, (2, CORR_SIZE)),     # |value| <= CORR_LIMIT
    ("lmr", np.int64, (64, 64)),
    ("moves", np.int64, (MAX_PLY, MAX_MOVES)),
    ("scores", np.int64, (MAX_PLY, MAX_MOVES)),
    ("pv", np.int64, (MAX_PLY, MAX_PLY)),
    ("root_moves", np.int64, (MAX_MOVES,)),
    ("root_nodes", np.int64, (MAX_MOVES,)),
    ("stack", PLY_RECORD, (MAX_PLY,)),
    ("acc", np.int16, (MAX_PLY + 1, 2, MAX_HIDDEN)),   # 512 KB a thread
    ("finny_acc", np.int16, (2, CACHE_SLOTS, MAX_HIDDEN)),   # 128 KB a thread
    ("finny_bb", np.uint64, (2, CACHE_SLOTS, 12)),
    ("finny_ok", np.int64, (2, CACHE_SLOTS)),       # 0: an empty slot (emptied each search)
    ("tbbuf", np.int64, (TB_BUF_SIZE,)),    # the Syzygy probes' scratch (tbprobe.new_buffer)
    # the iterative deepening's own (search.deepen), after the search's hot fields
    ("groups", np.int64, (MAX_MOVES,)),     # ends of the root's rank groups (tables)
    ("line_prev", np.int64, (MAX_MOVES,)),  # each MultiPV line's last score (its next window)
    ("line_pv", np.int64, (MAX_MOVES, MAX_PLY)),   # each line's PV in the last iteration
    ("line_len", np.int64, (MAX_MOVES,)),
    ("root_effort", np.int64, (FROM_TO_SIZE,)),    # a search's nodes under each root move
])

# Heuristics that ucinewgame forgets.
HEURISTICS = ("history", "counter", "cont", "corr")


def new_state():
    """A fresh search state with the late-move reduction table filled in."""
    st = np.zeros(1, dtype=STATE)
    lmr = st[0]["lmr"]
    for d in range(1, 64):
        for m in range(1, 64):
            lmr[d, m] = int(LMR_BASE + math.log(d) * math.log(m) / LMR_DIVISOR)
    return st


def clear_heuristics(st):
    """Forget history, continuation history, correction history, counter moves and the whole
    per-ply stack, killers included (ucinewgame): quiescence plays its moves without recording
    them, so evasions there are ordered by the continuation rows of moves an earlier game left
    on the stack."""
    s = st[0]
    for name in HEURISTICS:
        s[name][...] = 0
    s["stack"][...] = 0


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
