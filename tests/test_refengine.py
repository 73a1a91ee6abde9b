"""The plain-pipe reference engine client gives python-chess's labels, and fails clearly."""
import os
import signal
import sys
import textwrap
import threading
import time

import chess
import chess.engine
import pytest

from black_numba import uci_client
from black_numba.training import refengine
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


ETHEREAL = "/usr/games/ethereal-chess"
STALLING = textwrap.dedent('''
    import sys, time
    for line in sys.stdin:
        cmd = line.split()
        if cmd[:1] == ["uci"]:
            print("id name staller", flush=True)
            print("uciok", flush=True)
        elif cmd[:1] == ["isready"]:
            print("readyok", flush=True)
        elif cmd[:1] == ["go"]:
            if MODE == "sleep":
                time.sleep(600)
            while True:
                pass
''')


@pytest.fixture
def short_waits(monkeypatch):
    monkeypatch.setattr(refengine, "SEARCH_TIMEOUT_S", 1)
    monkeypatch.setattr(uci_client, "PATIENCE_POLL_S", 0.2)


def test_a_paused_engine_is_waited_for_not_called_hung(short_waits):
    """Past the search's deadline datagen waits on while the engine is stopped or runnable
    (a nice-19 campaign starved of CPU, or paused): here Ethereal is SIGSTOPped for 3 s,
    three times the timeout, and its move still comes."""
    if not os.path.exists(ETHEREAL):
        pytest.fail(f"{ETHEREAL} is missing: `python3 bin/bootstrap test` installs it")
    ref = RefEngine(ETHEREAL, {"Threads": 1, "Hash": 16})
    try:
        assert ref.bestmove(chess.STARTING_FEN, [], "go depth 4", 0) in \
            {m.uci() for m in chess.Board().legal_moves}
        pid = ref.uci.proc.pid
        os.kill(pid, signal.SIGSTOP)
        threading.Timer(3.0, os.kill, (pid, signal.SIGCONT)).start()
        start = time.monotonic()
        best = ref.bestmove(chess.STARTING_FEN, ["e2e4"], "go depth 4", 1)
        assert time.monotonic() - start >= 2.5
        assert best in {m.uci() for m in chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/"
                                                      "RNBQKBNR b KQkq - 0 1").legal_moves}
        ref.uci.patient = False                  # the match runner's rule: the clock alone
        os.kill(pid, signal.SIGSTOP)
        try:
            with pytest.raises(EngineError, match="gave no answer in time"):
                ref.bestmove(chess.STARTING_FEN, ["e2e4", "e7e5"], "go depth 4", 1)
        finally:
            os.kill(pid, signal.SIGCONT)
    finally:
        ref.uci.kill()


@pytest.mark.parametrize("mode", ["sleep", "spin"])
def test_a_blocked_or_spinning_engine_still_hangs(short_waits, tmp_path, mode):
    """A patient wait ends all the same for an engine blocked without an answer (sleeping:
    at the deadline) or searching on past a whole timeout of CPU (spinning)."""
    script = tmp_path / "staller"
    script.write_text(f"#!{sys.executable}\nMODE = {mode!r}\n" + STALLING)
    script.chmod(0o755)
    ref = RefEngine(str(script), analyse=False)
    assert ref.uci.patient
    start = time.monotonic()
    try:
        with pytest.raises(EngineError, match="gave no answer in time"):
            ref.bestmove(chess.STARTING_FEN, [], "go depth 4", 0)
    finally:
        ref.uci.kill()
    assert time.monotonic() - start < 60
