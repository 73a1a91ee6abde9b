"""Every tunable number of the search, in one place (as Ethereal's search.h keeps its margins).

Numba reads module-level integers as compile-time constants, so naming them costs nothing at
run time; a tuner (SPSA) can change them here. Depths are in plies, margins in centipawns.
The move-ordering score bands live with the move picker (``movepick.py``).

The numbers SPSA tunes (``TUNE``) are not compile-time constants: the search receives them as
an array, ``margins()``, indexed by the ``M_*`` names below (read at run time, so a tuner can
change them without a compile). Both evaluations search with the same numbers: the network's
scores are calibrated to the tapered evaluation's win probabilities, and the margins measured
within about 10% of each other (docs/results.md); a number gets a value per evaluation only
where games show that an evaluation needs its own.
"""
import numpy as np

from black_numba.search.timeman import NODE_TM  # noqa: F401 (a TUNE switch: margins() reads it)

# Iterative deepening and aspiration windows (the Python driver, engine.py).
MAX_DEPTH = 100                 # deepest iteration
ASPIRATION_MIN_DEPTH = 4        # shallower iterations search the full window
ASPIRATION_DELTA = 20           # first half-width around the previous score
ASPIRATION_GIVE_UP = 800        # past this half-width, search the full window
ASPIRATION_REPORT_AFTER = 1.0   # seconds: from then on failed windows are reported
SINGLE_REPLY_DEPTH = 6          # one legal move: search this deep for a score, then answer
PV_EXTEND_PLIES = 8             # a PV cut short by a TT hit is extended to this with hash moves
SOFT_STOP_FRACTION = 0.7        # no new iteration past this share of the scaled soft limit

# Lazy SMP: helper i skips depth d when ((d + SMP_SKIP_PHASE[j]) // SMP_SKIP_SIZE[j]) is odd,
# j = (i - 1) % 20, so helpers spread over the depths around the main thread's (Stockfish 9's
# skip blocks).
SMP_SKIP_SIZE = (1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4)
SMP_SKIP_PHASE = (0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7)

# Reverse futility pruning: far above beta, a shallow search will not fall below it.
RFP_MAX_DEPTH = 8
RFP_MARGIN = 80                 # per ply of depth (one ply less when improving)

# Null-move pruning, R = NMP_BASE_R + depth / NMP_DEPTH_DIV + min((eval - beta) / ..., ...).
NMP_MIN_DEPTH = 3
NMP_BASE_R = 3
NMP_DEPTH_DIV = 3
NMP_EVAL_DIV = 200
NMP_EVAL_MAX_R = 3
# Verification from this depth (Stockfish 15.1: 14): a null move that fails high is
# confirmed by the node's own search depth - R deep, with no null move by its side in the
# first 3/4 of its plies; 0: off.
NMP_VERIFY_DEPTH = 0

# ProbCut: a capture whose search PROBCUT_REDUCTION plies shallower beats beta + margin cuts.
PROBCUT_MIN_DEPTH = 5
PROBCUT_REDUCTION = 4
PROBCUT_MARGIN = 100

# Material scaling of the network's score, as Stockfish 15.1's evaluate() scaled its network
# (nnue x (1064 + 106 x npm / 5120) / 1024: 0.76 of the full board's scale with pawns alone):
# the score x the scale in 1024ths, from EVAL_SCALE_BARE with kings and pawns alone to
# EVAL_SCALE_FULL with every piece (evaluation/endgame.py's values); 1024 and 1024: off.
# Our level endgames are scored too far from 0: 780 brings the network's scores nearest
# Stockfish's on positions from other engines' games; shipped with the network 0ece2822.
EVAL_SCALE_BARE = 780
EVAL_SCALE_FULL = 1024

# Internal iterative reduction: a node without a hash move was never searched well.
IIR_MIN_DEPTH = 4

