"""The strict PGN reader (black_numba.read_game): a typo is refused with the move number, the
token and why, never read as another game; valid PGN reads exactly as python-chess reads it
(a committed corpus of 1,000 games in the styles people paste); a fuzz over real games with
one token changed."""
import functools
import io
import lzma
import os
import random
import re

import chess
import chess.pgn
import pytest

import black_numba
from black_numba.board.pgn import PgnError, read_game, read_games
from conftest import ROOT
from fuzzing import SCALE, SEED

CORPUS = os.path.join(ROOT, "tests", "data", "pgn_corpus.pgn.xz")
RUY = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 d6 5. O-O f6 "
FUZZ_GAMES = 120              # real games the fuzz changes one move of (the corpus has 143)
FUZZ_CHANGES = 400            # changed games read (times the fuzz scale)


def _read(text, **kw):
    return read_game(io.StringIO(text), **kw)


def _corpus():
    with lzma.open(CORPUS, "rt", encoding="utf-8", newline="") as f:   # CRLF kept
        return f.read()


@functools.lru_cache(maxsize=1)
def _corpus_games():
    """The corpus as our reader reads it (read once for the tests that use it)."""
    return list(read_games(io.StringIO(_corpus())))


@pytest.mark.parametrize("text, number, token, message", [
    ("1. e4 e5 2. nf3 Nc6", "2.", "nf3", "2. nf3: piece letters are capitals"),
    ("1. e4 e5 2. Qxx9", "2.", "Qxx9", "2. Qxx9 is not a move"),
    (RUY + "6. Qxx9 Bg4", "6.", "Qxx9", "6. Qxx9 is not a move"),
    ("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. B\u04304 Nf6", "4.", "B\u04304",
     "4. B\u04304 contains a letter that is not ASCII"),
])
def test_the_four_typos_are_refused_at_their_move(text, number, token, message):
    """python-chess's reader loads 2.f3, stops after 1...e5, blames 6...Bg4, and cuts the
    game at move 4 silently; the strict reader names the typo and loads nothing."""
    with pytest.raises(PgnError) as e:
        _read(text)
    assert (e.value.number, e.value.token, str(e.value)) == (number, token, message)
    lenient = _read(text, lenient=True)       # python-chess's reading, kept for who wants it
    assert lenient is not None and token not in str(lenient)


@pytest.mark.parametrize("text, sans", [
    ("1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. 0-0 Bc5 5. d3 0-0", None),      # 0-0 castles
    ("1. e4 d5 2. ed5 Qd5 3. Nc3 Qa5 4. Nf3 Bg4 5. h3 Bf3", "Bxf3"),   # the x left out
    ("[FEN \"8/P7/8/8/8/8/k7/7K w - - 0 1\"]\n\n1. a8Q+ Kb2 2. Qb7+ *", "a8=Q+"),
    ("1. e4!? e5!! 2. Nf3?! Nc6? 3. Bb5?? $14 a6 *", None),
    ("1. e4 {[%clk 0:03:00]} 1... e5 {[%clk 0:02:59.5]} 2. Nf3 (2. f4 exf4 (2... d5)) *",
     None),
])
def test_what_people_write_still_reads(text, sans):
    game = _read(text)
    assert game.mainline_moves() and not game.errors
    if sans:
        assert sans in str(game)
    assert str(game) == str(chess.pgn.read_game(io.StringIO(text)))


@pytest.mark.parametrize("text, message", [
    ("1. e4 e5 2. bb5", "2. bb5 is not"),          # meant Bb5: not a pawn push
    ("1. ee4", "1. ee4 is not a move"),
    ("1. e4 e5 2. Ke3", "2. Ke3 is not a legal move in that position"),
    ("[FEN \"k7/8/8/8/8/8/8/1N2KN2 w - - 0 1\"]\n\n1. Nd2", "1. Nd2 is ambiguous in that position"),
    ("1. e4 e5 2. Nf3 {a comment never closed", "a comment { never closed"),
    ("1. e4 (1. d4 d5", "a variation ( never closed"),
    ("1. e4 e5 1-0 2. Nf3", "Nf3 after the result 1-0"),
    ("[Event \"x\"\n\n1. e4", "header [Event \"x\" is not"),
    ("[FEN \"junk\"]\n\n1. e4", "header:"),
    ("1. e4 e5\n[Event \"next\"]", "a header line inside the movetext"),
])
def test_other_faults_are_named(text, message):
    with pytest.raises(PgnError) as e:
        _read(text)
    assert message in str(e.value)


