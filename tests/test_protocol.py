"""The protocol as GUIs and python-chess expect it: `go infinite` waits for `stop` whatever
the book says, UCI_AnalyseMode turns the book off, UCI_Opponent in the forms it arrives in,
Hash up to what the machine holds, EvalFile's default as python-chess reads it, SimpleEngine's
ping and game-information calls, and the Python API's rule for limits that cannot end."""
import os
import re
import queue
import struct
import threading
import time

import chess
import chess.engine
import chess.polyglot
import pytest

import black_numba
from black_numba.core import engine as core_module
from black_numba.frontends.api import MATE_ALONE_NODES, MATE_ALONE_PLIES
from black_numba.core.engine import HASH_MAX_MB, EngineCore, Opponent, parse_opponent
from black_numba.search.limits import Limits
from conftest import ENGINE, ROOT, Raw

BOOK_MOVE = "e2e4"
SYZYGY_DIR = os.path.join(ROOT, "tests", "data", "syzygy")
SCHOLAR = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"   # h5f7#


def _polyglot_move(uci):
    """A move in Polyglot's 16 bits: to file, to row, from file, from row (3 bits each)."""
    m = chess.Move.from_uci(uci)
    return (chess.square_file(m.to_square) | chess.square_rank(m.to_square) << 3 |
            chess.square_file(m.from_square) << 6 | chess.square_rank(m.from_square) << 9)


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """A one-entry Polyglot book: the start position -> e2e4 (key, move, weight, learn)."""
    path = tmp_path_factory.mktemp("book") / "one.bin"
    path.write_bytes(struct.pack(">QHHI", chess.polyglot.zobrist_hash(chess.Board()),
                                 _polyglot_move(BOOK_MOVE), 1, 0))
    with chess.polyglot.open_reader(str(path)) as reader:       # python-chess reads it back
        assert reader.find(chess.Board()).move.uci() == BOOK_MOVE
    return str(path)


def _lines_for(raw, seconds):
    """Every line the engine sends within seconds."""
    out, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            line = raw.q.get(timeout=max(0.01, end - time.monotonic()))
        except queue.Empty:
            break
        if line is None:
            raise EOFError("engine exited: " + "\n".join(out[-5:]))
        out.append(line)
    return out


def test_go_infinite_waits_for_stop_after_a_book_move(book):
    raw = Raw()
    try:
        raw.send("uci", f"setoption name BookFile value {book}",
                 "setoption name OwnBook value true", "isready")
        raw.wait_for("readyok", timeout=120)
        raw.send("position startpos", "go infinite")
        out = _lines_for(raw, 2.0)
        assert not [l for l in out if l.startswith("bestmove")], out
        # the book move first (a note and a depth 0 line), then the search's lines
        assert out[0] == f"info string book move {BOOK_MOVE}", out
        assert out[1] == f"info depth 0 score cp 0 pv {BOOK_MOVE}", out
        assert any(l.startswith("info depth 1 ") for l in out[2:]), out
        raw.send("stop")
        out = raw.wait_for("bestmove", timeout=30)
        assert out[-1].split()[:2] == ["bestmove", BOOK_MOVE]
        # any other limit is answered from the book at once, as before
        raw.send("position startpos", "go depth 20")
        out = raw.wait_for("bestmove", timeout=30)
        assert out[-1] == f"bestmove {BOOK_MOVE}" and len(out) == 3, out
        # UCI_AnalyseMode turns the book off: the search answers
        raw.send("setoption name UCI_AnalyseMode value true", "position startpos", "go depth 3")
        out = raw.wait_for("bestmove", timeout=60)
        assert not any("book" in l for l in out) and any(" depth 3 " in l for l in out), out
        raw.send("setoption name UCI_AnalyseMode value false", "go depth 3")
        assert raw.wait_for("bestmove", timeout=30)[-1] == f"bestmove {BOOK_MOVE}"
    finally:
        raw.close()


def test_go_infinite_waits_for_stop_in_a_tablebase_position():
    """A position in the tables is searched, under go infinite until stop: its lines show
    the only winning move (as python-chess's reader of the same tables says) with the
    tables' score, or a mate the search finds."""
    raw = Raw()
    try:
        raw.send("uci", f"setoption name SyzygyPath value {SYZYGY_DIR}", "isready")
        raw.wait_for("readyok", timeout=120)
        raw.send("position fen 8/8/8/4k3/8/8/4PK2/8 w - - 0 1", "go infinite")
        out = raw.wait_for("info depth 2 ", timeout=120)    # however slow a first search is
        out += _lines_for(raw, 1.5)
        assert not [l for l in out if l.startswith("bestmove")], out
        lines = [l for l in out if l.startswith("info depth") and " pv " in l]
        # the tables' win (cp 20000) until the search sees a mate itself, which ranks higher
        assert lines and all(" pv f2e3" in l and (" score cp 20000 " in l or
                                                 re.search(r" score mate [1-9]", l))
                             for l in lines), out
        assert " score cp 20000 " in lines[0], out
        raw.send("stop")
        assert raw.wait_for("bestmove", timeout=30)[-1].split()[:2] == ["bestmove", "f2e3"]
    finally:
        raw.close()


