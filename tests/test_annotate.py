"""`black-numba annotate` and `black_numba.annotate` on real PGNs: lichess's thresholds, an
[%eval] on every move, a hung queen judged a blunder, the engine's own moves judged not at all,
malformed games skipped and reported, a resumed run and a run on two Dask workers making the
same bytes as one uninterrupted run in one process."""
import io
import os
import shutil
import subprocess
import sys

import chess
import chess.engine
import chess.pgn
import pytest

import black_numba
from black_numba.frontends import annotation
from black_numba.frontends.annotation import BLUNDER, INACCURACY, MISTAKE, judgement, winning_chances
from conftest import ENGINE, ROOT

GAMES = os.path.join(ROOT, "tests", "data", "annotate_games.pgn")
NODES = 2000                      # small enough for a quick test, a search all the same
LIMIT = chess.engine.Limit(nodes=NODES)
ANNOTATOR = f"black_numba {black_numba.__version__}, {NODES} nodes a position"
SELF_PLAY_PLIES = 24
ASSESSMENTS = {chess.pgn.NAG_DUBIOUS_MOVE, chess.pgn.NAG_MISTAKE, chess.pgn.NAG_BLUNDER}


def games_in(text):
    f, out = io.StringIO(text), []
    while (g := annotation.read_game(f)) is not None:
        out.append(g)
    return out


def input_games():
    with open(GAMES) as f:
        return games_in(f.read())


