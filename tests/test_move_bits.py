"""Move codes are read and written only through black_numba/board/move.py's accessors: they agree
with python-chess on every legal move, work from Python and from compiled code alike, and no
other module decodes a move's bits (or builds a piece-square index) by hand."""
import io
import os
import re
import sys
import tokenize

import chess
import numpy as np
from numba import njit

import black_numba
from black_numba.board import move as mv
from black_numba.board.movegen import legal_moves
from black_numba.board.position import KNIGHT, QUEEN, from_fen, move_to_uci

PACKAGE_DIR = os.path.dirname(os.path.abspath(black_numba.__file__))
HOME = "move.py"

# Raw reads and writes of a move's fields: from (bits 0-5), to (6-11), flag (12-15).
MOVE_BITS = [r"&\s*63\b", r">>\s*6\b", r">>\s*12\b", r"<<\s*6\b", r"<<\s*12\b",
             r"&\s*4095\b", r"&\s*0[xX]3[fF]\b", r"&\s*0[xX][fF]{3}\b",
             r"&\s*(PROMO|CAPTURE|NOISY)\b", r"\bflag\s*&\s*3\b"]
# The piece-square index built by hand (piece * 64 + square).
PIECE_SQUARE = [r"\*\s*64\s*\+", r"\b64\s*\*\s*[\w(]"]
# Square-pair and colour-square tables of bitboard.py (T[LINE + a * 64 + b], T[PAWN_ATT +
# colour * 64 + sq]): a row of 64 squares per square or colour, not a piece on a square.
SQUARE_TABLES = ("PAWN_ATT", "LINE", "BETWEEN", "DIST")

# The uses of these patterns that are not about moves or pieces on squares: (file, a
# fragment of the line's code, why). Each must still match something.
ALLOWED = [
    ("tt.py", "(d0 >> _U58)) & 63", "a table entry's 6-bit age field (bits 58-63)"),
    ("tt.py", "(d1 >> _U58)) & 63", "a table entry's 6-bit age field (bits 58-63)"),
    ("tt.py", "np.uint64(age & 63) << _U58", "a table entry's 6-bit age field (bits 58-63)"),
    ("tt.py", "== (age & 63)", "a table entry's 6-bit age field (bits 58-63)"),
    ("driver.py", "self.age = (self.age + 1) & 63", "the search age wraps in the entry's 6 bits"),
    ("gamefile.py", "min(int(pos[HALFMOVE]), 255) << 12",
     "a position record's state word: the halfmove clock at bits 12-19"),
    ("gamefile.py", "(state >> 12) & 255",
     "a position record's state word: the halfmove clock at bits 12-19"),
    ("chunks.py", "(move_from(move) * 64 + move_to(move)) * 8 + promo",
     "the chunk format's own move order, by from square then to square (not a piece index)"),
    ("bitboard.py", "R[64 * kind: 64 * kind + 64]",
     "Polyglot's random numbers, in Polyglot's piece order (kind * 64 + square)"),
    ("tbprobe.py", "meta[C_BINOM + k * 64 + n]", "Syzygy's binomial table, 64 columns a row"),
    ("tbprobe.py", "((sq >> 3) | (sq << 3)) & 63", "a square mirrored in the a1-h8 diagonal"),
    ("tbprobe.py", "meta[C_KK_IDX + meta[C_TRIANGLE + sq[0]] * 64 + sq[1]]",
     "Syzygy's king-king index table, 64 squares a row"),
    ("tbprobe.py", "s1 = (word >> SYM_BITS) & 0xFFF", "a Syzygy symbol's 12-bit pair field"),
    ("tbprobe.py", "sym = (word >> (SYM_BITS + 12)) & 0xFFF",
     "a Syzygy symbol's 12-bit pair field"),
    ("tbprobe.py", "value = (meta[symlen + sym] >> SYM_BITS) & 0xFFF",
     "a Syzygy symbol's 12-bit pair field"),
]


def _code_lines(path):
    """{line number: the line's code with comments and string literals blanked out (an
    f-string is kept: its fields are code)}."""
    src = open(path, encoding="utf-8").read()
    lines = src.splitlines()
    keep = [list(line) for line in lines]
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        fstring = tok.type == tokenize.STRING and "f" in tok.string.split(tok.string[-1])[0].lower()
        if tok.type == tokenize.COMMENT or (tok.type == tokenize.STRING and not fstring):
            (r0, c0), (r1, c1) = tok.start, tok.end
            for r in range(r0, r1 + 1):
                a = c0 if r == r0 else 0
                b = c1 if r == r1 else len(keep[r - 1])
                keep[r - 1][a:b] = " " * (b - a)
    return {i + 1: "".join(chars) for i, chars in enumerate(keep)}


def _in_square_table(code, at):
    """Is the match at `at` inside the subscript of a square-pair or colour-square table?"""
    opening = code.rfind("[", 0, at)
    return opening >= 0 and code[opening + 1:at].lstrip().startswith(SQUARE_TABLES)


