"""The engine as GUIs and lichess-bot see it: a real process driven by python-chess's UCI
client (the one lichess-bot uses), raw protocol checks and the polyglot adapter. The protocol
fuzz is tests/test_fuzz_uci.py."""
import os
import shutil
import subprocess
import time

import chess
import chess.engine
import pytest

from conftest import ENGINE, Raw

pytestmark = pytest.mark.slow        # real games: run by CI, not the fast set

LICHESS_BOT_OPTIONS = {"Move Overhead": 100, "Threads": 1, "Hash": 32, "SyzygyPath": "",
                       "UCI_ShowWDL": True}


@pytest.fixture(scope="module")
def engine():
    eng = chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=120)
    yield eng
    eng.quit()


def test_declares_the_options_lichess_bot_sets(engine):
    for name in LICHESS_BOT_OPTIONS:
        assert name in engine.options
    for name in ("Ponder", "MultiPV", "Clear Hash", "OwnBook", "BookFile"):
        assert name in engine.options
    assert engine.options["MultiPV"].max >= 10
    engine.configure(LICHESS_BOT_OPTIONS)


def test_reports_score_and_legal_moves_with_each_limit(engine):
    board = chess.Board()
    for limit in (chess.engine.Limit(depth=6), chess.engine.Limit(nodes=20000),
                  chess.engine.Limit(time=0.2)):
        result = engine.play(board, limit, info=chess.engine.INFO_ALL)
        assert result.move in board.legal_moves
        assert result.info.get("score") is not None
        board.push(result.move)


def _play_game(engine, limit_for, max_plies=400):
    board = chess.Board()
    engine.configure({"Clear Hash": None})
    while not board.is_game_over(claim_draw=True) and board.ply() < max_plies:
        result = engine.play(board, limit_for(board))
        assert result.move in board.legal_moves, (board.fen(), result.move)
        board.push(result.move)
    return board


def test_complete_game_at_one_second_plus_ten_ms(engine):
    clock = {chess.WHITE: 1.0, chess.BLACK: 1.0}
    inc = 0.01

    def limit(board):
        return chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                  white_inc=inc, black_inc=inc)

    board = chess.Board()
    engine.ping()                      # isready first, as a GUI does before starting the clock
    while not board.is_game_over(claim_draw=True) and board.ply() < 300:
        t0 = time.monotonic()
        result = engine.play(board, limit(board))
        spent = time.monotonic() - t0
        clock[board.turn] += inc - spent
        # the same 50 ms of grace a GUI gives for pipe and scheduling lag (match.py gives 100)
        assert clock[board.turn] > -0.05, f"lost on time at ply {board.ply()}"
        assert result.move in board.legal_moves
        board.push(result.move)
    assert board.ply() > 20


def test_complete_games_with_movetime_nodes_and_depth(engine):
    for limit in (chess.engine.Limit(time=0.02), chess.engine.Limit(nodes=800),
                  chess.engine.Limit(depth=2)):
        board = _play_game(engine, lambda b: limit, max_plies=160)
        assert board.ply() >= 20


def test_analyse_multipv_three(engine):
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    infos = engine.analyse(board, chess.engine.Limit(depth=6), multipv=3)
    assert len(infos) == 3
    moves = [i["pv"][0] for i in infos]
    assert len(set(moves)) == 3 and moves[0] == chess.Move.from_uci("h5f7")
    assert infos[0]["score"].white().mate() == 1


def test_ponder_and_ponderhit(engine):
    # python-chess sets Ponder itself and sends `go ponder` after each move, then `ponderhit`
    # when the predicted reply is played (or `stop` when it is not)
    board = chess.Board()
    hits = 0
    for i in range(6):
        result = engine.play(board, chess.engine.Limit(white_clock=5, black_clock=5), ponder=True)
        assert result.move in board.legal_moves
        board.push(result.move)
        if result.ponder in board.legal_moves and i % 3:
            reply = result.ponder
            hits += 1
        else:
            reply = next(m for m in board.legal_moves if m != result.ponder)
        board.push(reply)
    assert hits >= 2
    engine.play(board, chess.engine.Limit(depth=2))


