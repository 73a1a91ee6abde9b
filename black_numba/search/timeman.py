"""Time allocation from the UCI clock: a soft limit (start no new iteration past it, scaled by
the stability of the best move) and a hard limit (the search is stopped there)."""

CLOCK_SHARE = 20            # sudden death: spend about 1/20 of the clock per move
INC_SHARE = 0.8             # and this much of the increment
MAX_MOVES_TO_GO = 50
LAST_MOVE_SHARE = 0.7       # one move to the time control: use this much of the clock
SOFT_CAP = 0.35             # the soft limit never exceeds this share of the clock
HARD_PER_SOFT = 4           # the hard limit is this many soft shares
HARD_CAP = 0.7              # and never more than this share of the clock
UNSTABLE_PER_CHANGE = 0.5   # soft limit +50% per best-move change (up to MAX_CHANGES)
MAX_CHANGES = 3
DROP_MIN = 20               # a score drop of more than this many centipawns
DROP_FULL = 150             # doubles the soft limit at this drop
STABLE_ITERATIONS = 4       # the best move held this many iterations:
STABLE_FACTOR = 0.75        # think this much shorter
MAX_FACTOR = 3.0
# Time by the best move's node share (Ethereal's rule; Stockfish's nodesEffort), off at
# NODE_TM 0: from iteration NODE_TM_MIN_DEPTH the soft limit is scaled by max(NODE_FACTOR_MIN,
# NODE_SHARE_BASE + NODE_SHARE_SCALE x the share of the search's nodes spent on moves other
# than the best), divided by the running mean of that factor over the game (NODE_TM_PRIOR
# iterations of 1 to start), so that the mean time a move stays the same: H12 used the raw
# factor, which averages below 1, spent less time and lost. Not for mate scores.
NODE_TM = 0
NODE_TM_MIN_DEPTH = 8
NODE_SHARE_BASE = 0.4
NODE_SHARE_SCALE = 2.0
NODE_FACTOR_MIN = 0.5
NODE_TM_PRIOR = 8
# The opening ramp (Stockfish's allocation grows with the game's ply, too): the base share is
# OPENING_FLOOR of the usual at each side's first move and grows evenly, move by move, to the
# whole of it at OPENING_MOVES, so a player's first replies come quickly and the time saved
# goes to the middlegame, where the clock share then finds more left.
OPENING_FLOOR = 0.07
OPENING_MOVES = 12
OPENING_PLIES = 2 * OPENING_MOVES
# The middlegame lever ("Middlegame Time", in percent; 100 leaves the allocation as it is): the
# sudden-death share is that much of the usual from MIDDLEGAME_FROM to MIDDLEGAME_TO moves
# and falls back evenly to the usual by MIDDLEGAME_END, so a clock that games end with
# unspent (docs/search.md) goes to the moves that decide them.
MIDDLEGAME_FROM = OPENING_MOVES
MIDDLEGAME_TO = 30
MIDDLEGAME_END = 55
# The Hustler's clock trigger (hurry): the opponent has less than HURRY_OPPONENT_SHARE of our
# time left, in a fast game: our clock plus FAST_GAME_INCREMENTS increments (lichess's
# estimate of a game's length) under FAST_GAME_MS. Then the soft limit is HURRY_TIME_SHARE of
# the usual (the hard limit stays, so an iteration that must finish can), and at least
# HURRY_MIN_DEPTH iterations complete before the soft limit may end the search.
HURRY_OPPONENT_SHARE = 0.5
FAST_GAME_MS = 180_000
FAST_GAME_INCREMENTS = 40
HURRY_TIME_SHARE = 0.5
HURRY_MIN_DEPTH = 6


