"""The plain-pipe reference engine client gives python-chess's labels, and fails clearly."""
import chess
import chess.engine
import pytest

from black_numba.training.refengine import EngineError, RefEngine
from conftest import ENGINE

FENS = [
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "8/8/4k3/8/2K5/8/3Q4/8 b - - 0 1",
]


def test_scores_equal_python_chess_analyse():
    """Same commands, same engine, same node count: the same scores (our engine as the
    reference, deterministic on one thread after ucinewgame)."""
    ref = RefEngine(ENGINE, {"Threads": 1, "Hash": 16})
    try:
        ours = [ref.score(fen, 3000, game) for game, fen in enumerate(FENS)]
    finally:
        ref.close()
    with chess.engine.SimpleEngine.popen_uci(ENGINE) as eng:
        eng.configure({"Hash": 16})
        theirs = []
        for game, fen in enumerate(FENS):
            info = eng.analyse(chess.Board(fen), chess.engine.Limit(nodes=3000), game=game)
            sc = info["score"].relative
            theirs.append(None if sc.is_mate() else sc.score())
    assert ours == theirs
    assert all(isinstance(s, int) for s in ours[:2])


def test_missing_engine_is_a_clear_error():
    with pytest.raises(EngineError, match="cannot start"):
        RefEngine("/nonexistent/engine")


def test_engine_that_exits_is_a_clear_error():
    with pytest.raises(EngineError, match="closed its output|is gone"):
        RefEngine("/bin/true")