def test_stop_during_infinite_and_isready_while_searching():
    raw = Raw()
    try:
        raw.send("uci")
        raw.wait_for("uciok")
        raw.send("isready")
        raw.wait_for("readyok")
        raw.send("position startpos", "go infinite")
        time.sleep(1.0)
        raw.send("isready")
        out = raw.wait_for("readyok", timeout=5)
        assert not any(l.startswith("bestmove") for l in out)
        t0 = time.monotonic()
        raw.send("stop")
        out = raw.wait_for("bestmove", timeout=5)
        assert time.monotonic() - t0 < 2
        move = out[-1].split()[1]
        assert chess.Move.from_uci(move) in chess.Board().legal_moves
        # a new search right after stop is not confused with the old one
        raw.send("position startpos moves e2e4", "go depth 4")
        out = raw.wait_for("bestmove", timeout=30)
        board = chess.Board()
        board.push_uci("e2e4")
        assert chess.Move.from_uci(out[-1].split()[1]) in board.legal_moves
    finally:
        raw.close()


def test_ponder_stop_and_no_legal_move():
    raw = Raw()
    try:
        raw.send("uci", "isready")
        raw.wait_for("readyok")
        raw.send("position startpos moves e2e4", "go ponder wtime 10000 btime 10000")
        time.sleep(0.3)
        raw.send("stop")
        out = raw.wait_for("bestmove", timeout=5)
        assert out[-1].startswith("bestmove ")
        raw.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "go depth 5")
        out = raw.wait_for("bestmove", timeout=10)
        assert out[-1] == "bestmove 0000"
    finally:
        raw.close()


