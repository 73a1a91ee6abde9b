#!/usr/bin/env python3
"""Two arms of the style runs compared game for game: the same openings and colours (seed and
openings equal; the PGN's Round tag names the opening pair and the game), so each opening
pair gives one difference of the player's score and of its draws, and the 95% intervals come
from those differences (Elo's interval by the slope of the logistic at the mean score).

    bench/style_pairs.py A/games.pgn NAME_A B/games.pgn NAME_B
"""
import argparse
import math
import sys

from black_numba.arena.matchstats import Z95, elo
from common import read_pgn

GAMES_A_PAIR = 2           # each opening with both colours


def results(path, name):
    """{Round: the player's score} of the finished games of a PGN file."""
    out = {}
    for g in read_pgn(path):
        r = g.headers["Result"]
        if r not in ("1-0", "0-1", "1/2-1/2"):
            continue
        white = g.headers["White"] == name
        out[g.headers["Round"]] = 0.5 if r == "1/2-1/2" else float((r == "1-0") == white)
    return out


def mean_se(xs):
    """The mean of xs and its standard error."""
    m = sum(xs) / len(xs)
    v = sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    return m, math.sqrt(v / len(xs))


def compare(a, b):
    """The paired comparison of two {Round: score} maps: a dict of the figures printed."""
    pairs = {}
    for rnd in a.keys() & b.keys():
        pairs.setdefault(rnd.split(".")[0], []).append((a[rnd], b[rnd]))
    both = [g for games in pairs.values() for g in games]
    n = len(both)
    score_d, score_se = mean_se([sum(x - y for x, y in v) for v in pairs.values()])
    draw_d, draw_se = mean_se([sum((x == 0.5) - (y == 0.5) for x, y in v)
                               for v in pairs.values()])
    sa, sb = sum(x for x, _ in both) / n, sum(y for _, y in both) / n
    da, db = sum(x == 0.5 for x, _ in both) / n, sum(y == 0.5 for _, y in both) / n
    mean = (sa + sb) / 2
    slope = 400 / (math.log(10) * mean * (1 - mean))     # Elo a unit of score, at the mean
    half, dhalf = Z95 * score_se / GAMES_A_PAIR, Z95 * draw_se / GAMES_A_PAIR
    de = elo(sa) - elo(sb)
    return {"games": n, "pairs": len(pairs), "score": (sa, sb),
            "score_diff": (sa - sb, score_d / GAMES_A_PAIR - half, score_d / GAMES_A_PAIR + half),
            "elo": (elo(sa), elo(sb)), "elo_diff": (de, de - slope * half, de + slope * half),
            "draws": (da, db),
            "draw_diff": (da - db, draw_d / GAMES_A_PAIR - dhalf, draw_d / GAMES_A_PAIR + dhalf)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("a_pgn")
    ap.add_argument("a_name")
    ap.add_argument("b_pgn")
    ap.add_argument("b_name")
    a = ap.parse_args(argv)
    r = compare(results(a.a_pgn, a.a_name), results(a.b_pgn, a.b_name))
    pct = lambda t: " .. ".join(f"{100 * x:+.1f}" for x in t[1:])        # noqa: E731
    print(f"{a.a_name} vs {a.b_name}: {r['games']} paired games, {r['pairs']} opening pairs")
    print(f"score {100 * r['score'][0]:.1f}% vs {100 * r['score'][1]:.1f}%: difference "
          f"{100 * r['score_diff'][0]:+.1f} points (95% {pct(r['score_diff'])})")
    print(f"Elo {r['elo'][0]:+.1f} vs {r['elo'][1]:+.1f}: difference {r['elo_diff'][0]:+.1f} "
          f"(95% about {r['elo_diff'][1]:+.1f} .. {r['elo_diff'][2]:+.1f})")
    print(f"draws {100 * r['draws'][0]:.1f}% vs {100 * r['draws'][1]:.1f}%: difference "
          f"{100 * r['draw_diff'][0]:+.1f} points (95% {pct(r['draw_diff'])})")


if __name__ == "__main__":
    sys.exit(main())
