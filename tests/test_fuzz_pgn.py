"""Fuzzing the PGN files `annotate` reads: tests/data/annotate_games.pgn damaged as bytes (see
fuzzing.mutate) or as PGN (a move, a tag, a comment, a variation, a NAG, a result or a FEN
changed), fed to `black-numba annotate` and to `black_numba.annotate`.

Properties: the command ends (no hang) without a traceback; every game python-chess cannot
use is reported on stderr as `game N skipped: ...` by its number, and only those; every
other game is written, in order, with its moves and an [%eval] on each; the exit status says
whether a game was skipped. In-process, `black_numba.annotate` raises ValueError naming the
problem or returns the game annotated. Cases are seeded (tests/fuzzing.py: FUZZ_SEED,
FUZZ_SCALE); annotate searches every position, so the counts are small."""
import io
import os
import subprocess

import chess
import chess.engine
import pytest

import black_numba
from black_numba.frontends import annotation
from conftest import ENGINE, ROOT
from fuzzing import cases, mutate, rng, where

pytestmark = pytest.mark.slow        # annotate searches every position of every game

GAMES = os.path.join(ROOT, "tests", "data", "annotate_games.pgn")
FILES = 3                    # files through the command at the default scale
FILES_IN_PROCESS = 5         # files whose games go through black_numba.annotate, default scale
NODES = 50                   # a position: the point is the reading, not the judging
RUN_TIMEOUT_S = 300          # one command run, engine load included
PROGRESS_EVERY = 50          # files between a long run's progress lines
TOKENS = ["e4", "Ke3", "O-O-O", "Qxh9", "e8=Q", "e8=K", "--", "Z0", "1.", "999.", "...", "$1",
          "$999", "{", "}", "(", ")", "*", "1-0", "1/2-1/2", "0-1", "[", "]", "\"", ";", "%",
          "\\", "\x00", "\ufffd"]
TAGS = ['[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]', '[FEN "junk"]', '[SetUp "1"]',
        '[Variant "Crazyhouse"]', '[Variant "Chess960"]', '[Variant "Junk"]',
        '[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]',
        '[Result "1-0"]', '[Event "', '[]']


def mutate_pgn(text, r):
    """(kind, damaged PGN text): bytes damaged, or a word, a tag or a line changed."""
    how = r.randrange(4)
    if how == 0:
        kind, data = mutate(text.encode(), r)
        return kind, data.decode("utf-8", "replace")
    words = text.split(" ")
    if how == 1:
        for _ in range(r.randint(1, 4)):
            words[r.randrange(len(words))] = r.choice(TOKENS)
        return "word", " ".join(words)
    lines = text.split("\n")
    at = r.randrange(len(lines))
    if how == 2:
        lines.insert(at, r.choice(TAGS))
        return "tag", "\n".join(lines)
    del lines[at]
    return "line", "\n".join(lines)


def expected(path):
    """[(number, good)] of the games of a file as annotate numbers them."""
    return [(n, text is not None) for n, text, _ in annotation._input(path)]


def test_mutated_pgn_files_through_the_command(tmp_path):
    base = open(GAMES, encoding="utf-8").read()
    r = rng("pgn files")
    files = skips = 0
    for i in range(cases(FILES)):
        kind, text = mutate_pgn(base, r)
        path, out = tmp_path / f"in{i}.pgn", tmp_path / f"out{i}.pgn"
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        note = (where("pgn files", i), kind)
        p = subprocess.run([ENGINE, "annotate", str(path), "--out", str(out), "--nodes",
                            str(NODES), "--quiet"], capture_output=True, text=True,
                           timeout=RUN_TIMEOUT_S)
        assert "Traceback" not in p.stderr and "a game failed" not in p.stderr, (note, p.stderr)
        games = expected(str(path))
        bad = [n for n, good in games if not good]
        skipped = [int(line.split()[2]) for line in p.stderr.splitlines()
                   if line.startswith("annotate: game ") and " skipped: " in line]
        assert skipped == bad, (note, p.stderr)
        assert p.returncode == (1 if bad else 0), (note, p.returncode, p.stderr)
        good = [annotation.read_game(io.StringIO(t)) for _, t, _ in
                annotation._input(str(path)) if t is not None]
        written = []
        with open(out, encoding="utf-8") as f:
            while (g := annotation.read_game(f)) is not None:
                written.append(g)
        assert len(written) == len(good), (note, p.stderr)
        files += 1
        skips += len(bad)
        if files % PROGRESS_EVERY == 0:               # a long run's count, should it be cut
            print(f"\npgn files: {files} so far, {skips} games skipped", flush=True)
        for w, g in zip(written, good):
            assert list(w.mainline_moves()) == list(g.mainline_moves()), note
            assert all(n.eval() is not None or "[%eval #0]" in n.comment
                       for n in w.mainline()), note
    print(f"\npgn files: {files} files through the command, {skips} games skipped, "
          f"{where('pgn files', files)}")


def test_a_game_that_reads_otherwise_once_written_back_is_skipped(tmp_path):
    """A Result tag that is not a result ends the movetext once written back: `0-0` after a
    mate reads as an illegal castling. The game is reported by number; the next is written."""
    path, out = tmp_path / "in.pgn", tmp_path / "out.pgn"
    path.write_text('[Event "A"]\n[Result "0-0"]\n[SetUp "1"]\n'
                    '[FEN "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"]\n\n1. Rd8# 1-0\n\n'
                    '[Event "B"]\n[Result "*"]\n\n1. e4 e5 *\n')
    p = subprocess.run([ENGINE, "annotate", str(path), "--out", str(out), "--nodes",
                        str(NODES), "--quiet"], capture_output=True, text=True,
                       timeout=RUN_TIMEOUT_S)
    assert p.returncode == 1, p.stderr
    assert "game 1 skipped: it reads otherwise once written back (1... 0-0 is not a legal " \
        "move in that position)" in p.stderr and "Result tag is '0-0'" in p.stderr
    written = annotation.read_game(io.StringIO(out.read_text()))
    assert written.headers["Event"] == "B" and len(list(written.mainline_moves())) == 2


def test_mutated_games_through_black_numba_annotate():
    base = open(GAMES, encoding="utf-8").read()
    r = rng("pgn games")
    games = refused = 0
    with black_numba.Engine() as engine:
        for i in range(cases(FILES_IN_PROCESS)):
            kind, text = mutate_pgn(base, r)
            f = io.StringIO(text)
            note = (where("pgn games", i), kind)
            while True:
                try:
                    game = annotation.read_game(f)
                except Exception:           # python-chess gave up on the rest (the command
                    break                   # reports it so): nothing for annotate to take
                if game is None:
                    break
                games += 1
                try:
                    out = black_numba.annotate(game, chess.engine.Limit(nodes=NODES), engine)
                except ValueError as e:
                    assert str(e) and annotation.game_problem(game) == str(e), note
                    refused += 1
                    continue
                assert annotation.game_problem(game) is None, note
                assert list(out.mainline_moves()) == list(game.mainline_moves()), note
                assert all(n.eval() is not None or "[%eval #0]" in n.comment
                           for n in out.mainline()), note
    assert refused > 0 and games > refused
    print(f"\npgn games: {cases(FILES_IN_PROCESS)} files, {games} games, {refused} refused, "
          f"{where('pgn games', cases(FILES_IN_PROCESS))}")