def test_eof_quits_cleanly():
    p = subprocess.run([ENGINE], input="uci\nisready\n", capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0 and "readyok" in p.stdout


def test_nothing_but_protocol_on_stdout():
    p = subprocess.run([ENGINE], input="uci\nisready\nposition startpos\ngo depth 3\n",
                       capture_output=True, text=True, timeout=60)
    first = ("id ", "option ", "uciok", "readyok", "info ", "bestmove ")
    assert all(line.startswith(first) for line in p.stdout.splitlines()), p.stdout


POLYGLOT = shutil.which("polyglot") or ("/usr/games/polyglot" if os.path.exists("/usr/games/polyglot") else None)


@pytest.mark.skipif(POLYGLOT is None, reason="Debian's polyglot adapter is not installed")
def test_plays_through_the_polyglot_xboard_adapter(tmp_path):
    ini = tmp_path / "bn.ini"
    ini.write_text(f"[PolyGlot]\nEngineDir = {tmp_path}\nEngineCommand = {ENGINE}\n"
                   "Log = false\nBook = false\n[Engine]\n")
    p = subprocess.Popen([POLYGLOT, str(ini)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, bufsize=1)
    board = chess.Board()
    try:
        p.stdin.write("xboard\nprotover 2\n")
        p.stdin.flush()
        for line in p.stdout:
            if "done=1" in line:
                break
        p.stdin.write("new\nst 1\nforce\nusermove e2e4\ngo\n")
        p.stdin.flush()
        board.push_uci("e2e4")
        for _ in range(3):
            for line in p.stdout:
                if line.startswith("move "):
                    mv = chess.Move.from_uci(line.split()[1])
                    assert mv in board.legal_moves
                    board.push(mv)
                    break
            reply = next(iter(board.legal_moves))
            board.push(reply)
            p.stdin.write(f"usermove {reply.uci()}\n")
            p.stdin.flush()
        assert board.ply() >= 7
    finally:
        p.stdin.write("quit\n")
        p.stdin.flush()
        p.wait(timeout=10)


def test_own_book_plays_the_book_move(tmp_path):
    """A one-entry Polyglot book (our keys are the Polyglot keys): start position -> a2a3."""
    import struct
    import chess.polyglot
    book = tmp_path / "book.bin"
    a2a3 = (0 | 2 << 3) | (0 | 1 << 3) << 6                  # to a3, from a2
    book.write_bytes(struct.pack(">QHHI", chess.polyglot.zobrist_hash(chess.Board()), a2a3, 1, 0))
    raw = Raw()
    try:
        raw.send("uci", f"setoption name BookFile value {book}", "setoption name OwnBook value true",
                 "isready")
        raw.wait_for("readyok")
        raw.send("position startpos", "go depth 6")
        out = raw.wait_for("bestmove")
        assert out[-1] == "bestmove a2a3" and any("book move" in l for l in out)
        raw.send("position startpos moves e2e4", "go depth 4")
        out = raw.wait_for("bestmove")
        assert not any("book move" in l for l in out)
        raw.send("setoption name BookFile value /nonexistent/book.bin", "isready")
        out = raw.wait_for("readyok")
        assert any("error" in l and "book" in l for l in out)
    finally:
        raw.close()


SYZYGY_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "syzygy")


def test_syzygy_root_probe_plays_the_tablebase_move():
    """With SyzygyPath set (real 3-4 piece tables in tests/data/syzygy), a position in the
    tables is searched over its best-ranked moves only: the move played keeps the best WDL
    and, winning, wins before the fifty-move rule (python-chess's reader of the same files is
    the oracle), with the tables' score. In 8/8/8/4k3/8/8/4PK2/8 w only Ke3 wins."""
    import chess.syzygy
    oracle = chess.syzygy.open_tablebase(SYZYGY_DIR)
    raw = Raw()
    try:
        raw.send("uci", f"setoption name SyzygyPath value {SYZYGY_DIR}", "isready")
        out = raw.wait_for("readyok")
        assert any("found 6 tablebases (12 files), the largest of 4 pieces" in l for l in out)
        for fen, score, only in (("8/8/8/4k3/8/8/4PK2/8 w - - 0 1", "cp 20000", "f2e3"),
                                 ("8/8/8/8/8/2k5/8/KQ6 w - - 0 1", "cp 20000", None),
                                 ("8/8/8/8/8/2k5/8/KQ6 w - - 80 100", "cp 20000", None),
                                 ("8/8/8/3k4/8/8/r7/K1R5 w - - 0 1", "cp 20000", "a1a2"),
                                 ("8/8/8/8/3k4/8/1R6/K6r w - - 0 1", "cp 0", None)):
            raw.send(f"position fen {fen}", "go wtime 10000 btime 10000")
            out = raw.wait_for("bestmove")
            move = chess.Move.from_uci(out[-1].split()[1])
            board = chess.Board(fen)
            results = {}
            for m in board.legal_moves:
                board.push(m)
                results[m] = (-oracle.probe_wdl(board), -oracle.probe_dtz(board),
                              board.halfmove_clock)
                board.pop()
            best_wdl = max(w for w, _, _ in results.values())
            wdl, dtz, clock = results[move]
            assert wdl == best_wdl, (fen, move)
            if best_wdl > 0:
                # never a win the fifty-move rule turns into a draw
                assert abs(dtz) + clock <= 100, (fen, move, dtz, clock)
            if only:
                assert move.uci() == only
            info = [l for l in out if l.startswith("info") and " pv " in l][-1]
            # the tables' score, or a mate the search found (as Stockfish reports)
            found = info.split(" score ")[1].split()[:2]
            assert (f"score {score} " in info or (score == "cp 20000" and found[0] == "mate"
                                                   and int(found[1]) > 0)), info
            assert int(info.split(" tbhits ")[1].split()[0]) > 0, info
        # a position outside the tables (five pieces) is searched as usual, and probed
        # inside the search where captures bring it into them
        raw.send("position fen 8/8/3k4/8/2r5/8/3PK3/4R3 w - - 0 1", "go depth 8")
        out = raw.wait_for("bestmove")
        info = [l for l in out if l.startswith("info depth 8 ")][-1]
        assert int(info.split(" tbhits ")[1].split()[0]) > 0, info
    finally:
        raw.close()