def opening_ramp(ply):
    """The share of the usual time a move at the game's ply gets (1 from OPENING_PLIES on):
    by the move number, so both sides' first moves get OPENING_FLOOR."""
    moves = min(max(ply, 0) // 2, OPENING_MOVES)
    return OPENING_FLOOR + (1 - OPENING_FLOOR) * moves / OPENING_MOVES


def middlegame_share(ply, percent):
    """The share of the usual time a move at the game's ply gets from the middlegame lever
    (percent: the "Middlegame Time" option): by the move number, like opening_ramp."""
    moves = max(ply, 0) // 2
    scale = percent / 100
    if moves < MIDDLEGAME_FROM or moves >= MIDDLEGAME_END:
        return 1.0
    if moves <= MIDDLEGAME_TO:
        return scale
    return scale + (1 - scale) * (moves - MIDDLEGAME_TO) / (MIDDLEGAME_END - MIDDLEGAME_TO)


def allocate(limits, white_to_move, overhead_ms=30, ply=OPENING_PLIES, middlegame=100):
    """(soft_ms, hard_ms) for this move (limits: a Limits) at the game's ply (0: White's
    first move), or (None, None) when the clock does not limit us. middlegame: the
    middlegame lever's percent (sudden death only)."""
    movetime = limits.movetime
    if movetime is not None:
        # a fixed time per move is used in full: no soft limit, the timer stops the search
        return None, max(1, movetime - overhead_ms)
    clock, inc = limits.clock(white_to_move)
    if clock is None:
        return None, None
    # each move costs the move overhead on top of the thinking time, so only the increment
    # net of it is ours to spend; an increment below the overhead would drain the clock
    inc = max(0, (inc or 0) - overhead_ms)
    mtg = limits.movestogo
    remaining = max(1, clock - overhead_ms)
    if mtg:
        mtg = max(1, min(mtg, MAX_MOVES_TO_GO))
        base = remaining / (mtg + 1) + inc * INC_SHARE if mtg > 1 else remaining * LAST_MOVE_SHARE
    else:
        # sudden death: spend about a twentieth of the clock (and most of the increment); the
        # share shrinks with the clock, so the clock itself is never run down
        base = ((remaining / CLOCK_SHARE + inc * INC_SHARE) * opening_ramp(ply)
                * middlegame_share(ply, middlegame))
    soft = min(base, remaining * SOFT_CAP)
    hard = min(base * HARD_PER_SOFT, remaining * HARD_CAP)
    soft = max(1, soft)
    hard = max(soft, hard)
    return soft, hard


def stability_factor(best_changes, score_drop, stable_iterations):
    """Scale for the soft limit: think longer when the best move changes or the score falls,
    shorter when the best move has held for several iterations."""
    f = 1.0 + UNSTABLE_PER_CHANGE * min(best_changes, MAX_CHANGES)
    if score_drop > DROP_MIN:
        f *= 1.0 + min(score_drop, DROP_FULL) / DROP_FULL
    if stable_iterations >= STABLE_ITERATIONS:
        f *= STABLE_FACTOR
    return min(f, MAX_FACTOR)


def node_factor(best_share):
    """The raw node-share factor: near NODE_FACTOR_MIN when the best move took almost all
    the nodes (nothing else competes), above 1 when the others took more than 30%."""
    return max(NODE_FACTOR_MIN, NODE_SHARE_BASE + NODE_SHARE_SCALE * (1.0 - best_share))


class NodeShareMean:
    """The running mean of node_factor over a game's iterations (NODE_TM_PRIOR of 1 to
    start); scale() is a factor over that mean, so the mean time a move is kept."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.total = float(NODE_TM_PRIOR)
        self.count = NODE_TM_PRIOR

    def scale(self, best_share):
        f = node_factor(best_share)
        self.total += f
        self.count += 1
        return f * self.count / self.total


def hurry(limits, white_to_move):
    """The Hustler's clock trigger: both clocks known (no movetime), the opponent's below
    HURRY_OPPONENT_SHARE of ours, and ours + FAST_GAME_INCREMENTS * our increment below
    FAST_GAME_MS."""
    if limits.movetime is not None:
        return False
    ours, inc = limits.clock(white_to_move)
    theirs, _ = limits.clock(not white_to_move)
    if ours is None or theirs is None:
        return False
    return (theirs < ours * HURRY_OPPONENT_SHARE
            and ours + FAST_GAME_INCREMENTS * (inc or 0) < FAST_GAME_MS)
