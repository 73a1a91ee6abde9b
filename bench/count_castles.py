#!/usr/bin/env python3
"""Count one player's castles in a PGN file (Chess960 games included).

    .venv/bin/python bench/count_castles.py GAMES.pgn PLAYER

Prints the games, the games in which PLAYER castled, and PLAYER's castles by wing.
"""
import sys

import chess

from common import read_pgn


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip())
    path, player = sys.argv[1:]
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
