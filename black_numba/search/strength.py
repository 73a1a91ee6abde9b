"""Strength levels: `UCI_LimitStrength` + `UCI_Elo` and `Skill Level`, as Stockfish names them.

One scale, the skill level, a real number from 0 (weakest) to 20 (full strength); `UCI_Elo`
maps onto it through ELO_LEVELS (piecewise linear), `Skill Level` is it. Which wins: with
`UCI_LimitStrength` on, `UCI_Elo` sets the level and `Skill Level` is not read (Stockfish's
rule); with it off, `Skill Level` below 20 sets the level.

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

The random numbers are seeded by the position's Zobrist key and the level, so a level plays
the same move in the same position and state (reproducible tests); games still vary, as the
table and histories differ. Plain Python: the UCI layer imports it before compiled code.
"""
import random
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

SKILL_MAX = 20                   # full strength
ELO_MIN = 1350                   # Stockfish's UCI_Elo minimum
# The engine's own level on Stockfish 15.1's UCI_Elo scale at 10+0.1 from the 2-move openings
# (2026-11-24, ce73817, network 384d585c: 50% against UCI_Elo 2400 over 42 games, run S1 in
# bench/results/RUNS.md; 46cc2f2b had 43% over 200 games there, and 32% over 100 unseen
# openings, docs/results.md)
ELO_MAX = 2400
# UCI_Elo -> skill level, piecewise linear; each label's level comes from games against
# Stockfish 15.1 at that UCI_Elo (10+0.1, runs L1-L6, docs/results.md#strength-levels):
# against 1500, level 2.86 scored 7% and 8.57 44.5% (kept); against 1900, 13.65 scored 22%
# and 16.91 79% (42 games), so 1900 is placed at 15.30 between them; against 2200, 18.24
# scored 23% (44 games) and 19.14 29.5%, so 2200 sits at 19.51, nearer full strength.
# Stockfish's levels spread wider against this engine than their labels say, so points
# measured against one label do not place another. Skill Level below 6.67 plays under
# UCI_Elo 1350, Stockfish's minimum.
ELO_LEVELS = ((1050, 2.86), (1500, 8.57), (1900, 15.30), (2200, 19.51), (ELO_MAX, float(SKILL_MAX)))
SKILL_LINES = 4                  # MultiPV lines the choice is made among (Stockfish: 4)
DEPTH_AT_ZERO = 1                # depth cap: 1 + floor(level), as Stockfish
NODES_AT_ZERO = 1024             # node budget a move at level 0
NODES_DOUBLINGS_PER_LEVEL = 0.4  # 1,024 nodes at level 0, 200,000 at level 19
WEAKNESS_AT_ZERO = 120           # Stockfish's weakness = 120 - 2 * level
WEAKNESS_PER_LEVEL = 2
WEAKNESS_FADE = 15               # weakness at most 15 * (20 - level): Stockfish's below 13.7
PAWN = 100                       # cap on the random term's scale (centipawns)


def level_of_elo(elo: int) -> float:
    """The skill level UCI_Elo maps to (ELO_LEVELS' first level .. 20)."""
    pts = ELO_LEVELS
    if elo <= pts[0][0]:
        return pts[0][1]
    for (e0, l0), (e1, l1) in zip(pts, pts[1:]):
        if elo <= e1:
            return l0 + (l1 - l0) * (elo - e0) / (e1 - e0)
    return pts[-1][1]


def elo_of_level(level: float) -> int:
    """The UCI_Elo a skill level stands for (the inverse mapping)."""
    pts = ELO_LEVELS
    for (e0, l0), (e1, l1) in zip(pts, pts[1:]):
        if level <= l1:
            return round(e0 + (e1 - e0) * (max(level, l0) - l0) / (l1 - l0))
    return pts[-1][0]


def level_from_options(limit_strength: bool, uci_elo: int, skill_level: int) -> Optional[float]:
    """The level in force, or None at full strength: UCI_LimitStrength on means UCI_Elo,
    else Skill Level."""
    level = level_of_elo(uci_elo) if limit_strength else float(skill_level)
    return level if level < SKILL_MAX else None


@dataclass(frozen=True)
class Handicap:
    """What a level changes in one search."""
    level: float

    @property
    def node_budget(self) -> int:
        return int(NODES_AT_ZERO * 2 ** (self.level * NODES_DOUBLINGS_PER_LEVEL))

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
        return max(asked, SKILL_LINES)

    def rng(self, key: int) -> random.Random:
        return random.Random(f"{key}-{self.level!r}")

    def pick(self, lines: Sequence[Tuple[int, int]], rng: random.Random) -> int:
        """The index of the line to play among (move, score) lines, best first."""
        if not lines:
            raise ValueError("no lines to choose from")
        lines = lines[:SKILL_LINES]
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


def handicap(limit_strength: bool, uci_elo: int, skill_level: int) -> Optional[Handicap]:
    level = level_from_options(limit_strength, uci_elo, skill_level)
    return None if level is None else Handicap(level)