def cli(*args, timeout=600):
    return subprocess.run([ENGINE, "annotate", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def engine():
    with black_numba.Engine({"Threads": 1, "Hash": 16}) as e:
        yield e


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """(output text, the run's stderr) of the data file annotated in one process, at once."""
    out = tmp_path_factory.mktemp("annotate") / "reference.pgn"
    r = cli(GAMES, "--out", str(out), "--nodes", str(NODES))
    assert r.returncode == 1, r.stderr                 # 1: games were skipped
    return out.read_text(), r.stderr


def W(cp):
    return chess.engine.PovScore(chess.engine.Cp(cp), chess.WHITE)


def WM(n):
    return chess.engine.PovScore(chess.engine.Mate(n), chess.WHITE)


def test_lichess_winning_chances_and_thresholds():
    # lichess's curve (lila WinPercent.winningChances), centipawns capped at 1000
    assert winning_chances(0) == 0
    assert winning_chances(15) == pytest.approx(0.027609, abs=1e-6)
    assert winning_chances(100) == pytest.approx(0.182052, abs=1e-6)
    assert winning_chances(-1000) == pytest.approx(-0.950895, abs=1e-6)
    assert winning_chances(5000) == winning_chances(1000)
    # drops of 0.1 / 0.2 / 0.3 in the mover's chances (lila Advice.scala)
    assert judgement(W(0), W(-50), chess.WHITE) is None           # 0.092
    assert judgement(W(0), W(-60), chess.WHITE) == INACCURACY     # 0.110
    assert judgement(W(0), W(120), chess.BLACK) == MISTAKE        # 0.217
    assert judgement(W(100), W(-100), chess.WHITE) == BLUNDER     # 0.364
    assert judgement(W(-100), W(100), chess.WHITE) is None        # a gain
    # forced mates (lila MateAdvice): into one, judged by how lost the position was already
    assert judgement(W(-800), WM(-3), chess.WHITE) == MISTAKE
    assert judgement(W(-1200), WM(-3), chess.WHITE) == INACCURACY
    assert judgement(W(50), WM(-3), chess.WHITE) == BLUNDER
    assert judgement(W(-50), WM(3), chess.BLACK) == BLUNDER       # Black walks into mate
    # letting one go, by how won the position stays
    assert judgement(WM(2), W(1200), chess.WHITE) == INACCURACY
    assert judgement(WM(2), W(800), chess.WHITE) == MISTAKE
    assert judgement(WM(2), W(300), chess.WHITE) == BLUNDER
    assert judgement(WM(2), WM(-1), chess.WHITE) == BLUNDER
    assert judgement(WM(3), WM(2), chess.WHITE) is None


def test_every_move_gets_an_eval_and_the_input_is_untouched(engine):
    game = input_games()[0]                                       # Morphy's opera game
    before = str(game)
    out = black_numba.annotate(game, LIMIT, engine)
    assert str(game) == before
    assert isinstance(out, chess.pgn.Game)
    moves = list(out.mainline())
    assert [n.move for n in moves] == list(game.mainline_moves())
    assert all(n.eval() is not None for n in moves)
    assert moves[-1].comment.endswith("[%eval #0]")              # 17. Rd8#: Black is mated
    assert moves[-1].eval() == chess.engine.PovScore(chess.engine.Mate(0), chess.BLACK)
    assert out.headers["Annotator"] == ANNOTATOR
    for tag in ("WhiteACPL", "BlackACPL"):
        assert out.headers[tag].isdigit()
    assert out.headers["White"] == "Paul Morphy"
    # the better line only where a move was a mistake or a blunder, and it starts elsewhere
    for node in out.mainline():
        parent = node.parent
        if node.nags & {chess.pgn.NAG_MISTAKE, chess.pgn.NAG_BLUNDER}:
            assert len(parent.variations) == 2 and parent.variations[1].move != node.move
            assert parent.variations[1].eval() is not None
        else:
            assert len(parent.variations) == 1


def test_hung_queen_is_a_blunder(engine):
    game = input_games()[1]                   # 3... Qf5, en prise to the e4 pawn
    out = black_numba.annotate(game, LIMIT, engine)
    nodes = list(out.mainline())
    qf5, exf5 = nodes[5], nodes[6]
    assert qf5.san() == "Qf5" and exf5.san() == "exf5"
    assert chess.pgn.NAG_BLUNDER in qf5.nags
    assert qf5.comment.startswith("the queen on f5 hangs to the e4 pawn Blunder.")
    assert qf5.eval().white().score() > 500
    better = qf5.parent.variations[1]
    assert better.move != qf5.move and len(list(better.mainline())) >= 1
    assert not exf5.nags & ASSESSMENTS                            # taking it is best
    assert int(out.headers["BlackACPL"]) > int(out.headers["WhiteACPL"])


def test_the_engines_own_moves_get_no_judgement(engine):
    """A game the engine played itself at a node limit (Threads 1, a fresh engine), annotated at
    the same limit: every move is the engine's best, so none is judged; and the shared engine,
    which annotated other games before, gives the same file as a fresh one (it is cleared)."""
    game = chess.pgn.Game()
    node, board = game, chess.Board()
    with black_numba.Engine({"Threads": 1, "Hash": 16}) as player:
        token = object()
        for _ in range(SELF_PLAY_PLIES):
            move = player.play(board, LIMIT, game=token).move
            node = node.add_variation(move)
            board.push(move)
    black_numba.annotate(input_games()[0], LIMIT, engine)        # something else first
    out = black_numba.annotate(game, LIMIT, engine)
    assert len(list(out.mainline())) == SELF_PLAY_PLIES
    assert all(not n.nags and "was best" not in n.comment and n.eval() is not None
               for n in out.mainline())
    assert all(len(n.variations) <= 1 for n in out.mainline())
    assert str(black_numba.annotate(game, LIMIT)) == str(out)     # its own fresh engine


def test_malformed_games_are_reported_and_skipped(reference, engine):
    text, stderr = reference
    assert "game 3 skipped: 2. Ke3 is not a legal move in that position" in stderr
    assert "game 5 skipped: variant 'Atomic' is not supported" in stderr
    out = games_in(text)
    assert [g.headers["Event"] for g in out] == ["Paris", "Hung queen", "Back rank"]
    assert all(n.eval() is not None for g in out for n in g.mainline())
    # the command writes what black_numba.annotate makes, in input order
    good = [g for g in input_games() if annotation.game_problem(g) is None]
    assert text == "".join(str(black_numba.annotate(g, LIMIT, engine)) + "\n\n" for g in good)
    with pytest.raises(ValueError, match="Ke3 is not a legal move in that position"):
        black_numba.annotate(input_games()[2], LIMIT, engine)


def test_bad_arguments(tmp_path):
    for args in (["--nodes", "10", "--depth", "3"], ["--nodes", "0"], ["--time", "-1"],
                 ["--hash", str(1 << 40)], ["--threads", "0"]):
        r = cli(GAMES, "--out", str(tmp_path / "x.pgn"), *args)
        assert r.returncode == 2 and "annotate" in r.stderr, (args, r.stderr)
        assert not (tmp_path / "x.pgn").exists()
    r = cli(str(tmp_path / "missing.pgn"), "--out", str(tmp_path / "x.pgn"))
    assert r.returncode == 2 and "missing.pgn" in r.stderr
    copy = tmp_path / "in.pgn"
    shutil.copy(GAMES, copy)
    r = cli(str(copy), "--out", str(copy))
    assert r.returncode == 2 and "input file" in r.stderr
    assert copy.read_text() == open(GAMES).read()


def test_import_stays_cheap():
    r = subprocess.run([sys.executable, "-c", "import sys, black_numba; "
                        "print(sorted(m for m in ('chess', 'numba', 'black_numba.frontends.annotation') "
                        "if m in sys.modules)); print(callable(black_numba.annotate))"],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.stdout.split() == ["[]", "True"], r.stderr


@pytest.mark.slow
def test_resumed_run_gives_the_same_file(reference, tmp_path):
    text, _ = reference
    second = text.index('[Event "Hung queen"')
    third = text.index('[Event "Back rank"')
    # stopped in the middle of writing game 2; stopped after game 2 (game 3 is malformed)
    for kept in (text[:second] + text[second:second + 200], text[:third]):
        out = tmp_path / "resumed.pgn"
        out.write_text(kept)
        r = cli(GAMES, "--out", str(out), "--nodes", str(NODES))
        assert r.returncode == 1, r.stderr
        assert "resuming after the" in r.stderr
        assert out.read_text() == text
    # a finished file is left as it is; another limit does not continue it
    r = cli(GAMES, "--out", str(out), "--nodes", str(NODES))
    assert "0 games" in r.stderr and out.read_text() == text
    r = cli(GAMES, "--out", str(out), "--nodes", str(NODES + 1))
    assert r.returncode == 2 and "was annotated by" in r.stderr
    assert out.read_text() == text


@pytest.mark.slow
def test_two_dask_workers_give_the_same_file(reference, tmp_path):
    text, _ = reference
    out = tmp_path / "jobs2.pgn"
    r = cli(GAMES, "--out", str(out), "--nodes", str(NODES), "--jobs", "2")
    assert r.returncode == 1, r.stderr
    assert "a local cluster of 2 workers" in r.stderr
    assert "game 3 skipped: " in r.stderr and "Ke3 is not a legal move in that position" in r.stderr \
        and "game 5 skipped" in r.stderr
    assert out.read_text() == text