def raw_uses():
    """(file, line number, code) of every raw move-bit or piece-square expression outside
    move.py, the package's subpackages included."""
    found = []
    for dirpath, _, files in os.walk(PACKAGE_DIR):
        for name in sorted(files):
            if not name.endswith(".py") or (os.path.basename(dirpath) == "board" and name == HOME):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, PACKAGE_DIR)
            for no, code in _code_lines(path).items():
                hits = [m for p in MOVE_BITS for m in re.finditer(p, code)]
                hits += [m for p in PIECE_SQUARE for m in re.finditer(p, code)
                         if not _in_square_table(code, m.start())]
                if hits:
                    found.append((rel, no, code.strip()))
    return found


def test_no_move_bits_read_outside_move_module():
    """A move's bits are read only in move.py (grep-proof: every other use is listed in
    ALLOWED with its reason)."""
    raw = raw_uses()
    unexplained = [f"{f}:{no}: {code}" for f, no, code in raw
                   if not any(os.path.basename(f) == af and frag in code
                              for af, frag, _ in ALLOWED)]
    assert not unexplained, "decode moves with black_numba.board.move's accessors:\n" + \
        "\n".join(unexplained)
    stale = [(af, frag) for af, frag, _ in ALLOWED
             if not any(os.path.basename(f) == af and frag in code for f, _, code in raw)]
    assert not stale, f"allow-list entries that match nothing: {stale}"


def test_the_scan_catches_a_raw_decode(tmp_path, monkeypatch):
    """The scan is not blind: a module that decodes by hand is reported, and a comment or a
    docstring that spells the encoding is not."""
    pkg = tmp_path / "black_numba"
    pkg.mkdir()
    (pkg / "bad.py").write_text('"""from | to << 6 | flag << 12"""\n'
                                "def f(m):\n"
                                "    # m & 63 is the from square\n"
                                "    return (m >> 6) & 63, T[LINE + a * 64 + b]\n"
                                "def g(p, sq):\n"
                                "    return p * 64 + sq\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE_DIR", str(pkg))
    assert [(f, no) for f, no, _ in raw_uses()] == [("bad.py", 4), ("bad.py", 6)]


POSITIONS = [
    chess.STARTING_FEN,
    "r3k2r/pPp2ppp/8/3pP3/8/8/P1P2PpP/R3K2R w KQkq d6 0 1",     # promotions, en passant
    "r3k2r/p1pp1pb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/p1pp1pb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",                  # black promotions
    "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
]


def test_accessors_agree_with_python_chess():
    """For every legal move of positions with castling, en passant and promotions (captures
    and pushes, both colours): from, to, promotion piece, capture and castling as
    python-chess sees them; the code is rebuilt from its fields."""
    checked = set()
    for fen in POSITIONS:
        board = chess.Board(fen)
        for m in legal_moves(from_fen(fen)):
            cm = chess.Move.from_uci(move_to_uci(m))
            assert cm in board.legal_moves
            assert (mv.move_from(m), mv.move_to(m)) == (cm.from_square, cm.to_square)
            assert mv.is_promotion(m) == (cm.promotion is not None)
            if cm.promotion:
                assert mv.promo_piece_type(m) == cm.promotion - 1
            assert mv.is_capture(m) == board.is_capture(cm)
            assert mv.is_castling(m) == board.is_castling(cm)
            assert mv.is_quiet(m) == (not board.is_capture(cm) and cm.promotion is None)
            if mv.is_castling(m):
                assert mv.castle_wing(m) == (0 if board.is_kingside_castling(cm) else 1)
            assert mv.move_from_to(m) == cm.to_square * 64 + cm.from_square
            assert mv.make_move_code(mv.move_from(m), mv.move_to(m), mv.move_flag(m)) == m
            checked.add((mv.move_flag(m) == mv.EP_CAPTURE, mv.is_castling(m),
                         mv.is_promotion(m) and mv.is_capture(m)))
    assert (True, False, False) in checked and (False, True, False) in checked
    assert (False, False, True) in checked
    assert mv.promo_piece_type(mv.make_move_code(52, 60, mv.PROMO)) == KNIGHT
    assert mv.promo_piece_type(mv.make_move_code(52, 60, mv.PROMO | 3)) == QUEEN


def test_piece_square_codes_round_trip():
    for piece in range(12):
        for sq in range(64):
            code = mv.piece_square(piece, sq)
            assert (mv.code_piece(code), mv.code_square(code)) == (piece, sq)
    assert mv.piece_square(11, 63) == 12 * 64 - 1


@njit
def _decode_all(moves, out):
    for i in range(moves.shape[0]):
        m = moves[i]
        out[i, 0] = mv.move_from(m)
        out[i, 1] = mv.move_to(m)
        out[i, 2] = mv.move_flag(m)
        out[i, 3] = mv.promo_piece_type(m) if mv.is_promotion(m) else 0
        out[i, 4] = mv.is_capture(m)


def test_compiled_and_python_callers_agree():
    """The inlined accessors give compiled code the same fields as Python calls."""
    moves = np.array(legal_moves(from_fen(POSITIONS[1])), dtype=np.int64)
    out = np.zeros((moves.shape[0], 5), dtype=np.int64)
    _decode_all(moves, out)
    for i, m in enumerate(moves.tolist()):
        assert list(out[i]) == [mv.move_from(m), mv.move_to(m), mv.move_flag(m),
                                mv.promo_piece_type(m) if mv.is_promotion(m) else 0,
                                int(mv.is_capture(m))]
