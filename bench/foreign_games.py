#!/usr/bin/env python3
"""What the foreign games punish: black_numba's losses and bad draws in a gauntlet's (or any
match's) PGN, by phase, material and how our own score moved before them.

    .venv/bin/python bench/foreign_games.py GAMES.pgn [...] --ours f641 [--ours 27c8]

Our score is the one our engine wrote in its move comments (the match runner's "+0.31/12
0.456s"). For each of our games:
- a **loss** turns at our last move whose score was still at least TURN_CP below zero's
  safety (score >= -TURN_CP): the position there gives the phase (by non-pawn material),
  the material balance from our side, and how far our score fell in the next SCORE_WINDOW
  of our moves (a search that saw it late) against the score we ended with;
- a **bad draw** is a draw in which our score stood at BAD_DRAW_CP or more for at least
  BAD_DRAW_MOVES of our moves: how it ended (repetition, fifty moves, material, stalemate,
  adjudication), the phase at its end, the material we were up at the end, our last score;
- a **win** and a plain draw are counted.
Prints one table a build: counts by phase and by kind, median figures, and the list of the
losses with their turning point (ply, phase, material, score then and SCORE_WINDOW later).
"""
import argparse
import collections
import re
import statistics

import chess
import chess.pgn

TURN_CP = 50                 # a loss turns at our last move scored >= -0.50
SCORE_WINDOW = 5             # our moves after the turn over which the fall is measured
BAD_DRAW_CP = 100            # a draw is bad when we scored a pawn or more ...
BAD_DRAW_MOVES = 4           # ... for this many of our moves
ENDGAME_NON_PAWN = 13        # non-pawn material (N=B=3, R=5, Q=9, both sides) at or below:
MIDDLEGAME_NON_PAWN = 50     # an endgame; above this (and ply < OPENING_PLIES) an opening
OPENING_PLIES = 24
VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
SCORE = re.compile(r"^([+-]?M?[\d.]+)")


def parse_score(comment):
    """A comment's score in centipawns (mates as +-10000), None for book or none."""
    m = SCORE.match(comment.strip())
    if not m:
        return None
    text = m.group(1)
    if "M" in text:
        return -10000 if text.startswith("-") else 10000
    return round(float(text) * 100)


def phase(board, ply):
    non_pawn = sum(VALUES[p.piece_type] for p in board.piece_map().values()
                   if p.piece_type not in (chess.PAWN, chess.KING))
    if non_pawn <= ENDGAME_NON_PAWN:
        return "endgame"
    if ply < OPENING_PLIES and non_pawn > MIDDLEGAME_NON_PAWN:
        return "opening"
    return "middlegame"


def material(board, color):
    """Material balance in pawns from color's side."""
    total = 0
    for p in board.piece_map().values():
        if p.piece_type != chess.KING:
            total += VALUES[p.piece_type] * (1 if p.color == color else -1)
    return total


def end_kind(game, board):
    term = game.headers.get("Termination", "")
    if term and term != "normal":
        return term
    if board.is_stalemate():
        return "stalemate"
    if board.is_insufficient_material():
        return "material"
    if board.is_fifty_moves():
        return "fifty moves"
    if board.is_repetition(3):
        return "repetition"
    return "other"


def study(game, ours):
    """One game from our side: None when neither side is one of ours, else a dict."""
    white, black = game.headers.get("White"), game.headers.get("Black")
    if white in ours:
        color, name, opp = chess.WHITE, white, black
    elif black in ours:
        color, name, opp = chess.BLACK, black, white
    else:
        return None
    result = game.headers.get("Result")
    points = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
    points = points if color == chess.WHITE else 1 - points
    board = game.board()
    mine = []                   # (ply, board before our move, our score) of our moves
    for node in game.mainline():
        before = node.parent.board()
        if before.turn == color:
            s = parse_score(node.comment or "")
            if s is not None:
                mine.append((before.ply(), before, s))
        board = node.board()
    out = {"build": name, "opponent": opp, "points": points, "plies": board.ply()}
    if points == 0.0:
        turn = max((i for i, (_, _, s) in enumerate(mine) if s >= -TURN_CP), default=None)
        if turn is None:
            out.update(kind="loss", phase="opening", material=0, score=None, later=None,
                       ply=0)
        else:
            ply, b, s = mine[turn]
            later = mine[min(turn + SCORE_WINDOW, len(mine) - 1)][2]
            out.update(kind="loss", phase=phase(b, ply), material=material(b, color),
                       score=s, later=later, ply=ply)
    elif points == 0.5:
        up = sum(1 for _, _, s in mine if s >= BAD_DRAW_CP)
        out.update(kind="bad draw" if up >= BAD_DRAW_MOVES else "draw",
                   phase=phase(board, board.ply()), material=material(board, color),
                   end=end_kind(game, board), score=mine[-1][2] if mine else None)
    else:
        out.update(kind="win")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pgn", nargs="+")
    ap.add_argument("--ours", action="append", required=True,
                    help="a name our engine plays under in the PGN (repeat)")
    args = ap.parse_args(argv)
    games = []
    for path in args.pgn:
        with open(path) as f:
            while (g := chess.pgn.read_game(f)) is not None:
                r = study(g, set(args.ours))
                if r is not None:
                    games.append(r)
    for name in args.ours:
        mine = [g for g in games if g["build"] == name]
        if not mine:
            continue
        kinds = collections.Counter(g["kind"] for g in mine)
        print(f"== {name}: {len(mine)} games: {kinds['win']} wins, {kinds['loss']} losses, "
              f"{kinds['draw'] + kinds['bad draw']} draws of which {kinds['bad draw']} bad "
              f"(scored >= +{BAD_DRAW_CP / 100:.2f} for {BAD_DRAW_MOVES}+ of our moves)")
        for opp in sorted({g["opponent"] for g in mine}):
            sub = [g for g in mine if g["opponent"] == opp]
            c = collections.Counter(g["kind"] for g in sub)
            print(f"   against {opp}: {len(sub)} games, {c['win']} W {c['loss']} L "
                  f"{c['draw'] + c['bad draw']} D ({c['bad draw']} bad)")
        for kind in ("loss", "bad draw"):
            sub = [g for g in mine if g["kind"] == kind]
            if not sub:
                continue
            by_phase = collections.Counter(g["phase"] for g in sub)
            mats = [g["material"] for g in sub]
            print(f"   {kind}es by phase: " if kind == "loss" else f"   {kind}s by phase at "
                  f"the end: ", end="")
            print(", ".join(f"{p} {by_phase[p]}" for p in ("opening", "middlegame", "endgame")),
                  f"| material from our side: median {statistics.median(mats):+g}, "
                  f"up {sum(m > 0 for m in mats)}, even {sum(m == 0 for m in mats)}, "
                  f"down {sum(m < 0 for m in mats)}")
            if kind == "bad draw":
                ends = collections.Counter(g["end"] for g in sub)
                zero = sum(1 for g in sub if g["score"] == 0)
                print(f"   bad draws ended by: " + ", ".join(f"{k} {v}" for k, v in
                                                          ends.most_common())
                      + f"; our last score 0.00 in {zero}")
            else:
                falls = [g["score"] - g["later"] for g in sub
                         if g["score"] is not None and g["later"] is not None]
                if falls:
                    print(f"   our score at the turn: median {statistics.median([g['score'] for g in sub if g['score'] is not None]) / 100:+.2f}; "
                          f"fall over the next {SCORE_WINDOW} of our moves: median "
                          f"{statistics.median(falls) / 100:.2f}, over 2.00 in "
                          f"{sum(f > 200 for f in falls)} of {len(falls)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