def test_analysis_waits_for_stop_after_a_book_move(book):
    with black_numba.Engine({"OwnBook": True, "BookFile": book,
                             "UCI_AnalyseMode": False}) as engine:
        analysis = engine.analysis(chess.Board())
        first = analysis.get()
        assert first["depth"] == 0 and first["pv"] == [chess.Move.from_uci(BOOK_MOVE)]
        answer = []
        waiter = threading.Thread(target=lambda: answer.append(analysis.wait()), daemon=True)
        waiter.start()
        waiter.join(1.5)
        assert waiter.is_alive() and not answer       # no best move before stop
        assert analysis.info["depth"] >= 1            # the search ran on
        analysis.stop()
        waiter.join(30)
        assert answer[0].move == chess.Move.from_uci(BOOK_MOVE)
        # play() plays from the book (UCI_AnalyseMode stays as configured)
        assert engine.play(chess.Board(), chess.engine.Limit(depth=10)).move.uci() == BOOK_MOVE


def test_python_api_sets_analyse_mode_as_python_chess_does(book):
    """Unless configured, UCI_AnalyseMode is on for analyse and analysis (no book) and off for
    play (the book), as python-chess sets it."""
    with black_numba.Engine({"OwnBook": True, "BookFile": book}) as engine:
        info = engine.analyse(chess.Board(), chess.engine.Limit(depth=3))
        assert info["depth"] == 3 and engine._core.options["uci_analysemode"] is True
        with engine.analysis(chess.Board()) as analysis:
            assert analysis.get()["depth"] == 1       # no book line: the search's first
        result = engine.play(chess.Board(), chess.engine.Limit(depth=3))
        assert result.move.uci() == BOOK_MOVE
        assert engine._core.options["uci_analysemode"] is False
        # a call's own options win, and are not kept as configured
        info = engine.analyse(chess.Board(), chess.engine.Limit(depth=3),
                              options={"UCI_AnalyseMode": False})
        assert info["pv"] == [chess.Move.from_uci(BOOK_MOVE)]


def test_uci_opponent_forms():
    assert parse_opponent("GM 2850 human Magnus Carlsen") == \
        Opponent("Magnus Carlsen", "GM", 2850, False)
    assert parse_opponent("none none computer Stockfish 15.1") == \
        Opponent("Stockfish 15.1", None, None, True)             # Cute Chess 1.5.1
    assert parse_opponent("BOT 2400 computer maia9") == Opponent("maia9", "BOT", 2400, True)
    assert parse_opponent("Stockfish 15.1") == Opponent("Stockfish 15.1")     # a bare name
    assert parse_opponent("GM top human x") == Opponent("GM top human x")  # not the 4-word form
    assert parse_opponent("") is None and parse_opponent("  ") is None
    # through the UCI loop: each form is taken without a word
    raw = Raw()
    try:
        raw.send("uci", "setoption name UCI_Opponent value GM 2850 human Magnus Carlsen",
                 "setoption name UCI_Opponent value none none computer Stockfish 15.1",
                 "setoption name UCI_Opponent value Stockfish 15.1",
                 "setoption name UCI_Opponent value <empty>", "isready")
        out = raw.wait_for("readyok", timeout=120)
        assert not [l for l in out if "error" in l], out
    finally:
        raw.close()


