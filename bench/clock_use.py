"""How an engine spends its clock, read from match PGNs (each move's comment ends in the
seconds it took: `score/depth seconds` from `black-numba match`, `score/seconds` in older
logs): mean thinking time by move number for the engine and its opponent, the clock left when
games end on the board (adjudicated games stop early, so they are left out of it), and how
many moves were made with under a second on the clock.

    bench/clock_use.py GAMES.pgn[.xz] --engine black_numba --tc 10+0.1 [--tc-opponent 2.5+0.025]
"""
import argparse
import re
import statistics

import chess

from common import read_pgn

SECONDS = re.compile(r"[/\s]([\d.]+)s\b")
BAND = 10            # moves per row of the table
ADJUDICATED = ("adjudication", "adjudicated")   # black-numba match's tag, older logs'
LOW_CLOCK = 1.0      # seconds: a move made below this is made in time trouble


def clock_use(paths, engine, base, inc, their_base=None, their_inc=None):
    """(times by (ours, band), clocks left at the end of unadjudicated games, (ours, theirs)
    moves made in time trouble, games read). The opponent plays on base+inc too unless
    their_base and their_inc say otherwise (an uneven match)."""
    their_base = base if their_base is None else their_base
    their_inc = inc if their_inc is None else their_inc
    times, ends, low, games = {}, [], [0, 0], 0
    for path in paths:
        for game in read_pgn(path):
            ours = chess.WHITE if engine in game.headers["White"] else chess.BLACK
            clock = {ours: base, not ours: their_base}
            gain = {ours: inc, not ours: their_inc}
            for node in game.mainline():
                found = SECONDS.search(node.comment)
                if not found:
                    continue
                side = not node.turn()
                if clock[side] < LOW_CLOCK:
                    low[side != ours] += 1
                clock[side] += gain[side] - float(found.group(1))
                move_number = (node.ply() - 1) // 2 + 1
                times.setdefault((side == ours, (move_number - 1) // BAND), []).append(
                    float(found.group(1)))
            if game.headers.get("Termination") not in ADJUDICATED:
                ends.append((clock[ours], clock[not ours]))
            games += 1
    return times, ends, low, games


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pgn", nargs="+")
    ap.add_argument("--engine", default="black_numba", help="the engine's name in the PGN")
    ap.add_argument("--tc", default="10+0.1", help="the games' time control, BASE+INC seconds")
    ap.add_argument("--tc-opponent", help="the opponent's, where it differs (an uneven match)")
    args = ap.parse_args()
    base, inc = (float(x) for x in args.tc.split("+"))
    their_base, their_inc = (float(x) for x in (args.tc_opponent or args.tc).split("+"))
    times, ends, low, games = clock_use(args.pgn, args.engine, base, inc, their_base, their_inc)
    theirs = f", the opponent {args.tc_opponent}" if args.tc_opponent else ""
    print(f"{games} games, {args.engine} against its opponents, {args.tc}{theirs}")
    print("moves    | mean s (n)        | opponent")
    for band in range(max(b for _, b in times) + 1):
        a, b = times.get((True, band), []), times.get((False, band), [])
        if a:
            theirs = f"{statistics.mean(b):.3f}" if b else "-"
            print(f"{band * BAND + 1:3d}-{band * BAND + BAND:<4d} | {statistics.mean(a):.3f} "
                  f"({len(a):5d})      | {theirs}")
    if ends:
        print(f"clock left at the end, {len(ends)} games not adjudicated: median "
              f"{statistics.median(e[0] for e in ends):.2f} s (opponent "
              f"{statistics.median(e[1] for e in ends):.2f} s)")
    print(f"moves made with under {LOW_CLOCK:.0f} s on the clock: {low[0]} (opponent {low[1]})")


if __name__ == "__main__":
    main()
