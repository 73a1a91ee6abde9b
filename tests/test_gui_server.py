"""The browser board's server (`black-numba gui`), at the HTTP level against the real server
and engine: the API, games, clocks and flag fall, takeback, results, analysis and its
stream, annotation, the security checks, bad FEN and PGN, the command line. The rules and
clocks of one game are tested in-process too (games.py, clock.py)."""
import json
import os
import signal
import socket
import subprocess
import sys
import time

import chess
import chess.pgn
import io
import pytest

from black_numba.frontends.gui.clock import Clock
from black_numba.frontends.gui.games import (ANALYSIS, PLAY, Game, GameError, board_of_fen,
                                             parse_game_text, resolve_move)
from gui_client import ROOT, running_server

MOVETIME_MS = 200          # the engine's time a move in these games
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"        # Rd8#
PROMOTION = "8/4P1k1/8/8/8/8/6K1/8 w - - 0 1"                  # e8=Q
STALEMATE_IN_ONE = "7k/8/5K2/6Q1/8/8/8/8 w - - 0 1"           # Qg6 stalemates


@pytest.fixture(scope="module")
def server():
    yield from running_server()


# -- one game, in-process (no engine) ----------------------------------------------------------
class FakeTime:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def test_clock_counts_down_adds_increment_and_flags():
    now = FakeTime()
    c = Clock(60_000, 2_000, now)
    c.start(chess.WHITE)
    now.t += 10
    assert c.remaining(chess.WHITE) == 50_000 and c.remaining(chess.BLACK) == 60_000
    c.press(chess.WHITE)                 # white moved: +2 s, black's time runs
    now.t += 5
    assert c.remaining(chess.WHITE) == 52_000 and c.remaining(chess.BLACK) == 55_000
    assert c.flagged() is None
    now.t += 56
    assert c.flagged() == chess.BLACK
    assert c.snapshot()["black"] == 0 and c.snapshot()["running"] == "black"
    assert c.control() == "60+2"


def test_flag_fall_is_a_result_and_a_draw_without_mating_material():
    now = FakeTime()
    g = Game(mode=PLAY, engine_color=chess.WHITE, clock=Clock(1000, 0, now))
    now.t += 5                            # no clock runs before the first moves
    assert not g.check_flag() and g.clock.running is None
    assert g.engine_move("e2e4", g.generation)
    g.move("e7", "e5")
    now.t += 2                            # white (the engine) flags
    assert g.check_flag() and (g.result, g.reason) == ("0-1", "time")
    lone = chess.Board("8/8/8/4k3/8/8/8/4K2Q b - - 0 1")
    now = FakeTime()
    g = Game(lone, mode=PLAY, engine_color=chess.WHITE, clock=Clock(1000, 0, now))
    g.move("e5", "e6")
    assert g.engine_move("e1d1", g.generation)
    g.move("e6", "e5")
    now.t += 2                            # white (the engine) flags; black has a lone king
    assert g.check_flag() and (g.result, g.reason) == ("1/2-1/2", "time")


def test_a_move_after_the_flag_fell_is_refused_and_the_increment_does_not_save_it():
    now = FakeTime()
    g = Game(mode=PLAY, engine_color=chess.BLACK, clock=Clock(1000, 2000, now))
    g.move("e2", "e4")
    assert g.engine_move("e7e5", g.generation)   # the clocks start: white's runs
    now.t += 0.5
    g.move("g1", "f3")                    # 0.5 s left + 2 s increment
    assert g.engine_move("b8c6", g.generation)
    now.t += 2.54                         # the flag fell 40 ms ago
    with pytest.raises(GameError, match="time is up"):
        g.move("f1", "c4")
    assert (g.result, g.reason) == ("0-1", "time") and len(g.moves) == 4
    # the engine's answer after its own flag fell is not played either
    now = FakeTime()
    g = Game(mode=PLAY, engine_color=chess.BLACK, clock=Clock(1000, 0, now))
    g.move("e2", "e4")
    assert g.engine_move("e7e5", g.generation)
    g.move("g1", "f3")
    now.t += 1.5
    assert not g.engine_move("b8c6", g.generation) and (g.result, g.reason) == ("1-0", "time")


def test_takeback_to_the_start_stops_the_clocks():
    now = FakeTime()
    g = Game(mode=PLAY, engine_color=chess.BLACK, clock=Clock(60_000, 0, now))
    g.move("e2", "e4")
    assert g.engine_move("e7e5", g.generation)
    g.takeback()
    assert g.clock.running is None
    now.t += 100
    assert not g.check_flag()