def test_opponent_ping_and_game_result_as_simple_engine():
    with black_numba.Engine() as engine:
        assert engine.ping() is None and engine.opponent is None
        them = chess.engine.Opponent(name="Magnus Carlsen", title="GM", rating=2850,
                                     is_engine=False)
        engine.send_opponent_information(opponent=them, engine_rating=2400)
        assert engine.opponent == them
        assert engine._core.options["uci_opponent"] == "GM 2850 human Magnus Carlsen"
        engine.send_opponent_information(opponent=chess.engine.Opponent("lc0", None, None, True))
        assert engine.opponent == chess.engine.Opponent("lc0", None, None, True)
        engine.send_opponent_information()                # no opponent: nothing changes
        assert engine.opponent.name == "lc0"
        engine.configure({"UCI_Opponent": "Stockfish 15.1"})
        assert engine.opponent == chess.engine.Opponent("Stockfish 15.1", None, None, None)
        # play(opponent=...) as python-chess: sets it (a new game when it changes)
        engine.play(chess.Board(), chess.engine.Limit(depth=2), opponent=them)
        assert engine.opponent == them
        # ping answers at once during an analysis
        analysis = engine.analysis(chess.Board())
        t0 = time.perf_counter()
        engine.ping()
        assert time.perf_counter() - t0 < 1
        analysis.stop()
        analysis.wait()
        board = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
        assert engine.send_game_result(board) is None
        assert engine.send_game_result(board, chess.BLACK, "White mated") is None
        assert engine.send_game_result(chess.Board(), None, "adjourned", False) is None
        with pytest.raises(ValueError, match="winner"):
            engine.send_game_result(board, "black")
        with pytest.raises(ValueError, match="one line"):
            engine.send_game_result(board, None, "a\nb")
        with pytest.raises(ValueError, match="chess.Board"):
            engine.send_game_result(board.fen())
        assert engine.play(chess.Board(), chess.engine.Limit(depth=2)).move is not None
    with pytest.raises(chess.engine.EngineTerminatedError):
        engine.ping()
    with pytest.raises(chess.engine.EngineTerminatedError):
        engine.send_game_result(board)


def test_simple_engine_sees_the_new_options_and_evalfile_default():
    """python-chess's own parser of the `uci` answer (python-chess 1.11.2 split a default of
    `default.bnn` at the word `default`): EvalFile's default reads whole, UCI_Opponent and
    UCI_AnalyseMode are declared, and send_opponent_information / ping / send_game_result
    work over the process."""
    with chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=120) as engine:
        assert engine.options["EvalFile"].default == "<shipped>"
        assert engine.options["Hash"].max == HASH_MAX_MB
        assert engine.options["UCI_AnalyseMode"].type == "check"
        assert engine.options["UCI_Opponent"].type == "string"
        engine.send_opponent_information(opponent=chess.engine.Opponent("x", "GM", 2500, False))
        engine.ping()
        result = engine.play(chess.Board(), chess.engine.Limit(depth=3))
        assert result.move in chess.Board().legal_moves
        engine.send_game_result(chess.Board())
        engine.configure({"EvalFile": "default.bnn"})
        engine.configure({"EvalFile": "<shipped>"})
        engine.ping()


def test_hash_up_to_what_the_machine_holds(monkeypatch):
    c = EngineCore()
    c.need_search()
    try:
        c.set_option("Hash", 8192)                # lazily zeroed: cheap until written
        table = c.searcher.tt
        assert table.nbytes == 8192 << 20
        c.new_game()                              # a new table is not written again
        assert c.go(Limits(depth=5)).best is not None
        with pytest.raises(ValueError, match="more than the memory available.*keeping the "
                                             "8192 MB table"):
            c.set_option("Hash", HASH_MAX_MB)
        assert c.searcher.tt is table and c.options["hash"] == 8192
        # where the memory cannot be told, the allocation itself is tried: 32 TB fails where
        # Linux refuses obvious overcommits (its default, vm.overcommit_memory 0, or 2)
        monkeypatch.setattr(core_module, "available_memory_mb", lambda: None)
        with open("/proc/sys/vm/overcommit_memory") as f:
            overcommit = f.read().strip()
        if overcommit != "1":
            with pytest.raises(ValueError, match="cannot allocate 33554432 MB.*keeping the 8192"):
                c.set_option("Hash", HASH_MAX_MB)
            assert c.searcher.tt is table and c.options["hash"] == 8192
        c.set_option("Hash", 16)
        assert c.go(Limits(depth=5)).best is not None
    finally:
        c.close()
    # through the UCI loop
    raw = Raw()
    try:
        raw.send("uci", "setoption name Hash value 8192", "ucinewgame", "isready")
        out = raw.wait_for("readyok", timeout=120)
        assert not [l for l in out if "error" in l], out
        raw.send(f"setoption name Hash value {HASH_MAX_MB}", "isready")
        out = raw.wait_for("readyok", timeout=30)
        assert any(l.startswith("info string error: setoption: Hash 33554432 MB is more than")
                   and "keeping the 8192 MB table" in l for l in out), out
        raw.send("position startpos", "go depth 5")
        assert raw.wait_for("bestmove", timeout=60)[-1].startswith("bestmove ")
    finally:
        raw.close()


def _within(seconds, call):
    """call()'s result or exception, or a failure when it takes longer than seconds."""
    box = []

    def run():
        try:
            box.append(("value", call()))
        except Exception as e:                   # handed back to the test
            box.append(("error", e))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"still searching after {seconds} s"
    kind, value = box[0]
    if kind == "error":
        raise value
    return value