# Singular extensions with multi-cut.
SE_MIN_DEPTH = 7
SE_TT_DEPTH_SLACK = 3           # the hash entry may be this much shallower than the node
SE_MARGIN_PER_DEPTH = 2         # singular beta = hash score - this * depth
# Negative extension (Stockfish 15.1: 2): a hash move that is not singular but whose own
# score is at or above beta is searched this many plies shallower; 0: off.
NEG_EXTENSION = 0
# Check extension only from this depth and where |static evaluation| >= CHECK_EXT_MIN_EVAL
# (Stockfish 15.1: depth > 9, about 40 cp), and then not for a hash move the singular test
# took (Stockfish's else-if); 0 and 0: every check is extended.
CHECK_EXT_MIN_DEPTH = 0
CHECK_EXT_MIN_EVAL = 0

# Late-move pruning: quiet moves after (LMP_BASE + depth^2) / (2, or 1 when improving).
LMP_MAX_DEPTH = 8
LMP_BASE = 3

# Futility pruning of quiet moves: static eval + margin cannot reach alpha.
FUTILITY_MAX_DEPTH = 6
FUTILITY_BASE = 100
FUTILITY_PER_DEPTH = 90

# SEE pruning of captures below the good-capture band: lose more than this per ply of depth.
SEE_PRUNE_MAX_DEPTH = 6
SEE_PRUNE_PER_DEPTH = 90

# Late-move reductions: table 0.75 + log(depth) * log(moves) / 2.25, adjusted per move.
LMR_MIN_DEPTH = 3
LMR_MIN_MOVES_PV = 3            # moves searched before reducing, at PV nodes
LMR_MIN_MOVES = 1               # and elsewhere
LMR_BASE = 0.75
LMR_DIVISOR = 2.25
CUT_NODE_R = 1                  # more at an expected cut node (Stockfish: cutNode)
LMR_HISTORY_DIV = 6000          # a quiet move's ordering score / this lowers its reduction
ROOT_LMR_MIN_MOVES = 3          # root: quiet non-checking moves from the fourth on, half R
LMR_CAPTURES = 0                # 1: good captures too, off PV nodes (Stockfish); 0: off

# Quiescence: delta pruning, even winning the victim cannot lift the score to alpha.
DELTA_MARGIN = 200

# History heuristics (butterfly, continuation) with gravity.
HIST_MAX = 16384                # values saturate smoothly at +-HIST_MAX
HIST_BONUS_PER_DEPTH = 300      # bonus = min(300 * depth - 250, 1500)
HIST_BONUS_OFFSET = 250
HIST_BONUS_MAX = 1500
# Stockfish 15.1's further history updates, each off at 0 (candidates of their own screens,
# switched on by their TUNE spin: Stockfish's values in the comments):
# - a table cut-off's quiet hash move: the cut-off's bonus (fail high) or malus (fail low),
#   times TT_CUT_HISTORY / 100 (100);
# - the opponent's quiet move by the swing of the static evaluation it caused: bonus =
#   -EVAL_SWING_MULT x (its parent's static + ours), within +-EVAL_SWING_MAX (19);
# - the quiet move whose replies all failed low (depth >= PRIOR_FAIL_LOW_DEPTH or a PV node):
#   the cut-off bonus x PRIOR_FAIL_LOW / 100 (100), doubled at PV and cut nodes and
#   PRIOR_FAIL_LOW_MARGIN x depth below alpha
TT_CUT_HISTORY = 0
EVAL_SWING_MULT = 0
EVAL_SWING_MAX = 1914
PRIOR_FAIL_LOW = 0
PRIOR_FAIL_LOW_DEPTH = 5
PRIOR_FAIL_LOW_MARGIN = 30

# Correction history (Stockfish 16's form): per side and pawn structure, how far searches
# strayed from the static evaluation; the evaluation moves by entry * |entry| / CORR_DIV.
CORR_SIZE = 16384               # entries per side, indexed by a hash of the pawn bitboards
CORR_LIMIT = 1024               # entries saturate smoothly at +-CORR_LIMIT (gravity)
CORR_DIV = 16384                # so the correction is at most 64 cp
CORR_BONUS_DIV = 8              # bonus = (search - static) * depth / 8, at most CORR_LIMIT / 4

