"""Playing styles (the `Style` option): Normal, Aggressive and Hustler, from the root side's
view, never the side to move's (Stockfish's dynamic contempt broke analysis and the hash table
where it was not: pull requests 1369, 3575). docs/style.md#styles states every formula.

A style is data in each thread's search state (state.py's C_STYLE_TERMS, C_ROOT_SIDE,
C_ROOT_MATERIAL, C_CONTEMPT), never module globals (frozen into the Numba cache): one compiled
specialisation serves every style, and Normal (no terms, contempt 0) searches exactly as
before. Two mechanisms:

- A draw score (contempt, Stockfish's and Lc0's word): a draw is worth -contempt to the root
  side, for repetitions, the fifty-move rule, dead positions, stalemate and tablebase draws.
- Evaluation terms added after the correction history, as the correction is (so the table's
  stored static evaluation is never styled): a sacrifice bonus (after Patricia's) while the
  root side has given up material since the root and is not losing, and a material scaling
  of the root side's advantage that makes trading down cost (Patricia's, one-sided).

The search scores (and `info score`) are biased accordingly; the table holds styled search
scores, so it is cleared when the style or the root side changes (driver.Searcher).

Plain Python (the UCI layer declares the option before compiled code loads); the compiled
half is styleterms.py.
"""
from dataclasses import dataclass

STYLES = ("Normal", "Aggressive", "Hustler")
NORMAL_STYLE, AGGRESSIVE_STYLE, HUSTLER_STYLE = STYLES

# Evaluation terms (bits of C_STYLE_TERMS).
TERM_SACRIFICE = 1
TERM_SCALE = 2

# Material counted for the terms (centipawns: pawn, knight, bishop, rook, queen), as
# Patricia's material_eval; the full board is FULL_MATERIAL.
MATERIAL = (100, 300, 300, 500, 900)
FULL_MATERIAL = 2 * (8 * 100 + 2 * 300 + 2 * 300 + 2 * 500 + 900)     # 7,800
# Material scaling: the root side's advantage is multiplied by SCALE_ENDGAME/1024 on a bare
# board rising linearly to SCALE_FULL/1024 with all the material (a lead of 100 is worth 106
# with everything on, 78 with kings and pawns): trading down while ahead costs.
SCALE_ENDGAME = 800
SCALE_FULL = 1088
SCALE_ONE = 1024
# Sacrifice bonus: the root side has SAC_MIN_DEFICIT or more material less than at the root,
# after its own move (the opponent to move: a recapture still pending is not a sacrifice),
# with at least SAC_MIN_MATERIAL on the board and an evaluation (root side's view) of at
# least SAC_EVAL_FLOOR: SAC_BONUS_BASE + SAC_BONUS_PER_PAWN per pawn unit given, at most
# SAC_BONUS_MAX, doubled when clearly better (SAC_CLEARLY_BETTER, as Patricia's 2x).
SAC_MIN_DEFICIT = 100
SAC_MIN_MATERIAL = 3200
SAC_EVAL_FLOOR = -50
SAC_BONUS_BASE = 20
SAC_BONUS_PER_PAWN = 8
SAC_BONUS_MAX = 60
SAC_CLEARLY_BETTER = 200

# The options' ranges: Contempt in centipawns (Stockfish 11's -100..100), Rating in Elo.
CONTEMPT_MAX = 100
RATING_MAX = 4000
# Automatic contempt (centipawns a draw costs the root side; the `Contempt` option overrides).
AGGRESSIVE_CONTEMPT = 20
# Hustler: contempt from the rating gap (our rating - the opponent's, Elo), zero for a gap of
# zero or less: HUSTLER_CP_PER_100_ELO per 100 Elo, at most HUSTLER_MAX_CONTEMPT; when the
# clock trigger fires (timeman.hurry) at least HUSTLER_CLOCK_CONTEMPT, with material scaling.
HUSTLER_CP_PER_100_ELO = 10
HUSTLER_MAX_CONTEMPT = 100
HUSTLER_CLOCK_CONTEMPT = 30
# `black-numba bench --style Hustler` has no opponent: it assumes one this much weaker.
BENCH_HUSTLER_GAP = 400


@dataclass(frozen=True)
class StyleSettings:
    """What one search plays for: evaluation terms (TERM_* bits), contempt (centipawns a
    draw costs the root side) and hurry (the Hustler's clock trigger: less time a move)."""
    terms: int = 0
    contempt: int = 0
    hurry: bool = False

    @property
    def active(self):
        """Does anything root-dependent enter the search (the table must then be cleared when
        the root side changes)?"""
        return self.terms != 0 or self.contempt != 0


NORMAL = StyleSettings()


def canonical(name):
    """The style called `name` (any case), or ValueError."""
    for s in STYLES:
        if s.lower() == str(name).lower():
            return s
    raise ValueError(f"style must be one of {', '.join(STYLES)}, got {name!r}")


def hustler_contempt(our_rating, opponent_rating):
    """Contempt (centipawns) from the rating gap: HUSTLER_CP_PER_100_ELO per 100 Elo we are
    rated above the opponent, at most HUSTLER_MAX_CONTEMPT, 0 for a gap <= 0 or an unknown
    rating."""
    if our_rating is None or opponent_rating is None:
        return 0
    gap = int(our_rating) - int(opponent_rating)
    if gap <= 0:
        return 0
    return min(gap * HUSTLER_CP_PER_100_ELO // 100, HUSTLER_MAX_CONTEMPT)


def settings(style, contempt=0, our_rating=None, opponent_rating=None, analyse=False,
             hurry=False):
    """The StyleSettings of a search: `style` (a STYLES name), the `Contempt` option (0: the
    style's automatic value, else it overrides), our rating and the opponent's (Hustler),
    UCI_AnalyseMode (every style off: analysis is objective) and the clock trigger
    (timeman.hurry; read by Hustler only)."""
    style = canonical(style)
    if analyse:
        return NORMAL
    terms = 0
    auto = 0
    hurry = bool(hurry) and style == HUSTLER_STYLE
    if style == AGGRESSIVE_STYLE:
        terms = TERM_SACRIFICE | TERM_SCALE
        auto = AGGRESSIVE_CONTEMPT
    elif style == HUSTLER_STYLE:
        auto = hustler_contempt(our_rating, opponent_rating)
        if hurry:
            terms = TERM_SCALE
            auto = max(auto, HUSTLER_CLOCK_CONTEMPT)
    return StyleSettings(terms, int(contempt) if contempt else auto, hurry)


def material_balance(pos, side):
    """(material of `side` minus its opponent's, material of both) in MATERIAL's values, of a
    position array (its words 0-4 White's pawn..queen bitboards, 6-10 Black's). Python: read
    once a search, at the root."""
    white = sum(bin(int(pos[p])).count("1") * v for p, v in enumerate(MATERIAL))
    black = sum(bin(int(pos[6 + p])).count("1") * v for p, v in enumerate(MATERIAL))
    return (white - black if side == 0 else black - white), white + black