def test_limits_that_cannot_end_are_refused_or_bounded():
    """play and analyse wait for the search's end and have no stop: Limit(mate=0) and limits
    without time, depth, nodes or the side to move's clock are refused at once; a mate limit
    alone is bounded. analysis keeps UCI's rule (its stop ends it)."""
    Limit = chess.engine.Limit
    start = chess.Board()
    with black_numba.Engine() as engine:
        with pytest.raises(ValueError, match="mate=0"):
            _within(1, lambda: engine.play(start, Limit(mate=0)))
        with pytest.raises(ValueError, match="mate=0"):
            _within(1, lambda: engine.analysis(start, Limit(mate=0)))
        for limit in (Limit(), Limit(white_inc=1), Limit(remaining_moves=20)):
            for call in (engine.play, engine.analyse):
                with pytest.raises(ValueError, match="may never end.*analysis"):
                    _within(1, lambda: call(start, limit))
        black = chess.Board()
        black.push_uci("e2e4")
        with pytest.raises(ValueError, match="may never end"):       # White's clock only
            _within(1, lambda: engine.play(black, Limit(white_clock=10)))
        assert _within(60, lambda: engine.play(black, Limit(black_clock=1))).move is not None
        # a mate limit alone: bounded, the best move found (no mate from the start position)
        result = _within(120, lambda: engine.play(start, Limit(mate=2),
                                                  info=chess.engine.INFO_ALL))
        assert result.move in start.legal_moves
        assert result.info["depth"] <= 2 * 2 + MATE_ALONE_PLIES
        assert result.info["nodes"] <= MATE_ALONE_NODES * 1.1
        # and a mate there is found
        info = _within(60, lambda: engine.analyse(chess.Board(SCHOLAR), Limit(mate=1)))
        assert info["pv"][0].uci() == "h5f7" and info["score"].relative == chess.engine.Mate(1)
        # analysis without a limit runs until stop, as UCI's go infinite
        analysis = engine.analysis(start)
        time.sleep(0.3)
        analysis.stop()
        assert _within(30, analysis.wait).move in start.legal_moves
        assert engine.play(start, Limit(depth=2)).move is not None


def _score_cp(words):
    """An `info` line's score in centipawns, a mate as +-(100000 - plies)."""
    i = words.index("score")
    kind, value = words[i + 1], int(words[i + 2])
    return value if kind == "cp" else (100000 - abs(value)) * (1 if value > 0 else -1)


MULTIPV_ORDER_LINES = 4
MULTIPV_ORDER_DEPTHS = (4, 7, 9)


def test_multipv_lines_come_ranked_by_score_at_every_completed_depth(positions):
    """GUIs, the API, the levels and the Hustler read line 1 as the best: the search ranks
    the lines after each one (as Stockfish's stable sort), so at every depth whose lines all
    ended, the scores do not rise with the line number (the reported position of issue 75
    among them: it printed 23, 23, 5, 18, 8 at depth 15)."""
    fens = ["r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"]
    fens += [b.fen() for b in positions[7::37]
             if not b.is_game_over() and b.legal_moves.count() > MULTIPV_ORDER_LINES][:21]
    assert len(fens) >= 20
    eng = Raw()
    checked = 0
    try:
        eng.send("uci", f"setoption name MultiPV value {MULTIPV_ORDER_LINES}", "isready")
        eng.wait_for("readyok")
        for i, fen in enumerate(fens):
            depth = MULTIPV_ORDER_DEPTHS[i % len(MULTIPV_ORDER_DEPTHS)]
            eng.send("ucinewgame", f"position fen {fen}", f"go depth {depth}")
            out = eng.wait_for("bestmove", timeout=120)
            lines = {}
            for line in out:
                w = line.split()
                if w[:2] == ["info", "depth"] and "multipv" in w and "pv" in w \
                        and "bound" not in line:
                    lines.setdefault(int(w[2]), {})[int(w[w.index("multipv") + 1])] = \
                        (_score_cp(w), w[w.index("pv") + 1])
            for d, by_k in lines.items():
                if len(by_k) < MULTIPV_ORDER_LINES:
                    continue                 # an iteration cut short reports fewer lines
                scores = [by_k[k][0] for k in sorted(by_k)]
                assert scores == sorted(scores, reverse=True), (fen, d, scores)
                assert len({by_k[k][1] for k in by_k}) == MULTIPV_ORDER_LINES
                checked += 1
            assert out[-1].split()[1] == lines[max(lines)][1][1], (fen, out[-1])
    finally:
        eng.close()
    assert checked >= 20 * 3
