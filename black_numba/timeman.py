"""Time allocation from the UCI clock: a soft limit (start no new iteration past it, scaled by
the stability of the best move) and a hard limit (the search is stopped there)."""


def allocate(limits, white_to_move, overhead_ms=30):
    """(soft_ms, hard_ms) for this move, or (None, None) when the clock does not limit us."""
    movetime = limits.get("movetime")
    if movetime is not None:
        # a fixed time per move is used in full: no soft limit, the timer stops the search
        return None, max(1, movetime - overhead_ms)
    clock = limits.get("wtime" if white_to_move else "btime")
    if clock is None:
        return None, None
    inc = limits.get("winc" if white_to_move else "binc") or 0
    mtg = limits.get("movestogo")
    remaining = max(1, clock - overhead_ms)
    if mtg:
        mtg = max(1, min(mtg, 50))
        base = remaining / (mtg + 1) + inc * 0.8 if mtg > 1 else remaining * 0.7
    else:
        # sudden death: spend about a twentieth of the clock (and most of the increment); the
        # share shrinks with the clock, so the clock itself is never run down
        base = remaining / 20 + inc * 0.8
    soft = min(base, remaining * 0.35)
    hard = min(base * 4, remaining * 0.7)
    soft = max(1, soft)
    hard = max(soft, hard)
    return soft, hard


def stability_factor(best_changes, score_drop, stable_iterations):
    """Scale for the soft limit: think longer when the best move changes or the score falls,
    shorter when the best move has held for several iterations."""
    f = 1.0 + 0.5 * min(best_changes, 3)
    if score_drop > 20:
        f *= 1.0 + min(score_drop, 150) / 150
    if stable_iterations >= 4:
        f *= 0.75
    return min(f, 3.0)
