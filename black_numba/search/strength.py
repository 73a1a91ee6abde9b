"""Strength levels: `UCI_LimitStrength` + `UCI_Elo` and `Skill Level`, as Stockfish names them.

One scale, the skill level, a real number from 0 (weakest) to 20 (full strength); `UCI_Elo`
maps onto it through ELO_LEVELS (piecewise linear, read from strength_table.json, which
`black-numba calibrate` fits), `Skill Level` is it. Which wins: with `UCI_LimitStrength` on,
`UCI_Elo` sets the level and `Skill Level` is not read (Stockfish's rule); with it off,
`Skill Level` below 20 sets the level. A real level the calibration plays is set through the
option `Calibration Level` (hundredths of a level), offered only with BLACK_NUMBA_CALIBRATE=1
in the engine's environment; it wins over both.

A level below 20 weakens the search in three ways (docs/architecture.md#strength-levels):
- Depth: at most 1 + floor(level) plies (Stockfish picks its move at that depth).
- Nodes: at most NODES_AT_ZERO * 2 ** (level * NODES_DOUBLINGS_PER_LEVEL) a move, or `go
  nodes` when smaller; nodes, unlike time, weaken alike at any clock.
- Randomised choice among SKILL_LINES MultiPV lines, after Stockfish's Skill::pick_best:
  every line's score gains weakness * (top - score) / 128 (a deterministic pull toward worse
  moves) plus delta * r / 128, r uniform in [0, weakness), weakness = min(120 - 2 * level,
  15 * (20 - level)) (Stockfish's 120 - 2 * level, fading to 0 at level 20 so that the top
  levels join full strength instead of stopping about 500 Elo below it),
  delta = min(top - worst line, a pawn); the highest total is played.

The top blend: from BLEND_FROM to 20 the handicap fades into full strength, so that the
strongest limited UCI_Elo plays about as full strength does instead of some 400 Elo below it
(four lines within a node budget cost that much at 10+0.1: docs/results.md). Over
the blend's fraction f = (level - BLEND_FROM) / (20 - BLEND_FROM) the node budget gains
BLEND_DOUBLINGS doublings (the clock then limits, as at full strength) and the lines drop
from SKILL_LINES to one (ceil(SKILL_LINES * (1 - f))); the weakness is near 0 there anyway.
At or below BLEND_FROM nothing changes: the levels the calibration measured there stand.

The random numbers are seeded by the position's Zobrist key and the level, so a level plays
the same move in the same position and state (reproducible tests); games still vary, as the
table and histories differ. Plain Python: the UCI layer imports it before compiled code.
"""
import json
import math
import os
import random
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

SKILL_MAX = 20                   # full strength
ELO_MIN = 1350                   # Stockfish's UCI_Elo minimum
TABLE_FORMAT = 1
# UCI_Elo -> skill level: the table `black-numba calibrate` fits from games against Stockfish
# 15.1 at each label (calibration.py), shipped in the package with its stamp (the network's
# weights hash, the bench signature, the date, the game records it was fitted on);
# docs/architecture.md#strength-levels. No fallback: the engine's levels are the file's.
TABLE_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "strength_table.json")
STAMP_KEYS = ("fitted", "network", "bench", "date", "logs")


class StrengthTableError(RuntimeError):
    """The strength table is missing or malformed."""


