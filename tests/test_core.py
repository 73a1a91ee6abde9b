"""The engine core under both front ends: the UCI loop and the Python API share it and not
each other, the UCI loop stays a thin adapter, and the core's calls answer as the protocol
does."""
import ast
import os

import chess
import pytest

from black_numba.core.engine import TB_WIN, EngineCore, Result, score_parts
from black_numba.search.limits import Limits

PACKAGE = os.path.join(os.path.dirname(__file__), "..", "black_numba", "frontends")
UCI_MAX_LINES = 300


def _source(name):
    with open(os.path.join(PACKAGE, name + ".py")) as f:
        return f.read()


def _imports(name):
    """The modules a package module imports (`from black_numba import x` counts as
    black_numba.x)."""
    found = set()
    for node in ast.walk(ast.parse(_source(name))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            if node.module == "black_numba":
                found |= {"black_numba." + a.name for a in node.names}
    return found


def test_front_ends_import_the_core_and_not_each_other():
    uci, api = _imports("uci"), _imports("api")
    assert "black_numba.frontends.api" not in uci and "black_numba.frontends.uci" not in api
    assert "black_numba.core.engine" in uci and "black_numba.core.engine" in api
    # the UCI loop: text in, core calls, text out; what it imports of the package is the core
    # and the plain `go` limits, it starts no thread and holds no option action
    assert {m for m in uci if m.startswith("black_numba")} == {"black_numba.core.engine",
                                                                "black_numba.search.limits"}
    text = _source("uci")
    assert "Thread(" not in text and "_on_" not in text and "Searcher" not in text
    assert len(text.splitlines()) <= UCI_MAX_LINES


def test_conversions_exist_once():
    assert score_parts(35) == ("cp", 35) and score_parts(-35) == ("cp", -35)
    assert score_parts(32000 - 5) == ("mate", 3) and score_parts(-(32000 - 4)) == ("mate", -2)
    # tablebase results read as centipawns: 20,000 at the root, less by the plies to them
    assert [score_parts(s) for s in (TB_WIN, TB_WIN - 7, -TB_WIN + 3, 150)] == \
        [("cp", 20000), ("cp", 19993), ("cp", -19997), ("cp", 150)]
    assert Limits(depth=0, nodes=0).capped() == Limits(depth=1, nodes=1)
    assert Limits(depth=500).capped() == Limits(depth=100)


def _pushed(board, move):
    b = board.copy(stack=False)
    b.push(move)
    return b


@pytest.fixture(scope="module")
def core():
    c = EngineCore()
    c.need_search()
    yield c
    c.stop()


def test_core_searches_sets_options_and_positions(core):
    core.set_option("Hash", "8")
    core.set_option("multipv", 2)
    assert core.options["hash"] == 8 and core.options["multipv"] == 2
    with pytest.raises(ValueError, match="no such option"):
        core.set_option("Frobnicate", 1)
    with pytest.raises(ValueError, match="between"):
        core.set_option("Threads", 0)
    assert core.options["threads"] == 1
    core.new_game()
    # Scholar's mate threat: the core answers with the mate, its PV in UCI text
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    core.set_position(board.fen())
    infos = []
    result = core.go(Limits(depth=4), infos.append)
    assert isinstance(result, Result) and result.best == "h5f7" and result.source == "search"
    assert score_parts(result.score) == ("mate", 1)
    assert {i.multipv for i in infos if i.depth == 4} == {1, 2}
    assert all(chess.Move.from_uci(m) in board.legal_moves for i in infos for m in i.pv[:1])
    core.set_option("MultiPV", 1)
    # a bad move leaves the position as it was
    with pytest.raises(ValueError, match="position unchanged"):
        core.set_position(None, ["e2e4", "e2e4"])
    assert core.fen() == board.fen()
    core.set_position(None, ["e2e4", "e7e5"])
    assert core.fen() == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    after = chess.Board()
    after.push_uci("e2e4")
    after.push_uci("e7e5")
    expected = sum(len(list(_pushed(after, m).legal_moves)) for m in after.legal_moves)
    assert core.perft(2) == expected
    assert dict(core.divide(2)) == {m.uci(): len(list(_pushed(after, m).legal_moves))
                                    for m in after.legal_moves}
    assert isinstance(core.static_eval(), int)
    # searchmoves are UCI text, checked
    with pytest.raises(ValueError, match="illegal searchmoves"):
        core.go(Limits(depth=2), searchmoves=["e2e4"])
    assert core.go(Limits(depth=3), searchmoves=["a2a3"]).best == "a2a3"
    core.set_option("Hash", 16)