def test_the_clocks_start_after_both_first_moves_and_until_then_a_game_is_aborted():
    """As lichess: the first moves cost no time and add no increment, Abort (no result) is
    offered until both sides have moved, Resign after."""
    now = FakeTime()
    g = Game(mode=PLAY, engine_color=chess.WHITE, clock=Clock(60_000, 2_000, now))
    assert g.state()["abortable"] and not g.state()["over"]
    assert g.engine_move("e2e4", g.generation)
    now.t += 50                           # the person thinks: no clock runs yet
    assert g.clock.running is None and g.state()["abortable"]
    g.move("e7", "e5")
    snap = g.clock.snapshot()
    assert (snap["running"], snap["white"], snap["black"]) == ("white", 60_000, 60_000)
    assert not g.state()["abortable"]
    with pytest.raises(GameError, match="resign it"):
        g.abort()
    now.t += 10
    assert g.engine_move("g1f3", g.generation)       # from now on each move presses
    assert g.clock.snapshot()["white"] == 52_000 and g.clock.running == chess.BLACK

    g = Game(mode=PLAY, engine_color=chess.WHITE, clock=Clock(60_000, 0, FakeTime()))
    assert g.engine_move("e2e4", g.generation)
    g.abort()
    s = g.state()
    assert (s["result"], s["reason"], s["over"], s["status"]) == \
        ("*", "aborted", True, "Game aborted")
    assert not s["legal"] and not g.engine_to_move()
    with pytest.raises(GameError, match="aborted"):
        g.takeback()
    with pytest.raises(GameError, match="no game going on"):
        g.resign()
    game = g.pgn_game()
    assert (game.headers["Result"], game.headers["Termination"]) == ("*", "abandoned")


def test_players_a_pgn_leaves_unnamed_are_white_and_black():
    root, moves, headers = parse_game_text("1. e4 e5")
    assert Game(root, moves, ANALYSIS, headers=headers).players() == \
        {"white": "White", "black": "Black"}
    root, moves, headers = parse_game_text('[White "Morphy"]\n[Black "?"]\n\n1. e4 e5 *')
    assert Game(root, moves, ANALYSIS, headers=headers).players() == \
        {"white": "Morphy", "black": "Black"}


def test_an_analysed_game_shows_its_result_until_its_moves_change():
    root, moves, headers = parse_game_text("1. e4 e5 2. Qh5 Nc6 0-1")
    g = Game(root, moves, ANALYSIS, headers=headers)
    assert g.state()["shown_result"] == "0-1"
    g.goto(2)
    assert g.state()["shown_result"] == "0-1"        # only looking back
    g.move("g1", "f3")                               # another line: the result no longer holds
    assert g.state()["shown_result"] is None
    g = Game(chess.Board(MATE_IN_ONE), mode=PLAY, engine_color=chess.BLACK)
    assert g.state()["shown_result"] is None
    g.move("d1", "d8")
    assert g.state()["shown_result"] == "1-0"


def test_results_with_reasons():
    g = Game(chess.Board(MATE_IN_ONE), mode=PLAY, engine_color=chess.BLACK)
    g.move("d1", "d8")
    assert (g.result, g.reason) == ("1-0", "checkmate")
    assert g.state()["status"] == "White wins by checkmate"
    g = Game(chess.Board(STALEMATE_IN_ONE), mode=PLAY, engine_color=chess.BLACK)
    g.move("g5", "g6")
    assert (g.result, g.reason) == ("1/2-1/2", "stalemate")
    g = Game(chess.Board("8/8/8/4k3/8/8/3rK3/8 w - - 0 1"), mode=PLAY,
             engine_color=chess.BLACK)
    g.move("e2", "d2")                    # Kxd2: king against king
    assert (g.result, g.reason) == ("1/2-1/2", "insufficient material")
    g = Game(mode=PLAY, engine_color=chess.BLACK)
    for uci in ("g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"):
        if g.board.turn == chess.WHITE:
            g.move(uci[:2], uci[2:])
        else:
            assert g.engine_move(uci, g.generation)
    assert g.engine_move("f6g8", g.generation)     # the start position a third time
    assert (g.result, g.reason) == ("1/2-1/2", "threefold repetition")
    g = Game(chess.Board("8/8/8/4k3/8/8/8/R3K3 w - - 99 80"), mode=PLAY,
             engine_color=chess.BLACK)
    g.move("a1", "a2")
    assert (g.result, g.reason) == ("1/2-1/2", "fifty-move rule")


def test_takeback_in_play_returns_the_turn_to_the_person():
    g = Game(mode=PLAY, engine_color=chess.BLACK)
    g.move("e2", "e4")
    assert g.engine_move("e7e5", g.generation)
    gen = g.generation
    g.takeback()
    assert g.moves == [] and g.generation > gen and g.board.turn == chess.WHITE
    with pytest.raises(GameError):
        g.takeback()
    # the engine's answer to a game that has changed is dropped
    g.move("d2", "d4")
    old = g.generation
    g.takeback()
    g.move("c2", "c4")
    assert not g.engine_move("d7d5", old) and g.board.turn == chess.BLACK
    # playing black: a takeback removes the person's move and the engine's answer after it
    g = Game(mode=PLAY, engine_color=chess.WHITE)
    assert g.engine_move("e2e4", g.generation)
    g.move("e7", "e5")
    assert g.engine_move("g1f3", g.generation)
    g.takeback()
    assert [m.uci() for m in g.moves] == ["e2e4"] and g.board.turn == chess.BLACK