def test_a_refused_game_does_not_stop_the_games_after_it():
    text = ('[Event "a"]\n\n1. e4 e5 2. nf3 *\n\n[Event "b"]\n\n1. d4 d5 *\n\n'
            '[Event "c"]\n[Bad\n\n1. c4 *\n\n[Event "d"]\n\n1. Nf3 *\n')
    handle, out = io.StringIO(text), []
    while True:
        try:
            game = read_game(handle)
        except PgnError as e:
            out.append(str(e))
            continue
        if game is None:
            break
        out.append(game.headers["Event"])
    assert out == ["2. nf3: piece letters are capitals", "b", 'header [Bad is not [Name "value"]',
                   "d"]


def test_the_package_exports_the_strict_reader():
    assert black_numba.read_game is read_game and black_numba.PgnError is PgnError


def test_the_corpus_reads_exactly_as_python_chess_reads_it():
    """1,000 games in seven styles (tools/make_pgn_corpus.py): lichess and chess.com exports
    with clock comments, bare movetext, annotated games with NAGs and variations, typed games
    with 0-0, missing x and e8Q, CRLF files, games from a FEN with Black to move."""
    text = _corpus()
    ours = _corpus_games()
    theirs = []
    handle = io.StringIO(text)
    while (game := chess.pgn.read_game(handle)) is not None:
        theirs.append(game)
    assert len(ours) == len(theirs) >= 1000
    assert all(not g.errors for g in theirs)
    styles = {"%clk", "$", "(", "0-0", "\r\n", "1..."}
    assert all(s in text for s in styles)
    for a, b in zip(ours, theirs):
        assert dict(a.headers) == dict(b.headers) and str(a) == str(b)


def _normal(san):
    """A move's text up to + # x ! ? and =, castles with O."""
    return re.sub(r"[+#x!?=]", "", san).replace("0", "O")


def _edit(token, r):
    kind = r.randrange(5)
    i = r.randrange(len(token))
    letters = "abcdefghxNBRQKnbrqkO0-+=12345678\u0430?!"
    if kind == 0:
        return token[:i] + r.choice(letters) + token[i + 1:]
    if kind == 1:
        return token[:i] + r.choice(letters) + token[i:]
    if kind == 2 and len(token) > 1:
        return token[:i] + token[i + 1:]
    if kind == 3:
        return token[:i] + token[i].swapcase() + token[i + 1:]
    return r.choice(["Qxx9", "nf3", "Nf", "e9", "O-O-O", "Kxe2", "exd5", "B\u0430", "g8=Q"])


def test_one_token_changed_is_refused_at_its_move_or_read_as_written():
    """Real games (the corpus's bare ones) with one move changed: either the reader refuses
    at the changed move's number (or later, where the change is itself a legal move there:
    then a later move is illegal in the game it makes), or every move token read is one move
    whose SAN is the token, up to + # x ! ? and =."""
    r = random.Random(SEED)
    games = []
    for g in _corpus_games():                       # the first FUZZ_GAMES bare games
        if ("Event" not in g.headers or g.headers["Event"] == "?") and \
                g.board().fen() == chess.STARTING_FEN:
            games.append(g)
            if len(games) == FUZZ_GAMES:
                break
    assert len(games) == FUZZ_GAMES
    refused = read_as_written = 0
    for _ in range(int(FUZZ_CHANGES * SCALE)):
        game = r.choice(games)
        board = game.board()
        moves = list(game.mainline_moves())
        tokens, numbers, boards = [], [], []
        for move in moves:
            numbers.append(f"{board.fullmove_number}." if board.turn else
                           f"{board.fullmove_number}...")
            boards.append(board.copy())
            tokens.append(board.san(move))
            board.push(move)
        k = r.randrange(len(tokens))
        changed = _edit(tokens[k], r)
        if not changed.strip() or changed == tokens[k] or " " in changed:
            continue
        tokens[k] = changed
        words = []
        for number, t in zip(numbers, tokens):
            words += [t] if number.endswith("...") else [number, t]
        text = " ".join(words) + " *"
        note = f"{numbers[k]} {tokens[k]!r} in {text[:200]}"
        try:
            read = _read(text)
        except PgnError as e:
            refused += 1
            if e.number != numbers[k]:
                legal = True
                try:
                    boards[k].parse_san(changed)
                except ValueError:
                    legal = False
                assert legal and _pgn_index(e.number) > _pgn_index(numbers[k]), (str(e), note)
            continue
        read_as_written += 1
        b = read.board()
        sans = []
        for move in read.mainline_moves():
            sans.append(b.san(move))
            b.push(move)
        assert len(sans) == len(tokens), note
        assert all(_normal(a) == _normal(t) for a, t in zip(sans, tokens)), note
    assert refused > 100 and read_as_written >= 3, (refused, read_as_written)


def _pgn_index(number):
    """'12.' -> 22, '12...' -> 23: the ply order of a move number."""
    n = int(number.rstrip("."))
    return 2 * n - 2 + number.endswith("...")
