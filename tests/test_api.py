"""The in-process interface (black_numba.Engine): python-chess's SimpleEngine calls and
types, the same answers as the engine process, and clear errors that leave it usable."""
import json
import os
import subprocess
import sys
import threading
import time

import chess
import chess.engine
import chess.variant
import numpy as np
import pytest

import black_numba
from conftest import ROOT

EXAMPLE = os.path.join(ROOT, "docs", "example.py")
OPEN_UCI = "with chess.engine.SimpleEngine.popen_uci(ENGINE) as engine:  # OPEN"
OPEN_IN_PROCESS = "with black_numba.Engine() as engine:  # OPEN"


@pytest.fixture(scope="module")
def engine():
    with black_numba.Engine() as e:
        yield e


def _run_example(tmp_path, opening):
    text = open(EXAMPLE).read()
    assert text.count(OPEN_UCI) == 1
    script = tmp_path / "example.py"
    script.write_text(text.replace(OPEN_UCI, opening).replace(
        'os.path.dirname(os.path.abspath(__file__)), ".."', repr(ROOT)))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout)


def test_example_script_gives_the_same_answers_both_ways(tmp_path):
    """docs/example.py through SimpleEngine.popen_uci and in-process, only its opening line
    changed: the same moves, scores and node counts at fixed nodes."""
    through_uci = _run_example(tmp_path, OPEN_UCI)
    in_process = _run_example(tmp_path, OPEN_IN_PROCESS)
    assert in_process == through_uci
    assert in_process["name"].startswith("black_numba")
    assert len(in_process["options"]) == 25 and in_process["hash"] == [16, 33554432]
    assert in_process["mate"] == [1, "d1d8"]
    assert in_process["chess960"][1] is True
    assert in_process["play"][1] > 0 and len(in_process["multipv"]) == 2
    assert in_process["multipv"][0][1] != in_process["multipv"][1][1]
    assert in_process["root_moves"][0] in ("b5a4", "b5c6")
    assert in_process["analysis_depths"] == 8


def test_types_are_python_chess_types(engine):
    board = chess.Board()
    result = engine.play(board, chess.engine.Limit(depth=5), info=chess.engine.INFO_ALL)
    assert isinstance(result, chess.engine.PlayResult) and result.move in board.legal_moves
    assert isinstance(result.info["score"], chess.engine.PovScore)
    assert result.info["depth"] == 5 and result.info["pv"][0] == result.move
    assert isinstance(engine.options["Threads"], chess.engine.Option)
    lines = engine.analyse(board, chess.engine.Limit(depth=4), multipv=3)
    assert [i["multipv"] for i in lines] == [1, 2, 3]
    assert len({i["pv"][0] for i in lines}) == 3


def test_move_stack_is_honoured(engine):
    """The losing side takes the threefold repetition its game's history offers."""
    board = chess.Board("1n5k/8/8/8/8/8/8/3Q2K1 w - - 0 1")
    for uci in "d1d2 b8c6 d2d1 c6b8 d1d2 b8c6 d2d1".split():
        board.push_uci(uci)
    info = engine.analyse(board, chess.engine.Limit(depth=8))
    assert info["pv"][0].uci() == "c6b8" and info["score"].relative == chess.engine.Cp(0)


def test_analysis_is_stopped_from_another_thread(engine):
    analysis = engine.analysis(chess.Board())
    threading.Timer(0.5, analysis.stop).start()
    t0 = time.perf_counter()
    best = analysis.wait()
    assert time.perf_counter() - t0 < 5
    assert best.move in chess.Board().legal_moves
    assert analysis.info["depth"] >= 1
    # and the engine is free again
    assert engine.play(chess.Board(), chess.engine.Limit(depth=2)).move is not None


def test_bad_input_raises_and_leaves_the_engine_usable(engine):
    with pytest.raises(ValueError, match="atomic"):
        engine.play(chess.variant.AtomicBoard(), chess.engine.Limit(depth=2))
    with pytest.raises(ValueError, match="illegal board"):
        engine.analyse(chess.Board("8/8/8/8/8/8/8/8 w - - 0 1"), chess.engine.Limit(depth=2))
    with pytest.raises(ValueError, match="depth must not be negative"):
        engine.analyse(chess.Board(), chess.engine.Limit(depth=-1))
    with pytest.raises(chess.engine.EngineError, match="no such option"):
        engine.configure({"Bogus": 1})
    with pytest.raises(chess.engine.EngineError, match="between 1 and 33554432"):
        engine.configure({"Hash": 0})
    with pytest.raises(chess.engine.EngineError, match="keeping the network"):
        engine.configure({"EvalFile": "/nonexistent/net.bnn"})
    with pytest.raises(ValueError, match="perft depth"):
        engine.perft(chess.Board(), -1)
    info = engine.analyse(chess.Board(), chess.engine.Limit(depth=3))
    assert info["depth"] == 3 and info["pv"][0] in chess.Board().legal_moves


def test_perft_divide_and_evaluate(engine):
    board = chess.Board()
    assert engine.perft(board, 4) == 197281
    board.push_uci("e2e4")
    assert engine.perft(board, 3, threads=2, hash_mb=1) == 13160
    div = engine.divide(board, 2)
    assert len(div) == 20 and sum(div.values()) == 600
    fens = [chess.STARTING_FEN, "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"]
    scores = engine.evaluate([chess.Board(fens[0]), fens[1]])
    assert scores.dtype == np.int32 and scores.shape == (2,)
    assert abs(int(scores[0])) < 100 and scores[1] > 200    # a queen up (the network says 282)
    r = subprocess.run([os.path.join(ROOT, "bin", "black-numba"), "eval", "--epd", "/dev/stdin",
                        "--device", "cpu"], input="\n".join(fens) + "\n", capture_output=True,
                       text=True)
    assert [int(l.split(";")[1]) for l in r.stdout.splitlines()] == [int(s) for s in scores]


def test_quit_ends_the_session():
    e = black_numba.Engine({"Hash": 8})
    assert e.play(chess.Board(), chess.engine.Limit(nodes=500)).move is not None
    e.quit()
    with pytest.raises(chess.engine.EngineTerminatedError):
        e.play(chess.Board(), chess.engine.Limit(nodes=500))