# SPSA (arena/spsa.py) tunes these: name -> (lowest, highest, the final perturbation c).
# The search reads them at run time from ``margins()``, in this order (the M_* indices). With
# BLACK_NUMBA_TUNE=1 in its environment the engine offers each as a spin option `Tune NAME`.
TUNE = {
    "RFP_MARGIN": (40, 160, 8),
    "NMP_EVAL_DIV": (100, 400, 20),
    "SE_MARGIN_PER_DEPTH": (1, 6, 0.5),
    "FUTILITY_BASE": (30, 250, 10),
    "FUTILITY_PER_DEPTH": (40, 200, 8),
    "DELTA_MARGIN": (50, 400, 15),
    "NMP_BASE_R": (2, 5, 0.5),
    "LMP_BASE": (1, 8, 0.5),
    "SEE_PRUNE_PER_DEPTH": (30, 200, 8),
    "LMR_HISTORY_DIV": (2000, 16000, 500),
    "HIST_BONUS_PER_DEPTH": (100, 600, 25),
    "HIST_BONUS_MAX": (500, 4000, 150),
    "PROBCUT_MARGIN": (40, 250, 10),
    "EVAL_SCALE_BARE": (512, 1024, 32),
    "EVAL_SCALE_FULL": (1024, 1536, 32),
    "TT_CUT_HISTORY": (0, 200, 10),
    "EVAL_SWING_MULT": (0, 100, 4),
    "PRIOR_FAIL_LOW": (0, 200, 10),
    "SE_MIN_DEPTH": (4, 10, 1),
    "NEG_EXTENSION": (0, 3, 1),
    "CHECK_EXT_MIN_DEPTH": (0, 12, 1),
    "CHECK_EXT_MIN_EVAL": (0, 100, 5),
    "NMP_VERIFY_DEPTH": (0, 20, 1),
    "LMR_CAPTURES": (0, 1, 0.5),
    "NODE_TM": (0, 1, 0.5),
}
# The candidate items off at 0 (Stockfish 15.1's, screened one by one): SPSA tunes them only
# when named, since any step away from 0 switches an item on.
SWITCHES = ("TT_CUT_HISTORY", "EVAL_SWING_MULT", "PRIOR_FAIL_LOW", "NEG_EXTENSION",
            "CHECK_EXT_MIN_DEPTH", "CHECK_EXT_MIN_EVAL", "NMP_VERIFY_DEPTH", "LMR_CAPTURES",
            "NODE_TM")
SPSA_DEFAULT = tuple(name for name in TUNE if name not in SWITCHES)
(M_RFP, M_NMP_EVAL_DIV, M_SE_PER_DEPTH, M_FUTILITY_BASE, M_FUTILITY_PER_DEPTH, M_DELTA,
 M_NMP_BASE_R, M_LMP_BASE, M_SEE_PRUNE, M_LMR_HISTORY_DIV, M_HIST_BONUS_PER_DEPTH,
 M_HIST_BONUS_MAX, M_PROBCUT, M_EVAL_SCALE_BARE, M_EVAL_SCALE_FULL, M_TT_CUT_HISTORY,
 M_EVAL_SWING_MULT, M_PRIOR_FAIL_LOW, M_SE_MIN_DEPTH, M_NEG_EXTENSION, M_CHECK_EXT_MIN_DEPTH,
 M_CHECK_EXT_MIN_EVAL, M_NMP_VERIFY_DEPTH, M_LMR_CAPTURES, M_NODE_TM) = range(len(TUNE))


def margins(tuned=None):
    """The TUNE numbers as the search reads them (by M_* index); tuned (name -> value)
    replaces some of them (SPSA)."""
    tuned = tuned or {}
    return np.array([tuned.get(name, globals()[name]) for name in TUNE], np.int64)
