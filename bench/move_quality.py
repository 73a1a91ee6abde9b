#!/usr/bin/env python3
"""Move quality by Stockfish's judgement: for each player in PGN files, the share of its moves
that lose more than 100 and more than 300 centipawns, and the mean loss (ACPL).

Every position of every game (with the moves before it, so repetitions count) is searched once
by Stockfish to a fixed depth; a move's loss is the mover's score before it minus its score
after it (the negated score of the next position), never below 0. Scores are clipped to
+-CLIP centipawns first (mate = CLIP), so a won position that stays won loses nothing
measurable, as in lichess's analysis. Positions where the game is over are scored by the
rules (checkmate -CLIP for the side to move, stalemate and insufficient material 0).

    .venv/bin/python bench/move_quality.py GAMES.pgn [MORE.pgn ...] [--depth 12] [--jobs 2]
"""
import argparse
import collections
import concurrent.futures
import sys

import chess
import chess.engine

from common import popen_stockfish, read_pgn

CLIP = 1000          # centipawns; beyond this a position counts as decided
THRESHOLDS = (100, 300)


def read_games(paths):
    """(start FEN, Chess960?, moves in UCI, white, black) per game: plain data for workers."""
    games = []
    for path in paths:
        for game in read_pgn(path):
            board = game.board()
            games.append((board.fen(), board.chess960, [m.uci() for m in game.mainline_moves()],
                          game.headers.get("White", "?"), game.headers.get("Black", "?")))
    return games


def clipped(score: chess.engine.PovScore, turn: chess.Color) -> int:
    cp = score.pov(turn).score(mate_score=100 * CLIP)
    return max(-CLIP, min(CLIP, cp))


def judge_game(args):
    """[(player, loss in centipawns)] for every move of one game."""
    (fen, chess960, moves, white, black), depth = args
    with popen_stockfish() as sf:
        board = chess.Board(fen, chess960=chess960)
        scores = []  # for the side to move in each position
        names = {chess.WHITE: white, chess.BLACK: black}
        movers = []
        for uci in moves:
            scores.append(score_of(sf, board, depth))
            movers.append(names[board.turn])
            board.push_uci(uci)
        scores.append(score_of(sf, board, depth))
    return [(movers[i], max(0, scores[i] + scores[i + 1])) for i in range(len(movers))]


def score_of(sf, board, depth):
    if board.is_checkmate():
        return -CLIP
    if board.is_stalemate() or board.is_insufficient_material():
        return 0
    info = sf.analyse(board, chess.engine.Limit(depth=depth))
    return clipped(info["score"], board.turn)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pgn", nargs="+")
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--jobs", type=int, default=2, help="Stockfish processes, one game each")
    a = ap.parse_args(argv)
    games = read_games(a.pgn)
    losses = collections.defaultdict(list)
    with concurrent.futures.ProcessPoolExecutor(a.jobs) as pool:
        for moves in pool.map(judge_game, [(g, a.depth) for g in games]):
            for player, loss in moves:
                losses[player].append(loss)
    print(f"{len(games)} games from {', '.join(a.pgn)}; Stockfish depth {a.depth}, "
          f"scores clipped to +-{CLIP} cp")
    print(f"{'player':<16}{'moves':>7}" + "".join(f"{'>' + str(t) + ' cp':>10}" for t in THRESHOLDS)
          + f"{'ACPL':>8}")
    for player in sorted(losses):
        xs = losses[player]
        shares = "".join(f"{100 * sum(x > t for x in xs) / len(xs):>9.1f}%" for t in THRESHOLDS)
        print(f"{player:<16}{len(xs):>7}{shares}{sum(xs) / len(xs):>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