def load_table(path: str = TABLE_FILE) -> dict:
    """The strength table of a JSON file, checked: {"elo_levels": ((elo, level), ...) with
    both rising strictly and the last point (elo_max, 20), "elo_max", "stamp"}.
    StrengthTableError saying what is wrong otherwise."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise StrengthTableError(f"strength table {path}: cannot read it ({e}); reinstall the "
                                 f"package or write one with `black-numba calibrate`") from None

    def bad(why):
        return StrengthTableError(f"strength table {path}: {why}")
    if not isinstance(data, dict) or data.get("format") != TABLE_FORMAT:
        raise bad(f"not a format {TABLE_FORMAT} table")
    try:
        points = tuple((int(e), float(lv)) for e, lv in data["elo_levels"])
        elo_max = int(data["elo_max"])
        stamp = dict(data["stamp"])
    except (KeyError, TypeError, ValueError) as e:
        raise bad(f"malformed ({type(e).__name__}: {e})") from None
    if len(points) < 2:
        raise bad("fewer than two points")
    if any(e1 <= e0 or l1 <= l0 for (e0, l0), (e1, l1) in zip(points, points[1:])):
        raise bad("the points must rise in both Elo and level")
    if points[0][1] < 0 or points[-1] != (elo_max, float(SKILL_MAX)):
        raise bad(f"levels must lie in 0..{SKILL_MAX} and the last point be (elo_max, "
                  f"{SKILL_MAX})")
    if elo_max <= ELO_MIN:
        raise bad(f"elo_max {elo_max} is not above {ELO_MIN}")
    missing = [k for k in STAMP_KEYS if k not in stamp]
    if missing:
        raise bad(f"the stamp lacks {', '.join(missing)}")
    return {"elo_levels": points, "elo_max": elo_max, "stamp": stamp,
            "fit": data.get("fit")}


TABLE = load_table()
ELO_LEVELS = TABLE["elo_levels"]
# The top of UCI_Elo: full strength as measured (the table's last point, level 20)
ELO_MAX = TABLE["elo_max"]
STAMP = TABLE["stamp"]
# The calibration's real levels (calibration.py): a hidden spin option in hundredths of a level
CALIBRATE_ENV = "BLACK_NUMBA_CALIBRATE"
LEVEL_OPTION = "Calibration Level"
LEVEL_SCALE = 100
LEVEL_OFF = -1                   # the option's default: not set
SKILL_LINES = 4                  # MultiPV lines the choice is made among (Stockfish: 4)
DEPTH_AT_ZERO = 1                # depth cap: 1 + floor(level), as Stockfish
NODES_AT_ZERO = 1024             # node budget a move at level 0
NODES_DOUBLINGS_PER_LEVEL = 0.4  # 1,024 nodes at level 0, 200,000 at level 19
WEAKNESS_AT_ZERO = 120           # Stockfish's weakness = 120 - 2 * level
WEAKNESS_PER_LEVEL = 2
WEAKNESS_FADE = 15               # weakness at most 15 * (20 - level): Stockfish's below 13.7
PAWN = 100                       # cap on the random term's scale (centipawns)
# The top blend into full strength (see above). BLEND_FROM is the highest level calibrated
# with the plain handicap (its games played levels up to 19.51), so they stand.
BLEND_FROM = 19.51
BLEND_DOUBLINGS = 4              # x16 nodes at level 20: ~4 M, beyond a 10+0.1 move's


def level_at(points: Sequence[Tuple[int, float]], elo: float) -> float:
    """The level rising (elo, level) points give elo, piecewise linear, clamped at their ends."""
    if elo <= points[0][0]:
        return points[0][1]
    for (e0, l0), (e1, l1) in zip(points, points[1:]):
        if elo <= e1:
            return l0 + (l1 - l0) * (elo - e0) / (e1 - e0)
    return points[-1][1]


def level_of_elo(elo: int) -> float:
    """The skill level UCI_Elo maps to (ELO_LEVELS' first level .. 20)."""
    return level_at(ELO_LEVELS, elo)


def elo_of_level(level: float) -> int:
    """The UCI_Elo a skill level stands for (the inverse mapping)."""
    pts = ELO_LEVELS
    for (e0, l0), (e1, l1) in zip(pts, pts[1:]):
        if level <= l1:
            return round(e0 + (e1 - e0) * (max(level, l0) - l0) / (l1 - l0))
    return pts[-1][0]


def level_from_options(limit_strength: bool, uci_elo: int, skill_level: int,
                       exact: int = LEVEL_OFF) -> Optional[float]:
    """The level in force, or None at full strength: `Calibration Level` (exact, hundredths)
    when set, else UCI_LimitStrength on means UCI_Elo, else Skill Level."""
    if exact != LEVEL_OFF:
        level = exact / LEVEL_SCALE
    else:
        level = level_of_elo(uci_elo) if limit_strength else float(skill_level)
    return level if level < SKILL_MAX else None


@dataclass(frozen=True)
class Handicap:
    """What a level changes in one search."""
    level: float

    @property
    def blend(self) -> float:
        """How far into the top blend the level is: 0 at BLEND_FROM and below, 1 at 20."""
        return min(max((self.level - BLEND_FROM) / (SKILL_MAX - BLEND_FROM), 0.0), 1.0)

    @property
    def node_budget(self) -> int:
        return int(NODES_AT_ZERO * 2 ** (self.level * NODES_DOUBLINGS_PER_LEVEL
                                         + BLEND_DOUBLINGS * self.blend))

    @property
    def lines(self) -> int:
        """MultiPV lines the choice is made among: SKILL_LINES, fewer in the top blend."""
        return max(1, math.ceil(SKILL_LINES * (1.0 - self.blend)))

    @property
    def weakness(self) -> float:
        return min(WEAKNESS_AT_ZERO - WEAKNESS_PER_LEVEL * self.level,
                   WEAKNESS_FADE * (SKILL_MAX - self.level))

    @property
    def depth_cap(self) -> int:
        return DEPTH_AT_ZERO + int(self.level)

    def nodes(self, asked: Optional[int]) -> int:
        """A move's node limit: the level's budget, or `go nodes` when that is smaller."""
        return min(self.node_budget, asked) if asked else self.node_budget

    def depth(self, asked: Optional[int]) -> int:
        """A move's depth limit: the level's cap, or `go depth` when that is smaller."""
        return min(self.depth_cap, asked) if asked else self.depth_cap

    def multipv(self, asked: int) -> int:
        return max(asked, self.lines)

    def rng(self, key: int) -> random.Random:
        return random.Random(f"{key}-{self.level!r}")

    def pick(self, lines: Sequence[Tuple[int, int]], rng: random.Random) -> int:
        """The index of the line to play among (move, score) lines, best first."""
        if not lines:
            raise ValueError("no lines to choose from")
        lines = lines[:self.lines]
        top = lines[0][1]
        delta = min(top - lines[-1][1], PAWN)
        weakness = self.weakness
        best_i, best_total = 0, None
        for i, (_, score) in enumerate(lines):
            push = (weakness * (top - score) + delta * rng.random() * weakness) / 128
            total = score + push
            if best_total is None or total >= best_total:
                best_i, best_total = i, total
        return best_i


def handicap(limit_strength: bool, uci_elo: int, skill_level: int,
             exact: int = LEVEL_OFF) -> Optional[Handicap]:
    level = level_from_options(limit_strength, uci_elo, skill_level, exact)
    return None if level is None else Handicap(level)
