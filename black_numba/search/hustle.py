"""The Hustler's root move choice against a weaker human: among the root moves
nearly as good as the best, play the one that leaves the opponent the most ways to go wrong.

After the main search, a small objective searcher of its own (its own table: the main one
keeps the style's scores) spends at most HUSTLE_SHARE of the main search's nodes:
- a MultiPV search of the root (HUSTLE_CANDIDATES lines, a third of the budget) finds the
  candidates, the moves within `margin(gap)` of the best line; with fewer than two, or when
  the main search's move is not among them, or near a mate, the main move stands;
- for each candidate, a MultiPV search of every reply (the rest of the budget, shared) counts
  the replies that score at least HUSTLE_ERROR below the opponent's best reply: its ways to
  go wrong. The candidate with the most is played (ties: the better candidate).
Nodes, not time, bound it, so it is reproducible; the probe runs at the main search's speed,
so it takes at most about HUSTLE_SHARE / (1 + HUSTLE_SHARE) of the move's time.
"""
import numpy as np

from black_numba.board.movegen import legal_moves
from black_numba.board.position import TABLES, make_move, unmake_move
from black_numba.search.limits import Limits
from black_numba.search.tt import TB_WIN_IN_MAX

HUSTLE_SHARE = 0.15             # at most this share of the main search's nodes
HUSTLE_MIN_NODES = 3000         # a smaller budget makes no choice (too shallow to trust)
HUSTLE_CANDIDATES = 4           # root lines compared
HUSTLE_MARGIN_BASE = 10         # cp a candidate may trail the best by, with a gap of 0 ...
HUSTLE_MARGIN_PER_100_ELO = 5   # ... plus this per 100 Elo we are rated above the opponent
HUSTLE_MARGIN_MAX = 50
HUSTLE_ERROR = 100              # cp below the opponent's best reply: a way to go wrong
HUSTLE_HASH_MB = 4              # the probe's own table


def margin(gap):
    """Centipawns a candidate may trail the best line by, growing with the rating gap."""
    return min(HUSTLE_MARGIN_BASE + max(0, int(gap)) * HUSTLE_MARGIN_PER_100_ELO // 100,
               HUSTLE_MARGIN_MAX)


def ways_to_go_wrong(probe, pos, nodes):
    """(replies of the side to move at pos scoring HUSTLE_ERROR or more below its best
    reply, legal replies), by a MultiPV search of every reply within `nodes`."""
    n = len(legal_moves(pos))
    if n < 2:
        return 0, n
    probe.prepare()
    probe.search(pos, Limits(nodes=max(1, int(nodes))), multipv=n)
    scores = [sc for sc, _ in probe.last_lines]
    if not scores:
        return 0, n
    best = scores[0]
    return sum(1 for sc in scores if sc <= best - HUSTLE_ERROR), n


def choose(probe, pos, best, budget, gap):
    """(move, ponder move or None, score or None, candidates, traps per candidate): the move
    to play instead of the main search's `best` (itself when no choice is made; score None
    then), spending at most `budget` nodes of the searcher `probe`."""
    if budget < HUSTLE_MIN_NODES:
        return best, None, None, [], []
    probe.prepare()
    probe.search(pos, Limits(nodes=budget // 3), multipv=HUSTLE_CANDIDATES)
    lines = [(sc, pv) for sc, pv in probe.last_lines if pv]
    if len(lines) < 2 or abs(lines[0][0]) >= TB_WIN_IN_MAX:
        return best, None, None, [], []
    top = lines[0][0]
    cands = [(sc, pv) for sc, pv in lines if sc >= top - margin(gap)]
    if len(cands) < 2 or best not in [pv[0] for _, pv in cands]:
        return best, None, None, [pv[0] for _, pv in cands], []
    per = (budget - budget // 3) // len(cands)
    traps = []
    for _, pv in cands:
        make_move(TABLES, pos, np.int64(pv[0]))
        try:
            traps.append(ways_to_go_wrong(probe, pos, per)[0])
        finally:
            unmake_move(TABLES, pos)
    i = max(range(len(cands)), key=lambda k: (traps[k], -k))
    sc, pv = cands[i]
    return pv[0], (pv[1] if len(pv) > 1 else None), sc, [p[0] for _, p in cands], traps
