"""Compact training data: whole games at about 4 bytes a position, and position records.

Game file (``.bng``): the magic ``BNG1``, then games, each

    u16 length of the start FEN, the FEN (ASCII)
    u16 plies n, u8 result (0 Black won, 1 draw, 2 White won)
    n x (u16 move, i16 score): the move played (the engine's 16-bit encoding, from | to << 6 |
        flag << 12) and the score of the position before it, centipawns from White's view;
        SKIP marks a position the filters leave out (not trained on)

Position file (``.bnp``, for data that is not whole games, such as the Stockfish files): the
magic ``BNP1``, then records of a FEN's fields packed into 36 bytes: occupancy (u64), the
piece codes of the occupied squares in square order (4 bits each, 2 x u64), a state word (u64:
side, castling rights, en-passant square, halfmove clock, fullmove number), the score (i16)
and the result (u8, as above), one byte of padding. Standard chess only: the castling field
holds rights, not rook files.

Both convert to and from the text format ``FEN | score | result`` that ``black-numba train``
reads; the round trip is checked against python-chess on every ply (tests/test_gamefile.py).
"""
import struct

import numpy as np

from black_numba.board.position import (
    CASTLE, EP, FULLMOVE, HALFMOVE, NO_SQ, OCC, SIDE, TABLES, from_fen, get_fen, make_move,
    new_position, set_fen,
)
from black_numba.board.movegen import legal_moves

GAME_MAGIC = b"BNG1"
POS_MAGIC = b"BNP1"
SKIP = -32768                    # score of a position the filters leave out
RESULTS = {0.0: 0, 0.5: 1, 1.0: 2}
RESULT_VALUES = (0.0, 0.5, 1.0)
MOVE = struct.Struct("<Hh")
GAME_HEAD = struct.Struct("<HB")
RECORD = struct.Struct("<QQQQhBx")
PIECE_CHARS = "PNBRQKpnbrqk"


def encode_game(fen, plies, result):
    """One game's bytes: start FEN, [(move, score or None)], result 0/0.5/1 (None = SKIP)."""
    raw = fen.encode("ascii")
    return (struct.pack("<H", len(raw)) + raw + GAME_HEAD.pack(len(plies), RESULTS[result])
            + b"".join(MOVE.pack(m, SKIP if s is None else max(-32767, min(32767, s)))
                       for m, s in plies))


def write_games(path, games):
    """games: iterable of (start FEN, [(move, score or None)], result 0/0.5/1); None = SKIP.
    Returns the number of games written."""
    n = 0
    with open(path, "wb") as f:
        f.write(GAME_MAGIC)
        for game in games:
            f.write(encode_game(*game))
            n += 1
    return n


def _contents(path, magic, what):
    """The bytes of a file that must start with magic."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != magic:
        raise ValueError(f"{path}: not a black_numba {what} file")
    return data


def read_games(path):
    """Yields (start FEN, [(move, score or None)], result) for each game of a game file."""
    data = _contents(path, GAME_MAGIC, "game")
    i = 4
    while i < len(data):
        try:
            (k,) = struct.unpack_from("<H", data, i)
            fen = data[i + 2:i + 2 + k].decode("ascii")
            i += 2 + k
            n, r = GAME_HEAD.unpack_from(data, i)
            i += GAME_HEAD.size
            if i + 4 * n > len(data):
                raise struct.error
            plies = [MOVE.unpack_from(data, i + 4 * j) for j in range(n)]
        except (struct.error, UnicodeDecodeError):
            raise ValueError(f"{path}: truncated game at byte {i}") from None
        i += 4 * n
        yield fen, [(m, None if s == SKIP else s) for m, s in plies], RESULT_VALUES[r]


def game_positions(fen, plies, result):
    """The kept positions of one game as (FEN, score, result), replaying its moves; a move
    that is not legal where it stands raises ValueError."""
    pos = from_fen(fen)
    out = []
    for m, s in plies:
        if s is not None:
            out.append((get_fen(pos), s, result))
        if m not in legal_moves(pos):
            raise ValueError(f"illegal move {m} in a game from {fen}")
        make_move(TABLES, pos, np.int64(m))
    return out


def games_to_text(path, out):
    """A game file as 'FEN | score | result' lines; returns the number of lines."""
    n = 0
    for game in read_games(path):
        for fen, s, r in game_positions(*game):
            out.write(f"{fen} | {s} | {r:.1f}\n")
            n += 1
    return n


def pack_position(fen, score, result, pos=None):
    """One 36-byte position record."""
    pos = new_position() if pos is None else pos
    set_fen(pos, fen)
    occ = int(pos[OCC])
    codes = [0, 0]
    k = 0
    for sq in range(64):
        if occ >> sq & 1:
            for piece in range(12):
                if int(pos[piece]) >> sq & 1:
                    codes[k // 16] |= piece << (4 * (k % 16))
                    break
            k += 1
    state = (int(pos[SIDE]) | int(pos[CASTLE]) << 1 | int(pos[EP]) << 5
             | min(int(pos[HALFMOVE]), 255) << 12 | min(int(pos[FULLMOVE]), 65535) << 20)
    return RECORD.pack(occ, codes[0], codes[1], state, max(-32767, min(32767, score)),
                       RESULTS[result])


def unpack_position(rec):
    """(FEN, score, result) of a 36-byte record."""
    occ, c0, c1, state, score, r = RECORD.unpack(rec)
    board = ["."] * 64
    k = 0
    for sq in range(64):
        if occ >> sq & 1:
            word = c0 if k < 16 else c1
            board[sq] = PIECE_CHARS[word >> (4 * (k % 16)) & 15]
            k += 1
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for f in range(8):
            ch = board[rank * 8 + f]
            if ch == ".":
                empty += 1
                continue
            row += (str(empty) if empty else "") + ch
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    side = "b" if state & 1 else "w"
    rights = "".join(c for bit, c in zip((1, 2, 4, 8), "KQkq") if (state >> 1) & bit) or "-"
    ep = (state >> 5) & 127
    ep_text = "-" if ep == NO_SQ else "abcdefgh"[ep % 8] + str(ep // 8 + 1)
    fen = (f"{'/'.join(rows)} {side} {rights} {ep_text} {(state >> 12) & 255} "
           f"{(state >> 20) & 65535}")
    return fen, score, RESULT_VALUES[r]


def text_to_positions(lines, path):
    """'FEN | score | result' lines into a position file; returns the number of records."""
    pos = new_position()
    n = 0
    with open(path, "wb") as f:
        f.write(POS_MAGIC)
        for line in lines:
            fen, score, result = (p.strip() for p in line.split("|"))
            f.write(pack_position(fen, int(score), float(result), pos))
            n += 1
    return n


def read_positions(path):
    """Yields (FEN, score, result) for each record of a position file."""
    data = _contents(path, POS_MAGIC, "position")
    if (len(data) - 4) % RECORD.size:
        raise ValueError(f"{path}: truncated record")
    for i in range(4, len(data), RECORD.size):
        yield unpack_position(data[i:i + RECORD.size])
