#!/usr/bin/env python3
"""Count one player's castles in a PGN file (Chess960 games included).

    .venv/bin/python bench/count_castles.py GAMES.pgn PLAYER

Prints the games, the games in which PLAYER castled, and PLAYER's castles by wing.
"""
import argparse

import chess

from common import read_pgn


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pgn", metavar="GAMES.pgn")
    ap.add_argument("player", metavar="PLAYER")
    args = ap.parse_args()
    path, player = args.pgn, args.player
    games = castled = king_side = queen_side = 0
    for game in read_pgn(path):
        games += 1
        colour = chess.WHITE if game.headers.get("White") == player else chess.BLACK
        board = game.board()
        did = False
        for move in game.mainline_moves():
            if board.turn == colour and board.is_castling(move):
                did = True
                if board.is_kingside_castling(move):
                    king_side += 1
                else:
                    queen_side += 1
            board.push(move)
        castled += did
    print(f"castles by {player}: {castled} of {games} games castled "
          f"({king_side} king-side, {queen_side} queen-side)")


if __name__ == "__main__":
    main()