def test_moves_are_refused_when_not_legal_or_not_the_persons_turn():
    g = Game(mode=PLAY, engine_color=chess.BLACK)
    with pytest.raises(GameError, match="e2-e5 is not a legal move"):
        g.move("e2", "e5")
    g.move("e2", "e4")
    with pytest.raises(GameError, match="engine's turn"):
        g.move("e7", "e5")
    assert len(g.moves) == 1
    with pytest.raises(GameError, match="bad squares"):
        g.move("z9", "e4")


def test_castling_by_the_king_onto_its_square_or_its_rook():
    b = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert resolve_move(b, "e1", "g1") == chess.Move.from_uci("e1g1")
    assert resolve_move(b, "e1", "h1") == chess.Move.from_uci("e1g1")
    b960 = chess.Board("4k3/8/8/8/8/8/8/1R2K1R1 w GB - 0 1", chess960=True)
    kingside = resolve_move(b960, "e1", "g1")
    assert b960.is_castling(kingside) and b960.uci(kingside) == "e1g1"
    assert b960.is_castling(resolve_move(b960, "e1", "c1"))
    assert b960.is_castling(resolve_move(b960, "e1", "b1"))


def test_analysis_steps_along_the_game_or_branches_off():
    root, moves, _ = parse_game_text("1. e4 e5 2. Nf3 Nc6")
    g = Game(root, moves, ANALYSIS)
    g.goto(1)
    g.move("e7", "e5")                    # the game's own move: only a step forward
    assert g.cursor == 2 and len(g.moves) == 4
    g.move("g1", "f3")
    g.move("b8", "c6")
    g.goto(2)
    g.move("f1", "c4")                    # another move cuts the game there
    assert [m.uci() for m in g.moves] == ["e2e4", "e7e5", "f1c4"] and g.cursor == 3
    g.play_line(["g8f6", "d2d3"])
    assert g.cursor == 5 and g.state()["moves"][-1]["san"] == "d3"


def test_bad_fen_and_pgn_say_why():
    """In a person's words: the FEN field that is wrong, the move number and move that
    failed; never python-chess's exception text (issue 75 item 11)."""
    with pytest.raises(GameError, match="'X' on rank 1 is not a piece"):
        board_of_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1")
    with pytest.raises(GameError, match=r"the side to move \(field 2\) is 'x': it must be w or b"):
        board_of_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1")
    with pytest.raises(GameError, match="give 9 ranks: a board has 8"):
        parse_game_text("rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    with pytest.raises(GameError, match=r"en passant square \(field 4\)"):
        board_of_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e5 0 1")
    with pytest.raises(GameError, match="illegal position: White has no king"):
        board_of_fen("4k3/8/8/8/8/8/8/8 w - - 0 1")
    with pytest.raises(GameError, match=r"^bad PGN: 2\. Ke3 is not a legal move in that position$"):
        parse_game_text("1. e4 e5 2. Ke3")
    with pytest.raises(GameError, match=r"^bad PGN: 2\.\.\. Ke6 is not a legal move"):
        parse_game_text("1. e4 e5 2. Nf3 Ke6")
    with pytest.raises(GameError, match="its FEN header: the pieces"):
        parse_game_text('[FEN "8/8/8/8 w - - 0 1"]\n\n1. e4')
    for text in ("1. e4 e5 2. Ke3", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"):
        with pytest.raises(GameError) as e:
            parse_game_text(text)
        assert "san" not in str(e.value) and "rnbqkbnr" not in str(e.value)
    with pytest.raises(GameError, match="not a PGN or a FEN"):
        parse_game_text("hello")
    with pytest.raises(GameError, match="paste or upload"):
        parse_game_text("   ")


def test_pgn_headers_name_players_levels_time_control_and_result():
    g = Game(chess.Board(MATE_IN_ONE), mode=PLAY, engine_color=chess.BLACK, elo=1800,
             clock=Clock(300_000, 3_000), engine_name="black_numba 0.1.0")
    g.move("d1", "d8")
    pgn = chess.pgn.read_game(io.StringIO(str(g.pgn_game())))
    h = pgn.headers
    assert h["White"] == "Player" and h["Black"] == "black_numba 0.1.0 (UCI_Elo 1800)"
    assert h["BlackElo"] == "1800" and h["TimeControl"] == "300+3"
    assert h["Result"] == "1-0" and h["Termination"] == "normal" and h["FEN"] == MATE_IN_ONE
    assert [m.uci() for m in pgn.mainline_moves()] == ["d1d8"]


# -- the server: security ---------------------------------------------------------------------
def test_page_is_served_with_its_token_and_safe_headers(server):
    status, headers, body = server.request("GET", server.page)
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert server.token in body.decode() and "{{TOKEN}}" not in body.decode()
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    status, headers, _ = server.request("GET", "/static/app.js")
    assert status == 200 and headers["Content-Type"] == "text/javascript; charset=utf-8"
    status, headers, _ = server.request("GET", "/static/style.css")
    assert status == 200 and headers["Content-Type"] == "text/css; charset=utf-8"


def test_foreign_host_and_origin_are_refused(server):
    for host in ("evil.example:%d" % server.port, "127.0.0.1.nip.io:%d" % server.port,
                 "127.0.0.1:1", "", "localhost.evil.example:%d" % server.port):
        status, _, body = server.request("GET", server.page, headers={"Host": host})
        assert status == 403, host
        assert b"Host" in body
    status, _, _ = server.request("GET", server.page,
                                  headers={"Host": f"localhost:{server.port}"})
    assert status == 200
    tab = server.new_tab()
    status, _, body = server.request(
        "POST", "/api/move", json.dumps({"tab": tab, "from": "e2", "to": "e4"}).encode(),
        {"Content-Type": "application/json", "X-Token": server.token,
         "Origin": "http://evil.example"})
    assert status == 403 and b"Origin" in body
    assert server.state(tab)["moves"] == []


def test_requests_without_the_token_are_refused(server):
    tab = server.new_tab()
    body = json.dumps({"tab": tab, "from": "e2", "to": "e4"}).encode()
    for headers in ({"Content-Type": "application/json"},
                    {"Content-Type": "application/json", "X-Token": "wrong"}):
        status, _, answer = server.request("POST", "/api/move", body, headers)
        assert status == 403 and b"token" in answer
    for path in (f"/api/state?tab={tab}", f"/api/events?tab={tab}", f"/api/pgn?tab={tab}",
                 f"/api/events?tab={tab}&token=wrong"):
        assert server.request("GET", path)[0] == 403
    assert server.state(tab)["moves"] == []


def test_bad_requests_get_clear_errors(server):
    tab = server.new_tab()
    h = {"X-Token": server.token}
    status, _, body = server.request("POST", "/api/move", b"{not json",
                                     dict(h, **{"Content-Type": "application/json"}))
    assert status == 400 and json.loads(body)["error"] == "the body is not JSON"
    status, _, body = server.request("POST", "/api/move", b"tab=1",
                                     dict(h, **{"Content-Type": "text/plain"}))
    assert status == 415
    assert server.post("/api/move", 404, tab="nope", **{"from": "e2", "to": "e4"})["error"] \
        == "no such tab 'nope'"
    assert server.request("GET", "/static/../server.py")[0] == 404
    assert server.request("GET", "/static/%2e%2e/server.py")[0] == 404
    assert server.request("GET", "/etc/passwd")[0] == 404
    answer = server.post("/api/new", 400, tab=tab, mode="play", elo=99)
    assert "elo must be between 1350" in answer["error"]
    answer = server.post("/api/new", 400, tab=tab, mode="play", base_s="five")
    assert answer["error"] == "base_s must be a number, got 'five'"


def test_bad_fen_and_pgn_leave_the_board_unchanged(server):
    tab = server.new_tab()
    server.post("/api/load", tab=tab, text="1. d4 d5")
    before = server.state(tab)
    answer = server.post("/api/load", 400, tab=tab,
                         text="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1")
    assert answer["error"].startswith("bad FEN:")
    answer = server.post("/api/load", 400, tab=tab, text="1. e4 e5 2. Ke3 Ke7")
    assert answer["error"].startswith("bad PGN: 2. Ke3 is not a legal move")
    answer = server.post("/api/new", 400, tab=tab, mode="analysis", fen="8/8/8/8 w - - 0 1")
    assert answer["error"].startswith("bad FEN")
    after = server.state(tab)
    assert after["fen"] == before["fen"] and after["moves"] == before["moves"]


# -- the server: play -------------------------------------------------------------------------
def test_engine_answers_within_its_time_and_a_mate_ends_the_game(server):
    tab = server.new_tab()
    s = server.post("/api/new", tab=tab, mode="play", color="white", movetime_ms=MOVETIME_MS,
                    fen="6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")["state"]
    assert s["legal"]["d1"] == ["a1", "b1", "c1", "d2", "d3", "d4", "d5", "d6", "d7", "d8",
                                "e1", "f1"]
    s = server.post("/api/move", tab=tab, **{"from": "h2", "to": "h3"})["state"]
    t0 = time.monotonic()
    assert s["engine"]["thinking"] and s["legal"] == {}
    s = server.wait_for(tab, lambda s: len(s["moves"]) == 2, timeout=10)
    assert time.monotonic() - t0 < MOVETIME_MS / 1000 + 1.5
    assert chess.Board(s["moves"][0]["fen"]).is_legal(chess.Move.from_uci(s["moves"][1]["uci"]))
    if chess.Board(s["fen"]).is_legal(chess.Move.from_uci("d1d8")) and \
            chess.Board(s["fen"]).gives_check(chess.Move.from_uci("d1d8")):
        s = server.post("/api/move", tab=tab, **{"from": "d1", "to": "d8"})["state"]
    # a mate in one from a FEN ends the game with its result
    s = server.post("/api/new", tab=tab, mode="play", color="white", movetime_ms=MOVETIME_MS,
                    fen=MATE_IN_ONE)["state"]
    s = server.post("/api/move", tab=tab, **{"from": "d1", "to": "d8"})["state"]
    assert (s["result"], s["reason"], s["status"]) == ("1-0", "checkmate",
                                                        "White wins by checkmate")
    assert s["moves"][-1]["san"] == "Rd8#" and s["legal"] == {}
    server.post("/api/move", 400, tab=tab, **{"from": "g1", "to": "h1"})


def test_promotion(server):
    tab = server.new_tab()
    server.post("/api/new", tab=tab, mode="play", color="white", movetime_ms=MOVETIME_MS,
                fen=PROMOTION)
    s = server.state(tab)
    assert s["promotions"] == ["e7e8"]
    s = server.post("/api/move", tab=tab, promotion="n", **{"from": "e7", "to": "e8"})["state"]
    assert s["moves"][0]["san"] == "e8=N+"


def test_takeback_then_the_engine_answers_the_new_position(server):
    tab = server.new_tab()
    server.post("/api/new", tab=tab, mode="play", color="white", movetime_ms=MOVETIME_MS)
    server.post("/api/move", tab=tab, **{"from": "e2", "to": "e4"})
    s = server.wait_for(tab, lambda s: len(s["moves"]) == 2)
    s = server.post("/api/takeback", tab=tab)["state"]
    assert s["moves"] == [] and s["turn"] == "white"
    s = server.post("/api/move", tab=tab, **{"from": "d2", "to": "d4"})["state"]
    s = server.wait_for(tab, lambda s: len(s["moves"]) == 2)
    reply = chess.Move.from_uci(s["moves"][1]["uci"])
    after_d4 = chess.Board()
    after_d4.push_uci("d2d4")
    assert s["moves"][0]["uci"] == "d2d4" and after_d4.is_legal(reply)
    # a takeback while the engine thinks: its answer to the old position never lands
    server.post("/api/new", tab=tab, mode="play", color="white", movetime_ms=1500)
    server.post("/api/move", tab=tab, **{"from": "g1", "to": "f3"})
    server.post("/api/takeback", tab=tab)
    server.post("/api/move", tab=tab, **{"from": "c2", "to": "c4"})
    s = server.wait_for(tab, lambda s: len(s["moves"]) == 2, timeout=10)
    b = chess.Board()
    b.push_uci("c2c4")
    assert [m["uci"] for m in s["moves"]][:1] == ["c2c4"]
    assert b.is_legal(chess.Move.from_uci(s["moves"][1]["uci"]))


def test_engine_plays_white_and_a_strength_level(server):
    tab = server.new_tab()
    s = server.post("/api/new", tab=tab, mode="play", color="black", elo=1500,
                    movetime_ms=MOVETIME_MS)["state"]
    assert s["engine_color"] == "white" and s["players"]["white"].endswith("(UCI_Elo 1500)")
    s = server.wait_for(tab, lambda s: len(s["moves"]) == 1, timeout=10)
    assert s["turn"] == "black" and s["legal"]


def test_clocks_run_on_the_server_and_a_flag_falls_with_no_page(server):
    tab = server.new_tab()
    s = server.post("/api/new", tab=tab, mode="play", color="white", base_s=60,
                    inc_s=2)["state"]
    assert s["clock"]["running"] is None and s["clock"]["white"] == 60_000   # not yet
    server.post("/api/move", tab=tab, **{"from": "e2", "to": "e4"})
    s = server.wait_for(tab, lambda s: len(s["moves"]) == 2, timeout=20)
    # the first moves cost no time and add no increment: the clocks start after them
    assert s["clock"]["running"] == "white" and 59_000 < s["clock"]["white"] <= 60_000
    assert s["clock"]["black"] == 60_000
    # no page open: after both first moves the person's flag falls, and the game is lost
    # on time
    s = server.post("/api/new", tab=tab, mode="play", color="white", base_s=1,
                    movetime_ms=MOVETIME_MS)["state"]
    server.post("/api/move", tab=tab, **{"from": "e2", "to": "e4"})
    s = server.wait_for(tab, lambda s: s["result"] != "*", timeout=10)
    assert len(s["moves"]) == 2
    assert (s["result"], s["reason"], s["status"]) == ("0-1", "time", "Black wins on time")
    assert s["clock"]["white"] == 0 and s["clock"]["running"] is None
    server.post("/api/takeback", 400, tab=tab)
    status, headers, body = server.get("/api/pgn", tab=tab)
    game = chess.pgn.read_game(io.StringIO(body.decode()))
    assert game.headers["TimeControl"] == "1+0" and game.headers["Result"] == "0-1"
    assert game.headers["Termination"] == "time forfeit"
    assert "attachment" in headers["Content-Disposition"]


def test_a_clock_event_reaches_the_page_and_resign_ends_the_game(server):
    tab = server.new_tab()
    log = server.events(tab)
    try:
        server.post("/api/new", tab=tab, mode="play", color="black", base_s=20, inc_s=0)
        server.wait_for(tab, lambda s: len(s["moves"]) == 1, timeout=10)
        server.post("/api/move", tab=tab, **{"from": "e7", "to": "e5"})   # the clocks start
        _, _, clock = log.wait(lambda e: e[1] == "clock", timeout=10)
        assert clock["running"] in ("white", "black")
        assert 15_000 < clock["white"] <= 20_000 and 15_000 < clock["black"] <= 20_000
        s = server.post("/api/resign", tab=tab)["state"]
        assert (s["result"], s["reason"]) == ("1-0", "resignation")
        log.wait(lambda e: e[1] == "state" and e[2]["reason"] == "resignation")
    finally:
        log.close()


def test_abort_ends_a_game_before_both_sides_moved_and_not_after(server):
    tab = server.new_tab()
    server.post("/api/new", tab=tab, mode="play", color="black", movetime_ms=MOVETIME_MS)
    s = server.wait_for(tab, lambda s: len(s["moves"]) == 1, timeout=10)
    assert s["abortable"]
    s = server.post("/api/abort", tab=tab)["state"]
    assert (s["reason"], s["over"], s["status"]) == ("aborted", True, "Game aborted")
    assert "resign it" in server.post("/api/abort", 400, tab=tab)["error"]
    server.post("/api/new", tab=tab, mode="play", color="white", movetime_ms=MOVETIME_MS)
    server.post("/api/move", tab=tab, **{"from": "e2", "to": "e4"})
    s = server.wait_for(tab, lambda s: len(s["moves"]) == 2, timeout=10)
    assert not s["abortable"]
    assert "resign it" in server.post("/api/abort", 400, tab=tab)["error"]
    assert server.post("/api/resign", tab=tab)["state"]["result"] == "0-1"


def test_chess960_game_castles_with_king_onto_rook(server):
    tab = server.new_tab()
    fen = "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1"
    s = server.post("/api/new", tab=tab, mode="analysis", fen=fen, chess960=True)["state"]
    assert s["chess960"]
    s = server.post("/api/new", tab=tab, mode="analysis", chess960=True)["state"]
    assert s["chess960"] and chess.Board(s["fen"], chess960=True).is_valid()
    # rooks on b1 and g1, nothing between: the king castles onto its square or its rook
    s = server.post("/api/load", tab=tab, text="4k3/8/8/8/8/8/8/1R2K1R1 w GB - 0 1")["state"]
    assert s["chess960"] and {"b1", "c1", "g1"} <= set(s["legal"]["e1"])
    s = server.post("/api/move", tab=tab, **{"from": "e1", "to": "g1"})["state"]
    assert s["moves"][0]["san"] == "O-O" and s["moves"][0]["uci"] == "e1g1"
    assert s["fen"].startswith("4k3/8/8/8/8/8/8/1R3RK1 b")


# -- the server: analysis and annotation ---------------------------------------------------------
def test_analysis_lines_arrive_update_and_follow_the_position(server):
    tab = server.new_tab()
    log = server.events(tab)
    try:
        server.post("/api/load", tab=tab, text="1. e4 e5 2. Nf3 Nc6")
        t0 = time.monotonic()
        s = server.post("/api/analysis", tab=tab, on=True, multipv=3, wdl=True)["state"]
        first = log.wait(lambda e: e[1] == "lines" and e[2]["tag"] == s["tag"])
        assert first[0] - t0 < 1.0
        _, _, data = log.wait(lambda e: e[1] == "lines" and len(e[2]["lines"]) == 3 and
                              e[2]["lines"][0]["depth"] >= 8, timeout=20)
        line = data["lines"][0]
        assert data["fen"] == s["fen"] and len(line["san"]) >= 2 and len(line["wdl"]) == 3
        assert sum(line["wdl"]) == 1000 and -1 <= line["win"] <= 1 and line["nodes"] > 0
        depths = [e[2]["lines"][0]["depth"] for e in log.of("lines")]
        assert depths == sorted(depths) and depths[-1] > depths[0]
        # throttled: a few updates a second
        times = [e[0] for e in log.of("lines")]
        assert all(b - a >= 0.2 for a, b in zip(times, times[1:]))
        # another position: its own lines, and none of the old one's after the change
        s2 = server.post("/api/goto", tab=tab, ply=2)["state"]
        changed = time.monotonic()
        log.wait(lambda e: e[1] == "lines" and e[2]["tag"] == s2["tag"])
        time.sleep(0.5)
        stale = [e for e in log.of("lines") if e[2]["tag"] == s["tag"] and e[0] > changed + 0.05]
        assert stale == []
        # off: lines stop
        server.post("/api/analysis", tab=tab, on=False)
        time.sleep(0.4)
        n = len(log.of("lines"))
        time.sleep(0.8)
        assert len(log.of("lines")) == n and not server.state(tab)["engine"]["analysing"]
    finally:
        log.close()


def test_a_click_on_a_line_plays_it(server):
    tab = server.new_tab()
    server.post("/api/load", tab=tab, text="1. e4")
    s = server.post("/api/line", tab=tab, moves=["e7e5", "g1f3"])["state"]
    assert [m["san"] for m in s["moves"]] == ["e4", "e5", "Nf3"] and s["ply"] == 3
    server.post("/api/line", 400, tab=tab, moves=["e1e8"])


def test_a_closed_tab_stops_its_analysis_and_the_server_survives(server):
    tab = server.new_tab()
    log = server.events(tab)
    server.post("/api/load", tab=tab, text="1. d4 Nf6 2. c4")
    server.post("/api/analysis", tab=tab, on=True)
    log.wait(lambda e: e[1] == "lines")
    assert server.state(tab)["engine"]["analysing"]
    log.close()                                   # the page is gone
    server.wait_for(tab, lambda s: not s["engine"]["analysing"], timeout=10)
    # a client killed mid-stream (a socket reset) leaves the server serving
    sock = socket.create_connection((server.host, server.port))
    sock.sendall(f"GET /api/events?tab={tab}&token={server.token} HTTP/1.1\r\n"
                 f"Host: {server.host}:{server.port}\r\n\r\n".encode())
    sock.recv(100)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    sock.close()
    assert server.request("GET", server.page)[0] == 200
    assert server.state(tab)["analysis"]["on"]


def test_one_tab_pre_empts_anothers_analysis_and_it_is_told(server):
    a, b = server.new_tab(), server.new_tab()
    log_a, log_b = server.events(a), server.events(b)
    try:
        server.post("/api/load", tab=a, text="1. e4 c5")
        server.post("/api/analysis", tab=a, on=True)
        log_a.wait(lambda e: e[1] == "lines")
        server.post("/api/load", tab=b, text="1. d4 d5")
        server.post("/api/analysis", tab=b, on=True)
        log_a.wait(lambda e: e[1] == "engine" and e[2]["note"] == "preempted")
        log_b.wait(lambda e: e[1] == "lines")
        assert server.state(a)["engine"]["note"] == "preempted"
        server.post("/api/analysis", tab=b, on=False)
        resumed = log_a.wait(lambda e: e[1] == "engine" and e[2]["note"] is None)
        log_a.wait(lambda e: e[1] == "lines" and e[0] > resumed[0])
    finally:
        log_a.close()
        log_b.close()


def test_an_engine_move_is_never_stalled_by_another_tabs_analysis(server):
    a, b = server.new_tab(), server.new_tab()
    log_a = server.events(a)
    try:
        server.post("/api/load", tab=a, text="1. e4 c5")
        server.post("/api/analysis", tab=a, on=True)
        log_a.wait(lambda e: e[1] == "lines")
        server.post("/api/new", tab=b, mode="play", color="white", movetime_ms=MOVETIME_MS)
        server.post("/api/move", tab=b, **{"from": "e2", "to": "e4"})
        server.wait_for(b, lambda s: len(s["moves"]) == 2, timeout=10)
        log_a.wait(lambda e: e[1] == "engine" and e[2]["note"] == "preempted")
        log_a.wait(lambda e: e[1] == "engine" and e[2]["note"] is None)
    finally:
        log_a.close()


def test_annotation_marks_a_hung_queen_with_progress(server):
    tab = server.new_tab()
    log = server.events(tab)
    try:
        server.post("/api/load", tab=tab, text="1. e4 e5 2. Qh5 Nc6 3. Qxe5+ Nxe5")
        server.post("/api/annotate", tab=tab, nodes=20_000)
        s = server.wait_for(tab, lambda s: s["annotation"] and not s["annotating"], timeout=60)
        plies = s["annotation"]["plies"]
        assert plies[4]["mark"] == "??" and plies[4]["line"] and plies[4]["best"]
        assert plies[4]["eval"]["cp"] < -300 and plies[4]["win"] < -0.5
        # 2. Qh5 is at most dubious (`?!`, by the network's judgement of the early sortie);
        # the other moves before the blunder are not marked
        assert [p["mark"] for p in plies[:4]] in ([None] * 4, [None, None, "?!", None])
        progress = [e[2] for e in log.of("progress")]
        assert progress[-1] == {"done": 7, "total": 7}
        _, _, body = server.get("/api/pgn", tab=tab)
        game = chess.pgn.read_game(io.StringIO(body.decode()))
        assert chess.pgn.NAG_BLUNDER in list(game.mainline())[4].nags
        assert "Annotator" in game.headers
    finally:
        log.close()


def test_play_from_here_starts_a_game_at_the_position_shown(server):
    tab = server.new_tab()
    server.post("/api/load", tab=tab, text="1. e4 e5 2. Nf3 Nc6 3. Bb5")
    server.post("/api/goto", tab=tab, ply=4)
    s = server.post("/api/new", tab=tab, mode="play", color="white", from_here=True,
                    movetime_ms=MOVETIME_MS)["state"]
    assert s["mode"] == "play" and len(s["moves"]) == 4 and s["turn"] == "white"
    assert s["legal"] and not s["engine"]["thinking"]


# -- the command line -----------------------------------------------------------------------------
def _gui(*args):
    return subprocess.run([sys.executable, "-m", "black_numba.frontends.cli", "gui",
                           "--no-browser", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("args, says", [
    (("--port", "70000"), "70000 is not between 0 and 65535"),
    (("--threads", "0"), "0 is not between 1 and 512"),
    (("--host", "evil.example"), "--host must be an IP address or localhost"),
    (("--syzygy", "/no/such/folder"), "--syzygy: /no/such/folder: no such folder"),
    (("--hash", "x"), "'x' is not an integer"),
])
def test_bad_arguments_get_one_line_and_exit_2(args, says):
    r = _gui(*args)
    assert r.returncode == 2 and says in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_another_host_warns_and_ctrl_c_stops_cleanly():
    proc = subprocess.Popen([sys.executable, "-m", "black_numba.frontends.cli", "gui",
                             "--no-browser", "--port", "0", "--host", "0.0.0.0",
                             "--threads", "1"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("black_numba board: http://127.0.0.1:")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0
        assert "warning: listening on 0.0.0.0" in err and "stopped" in err
        assert "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()


def test_the_page_needs_the_key_of_the_printed_address_or_its_cookie(server):
    status, _, body = server.request("GET", "/")
    assert status == 403 and b"printed" in body and server.token.encode() not in body
    assert server.request("GET", "/?key=wrong")[0] == 403
    status, headers, body = server.request("GET", server.page)
    assert status == 200 and server.token.encode() in body
    cookie = headers["Set-Cookie"].split(";")[0]
    assert cookie.startswith(f"black_numba_key_{server.port}=")
    assert "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"]
    status, headers, body = server.request("GET", "/", headers={"Cookie": cookie})
    assert status == 200 and server.token.encode() in body and "Set-Cookie" not in headers
    wrong = cookie.split("=")[0] + "=nope"
    assert server.request("GET", "/", headers={"Cookie": wrong})[0] == 403
    # the page's own files are not secret: served without the key
    assert server.request("GET", "/static/app.js")[0] == 200


def test_host_checks_know_http_default_port_and_ipv6():
    from black_numba.frontends.gui.server import Board
    on80 = Board(None, "t", 80, "127.0.0.1")
    assert on80.host_ok("127.0.0.1") and on80.host_ok("localhost")
    assert on80.host_ok("127.0.0.1:80") and not on80.host_ok("127.0.0.1:81")
    assert not on80.host_ok("evil.example")
    b = Board(None, "t", 8765, "::1")
    assert b.host_ok("[::1]:8765") and not b.host_ok("[::1]") and not b.host_ok("[::2]:8765")
    assert b.url("::1").startswith("http://[::1]:8765/?key=")


def test_styles_are_offered_and_a_game_plays_one(server):
    settings = json.loads(server.get("/api/settings")[2])
    assert settings["styles"] == ["Normal", "Aggressive", "Hustler"]
    assert settings["style_default"] == "Normal"
    tab = server.new_tab()
    s = server.post("/api/new", tab=tab, mode="play", color="black", elo=1600,
                    style="Aggressive", movetime_ms=MOVETIME_MS)["state"]
    assert s["players"]["white"].endswith("(UCI_Elo 1600, Style Aggressive)")
    s = server.wait_for(tab, lambda s: len(s["moves"]) == 1, timeout=10)
    assert server.post("/api/new", 400, tab=tab, mode="play", style="Wild")["error"] == \
        "no such style 'Wild'"
    server.post("/api/resign", tab=tab)


def test_the_persons_rating_reaches_the_engine_and_the_pgn(server):
    tab = server.new_tab()
    server.post("/api/new", tab=tab, mode="play", color="white", elo=1500, style="Hustler",
                rating=1200, movetime_ms=MOVETIME_MS)
    server.post("/api/move", tab=tab, **{"from": "e2", "to": "e4"})
    s = server.wait_for(tab, lambda s: len(s["moves"]) == 2, timeout=10)
    game = chess.pgn.read_game(io.StringIO(server.get("/api/pgn", tab=tab)[2].decode()))
    assert game.headers["WhiteElo"] == "1200" and game.headers["BlackElo"] == "1500"
    assert server.post("/api/new", 400, tab=tab, mode="play", rating=99)["error"] == \
        "rating must be between 100 and 3500, got 99"
    server.post("/api/resign", tab=tab)


def test_games_going_on_are_listed_and_an_empty_fen_is_refused(server):
    """Issue 75 items 4 and 10: the games a page can go back to (begun, no result), and a
    FEN start with nothing in the box is refused rather than read as the standard position."""
    def listed():
        status, _, body = server.get("/api/games")
        assert status == 200
        return {g["tab"]: g for g in json.loads(body)["games"]}

    tab = server.new_tab()
    server.post("/api/new", tab=tab, mode="play", color="white", movetime_ms=MOVETIME_MS)
    assert tab not in listed()                           # no move yet: not begun
    server.post("/api/move", tab=tab, **{"from": "e2", "to": "e4"})
    server.wait_for(tab, lambda s: len(s["moves"]) == 2, timeout=10)
    entry = listed()[tab]
    assert entry["you"] == "white" and entry["last"].startswith("1... ")
    assert entry["status"] == "White to move" and entry["clock"] is None
    assert entry["players"]["white"] == "Player"
    server.post("/api/resign", tab=tab)
    assert tab not in listed()                           # decided: no longer going on
    answer = server.post("/api/new", 400, tab=tab, mode="play", fen="  ")
    assert "FEN box is empty" in answer["error"]
    assert server.state(tab)["result"] == "0-1"          # the game stays
    assert server.request("GET", "/api/games")[0] == 403     # the token is needed
