"""Syzygy tables in the search (engine.py, search.py): interior WDL probes, the root ranked
by DTZ, the options, through the UCI loop and the Python API, on real tables
(tests/data/syzygy: 3-4 pieces; tests/data/syzygy_more: more 4-piece tables and KRBvKR)."""
import os
import time

import chess
import chess.engine
import chess.syzygy
import numpy as np
import pytest

import black_numba
from black_numba.search.tt import TB_WIN, TB_WIN_IN_MAX, score_from_tt, score_to_tt
from conftest import ROOT, Raw

SMALL = os.path.join(ROOT, "tests", "data", "syzygy")
MORE = os.path.join(ROOT, "tests", "data", "syzygy_more")
BOTH = f"{SMALL}:{MORE}"
KPK_WIN = "8/8/8/4k3/8/8/4PK2/8 w - - 0 1"          # only Ke3 wins
FIVE = "8/8/3k4/8/2r5/8/3PK3/4R3 w - - 0 1"         # five pieces: probed after captures
CURSED = "8/3B4/8/1R6/5r2/8/3K4/5k2 w - - 0 1"      # KRBvKR, a win in 117 plies: cursed


def _field(line, name):
    words = line.split()
    return words[words.index(name) + 1]


def test_tablebase_scores_keep_their_distance_through_the_table():
    """A tablebase win found at ply p is stored as distance from its node and read back as
    distance from the root at another ply, as mate scores are."""
    for ply, other in ((3, 3), (5, 9), (12, 1)):
        stored = score_to_tt(TB_WIN - ply, ply)
        assert stored == TB_WIN
        assert score_from_tt(stored, other) == TB_WIN - other
        assert score_from_tt(score_to_tt(-TB_WIN + ply, ply), other) == -TB_WIN + other
    assert score_to_tt(TB_WIN_IN_MAX - 1, 7) == TB_WIN_IN_MAX - 1      # not decisive


def test_probes_inside_the_search_from_more_pieces_than_the_tables_hold():
    with black_numba.Engine({"SyzygyPath": SMALL}) as engine:
        info = engine.analyse(chess.Board(FIVE), chess.engine.Limit(depth=9))
        assert info["tbhits"] > 0
    with black_numba.Engine({"SyzygyPath": SMALL, "SyzygyProbeLimit": 0}) as engine:
        assert engine.analyse(chess.Board(FIVE), chess.engine.Limit(depth=9))["tbhits"] == 0
    with black_numba.Engine() as engine:                     # no tables
        assert engine.analyse(chess.Board(FIVE), chess.engine.Limit(depth=9))["tbhits"] == 0


def test_a_root_whose_table_is_missing_is_searched(tmp_path):
    """A root within the tables' piece count whose own table is absent (KQvKR beside 3-4-piece
    tables without it; KQvK with WDL but no DTZ files) is searched as any other position."""
    import shutil
    wdl_only = tmp_path / "wdl"
    wdl_only.mkdir()
    shutil.copy(os.path.join(SMALL, "KQvK.rtbw"), wdl_only)
    for path, fen in ((SMALL, "8/8/8/3k4/8/8/2r5/K5Q1 w - - 0 1"),
                      (str(wdl_only), "8/8/8/3k4/8/8/8/K5Q1 w - - 0 1")):
        with black_numba.Engine({"SyzygyPath": path}) as engine:
            board = chess.Board(fen)
            lines = engine.analyse(board, chess.engine.Limit(depth=8), multipv=2)
            assert [line["depth"] for line in lines] == [8, 8]
            assert all(line["pv"][0] in board.legal_moves for line in lines)
            assert lines[0]["score"].white().score(mate_score=100000) > 300
    wdl_hits = chess.Board("8/8/8/3k4/8/8/8/K5Q1 w - - 0 1")
    with black_numba.Engine({"SyzygyPath": str(wdl_only)}) as engine:
        info = engine.analyse(wdl_hits, chess.engine.Limit(depth=6))
        assert info["score"].white() == chess.engine.Cp(20000)   # ranked by WDL: a win


def test_a_won_ending_that_repeated_is_ranked_by_dtz():
    """Once the game repeated, a won root is ranked by DTZ (Stockfish's `rep`): the top rank
    group is exactly python-chess's DTZ-shortest wins, so the opponent cannot repeat a won
    ending into a draw; before any repetition every certain win ranks the same. The move
    played is then one of the shortest."""
    from black_numba.board.bitboard import TABLES
    from black_numba.board.movegen import legal_moves
    from black_numba.board.position import from_fen, make_move, move_to_uci
    from black_numba.search.driver import root_ranks
    from black_numba.tablebase import syzygy, tbprobe
    oracle = chess.syzygy.open_tablebase(SMALL)
    tb = syzygy.Tablebase(SMALL)
    start = "8/8/8/4k3/8/8/8/KQ6 w - - 0 1"
    cycle = ("b1c1", "e5e6", "c1b1", "e6e5")
    for history in ((), cycle):
        board, pos = chess.Board(start), from_fen(start)
        for uci in history:
            board.push_uci(uci)
            make_move(TABLES, pos, np.int64(next(m for m in legal_moves(pos)
                                                 if move_to_uci(m) == uci)))
        root = list(legal_moves(pos))
        ranks, dtz = root_ranks(TABLES, pos, tb.meta, tbprobe.new_buffer(), root, True)
        assert dtz
        top = {move_to_uci(m) for m, r in zip(root, ranks) if r == max(ranks)}

        def plies(move):
            board.push(move)
            try:
                return abs(oracle.probe_dtz(board)) if oracle.probe_wdl(board) == -2 else None
            finally:
                board.pop()
        wins = {m.uci(): plies(m) for m in board.legal_moves}
        shortest = min(d for d in wins.values() if d is not None)
        if history:
            assert top == {m for m, d in wins.items() if d == shortest}
            assert len(top) < sum(d is not None for d in wins.values())
            with black_numba.Engine({"SyzygyPath": SMALL}) as engine:
                assert engine.analyse(board, chess.engine.Limit(depth=6))["pv"][0].uci() in top
        else:
            assert top == {m for m, d in wins.items() if d is not None}
    tb.close()
    oracle.close()


def test_root_in_the_tables_multipv_threads_and_python_chess_agree():
    oracle = chess.syzygy.open_tablebase(SMALL)
    with black_numba.Engine({"SyzygyPath": SMALL, "Threads": 2}) as engine:
        board = chess.Board(KPK_WIN)
        lines = engine.analyse(board, chess.engine.Limit(depth=10), multipv=3)
        assert len(lines) == 3
        assert lines[0]["pv"][0] == chess.Move.from_uci("f2e3")
        assert lines[0]["score"].white() == chess.engine.Cp(20000)
        # the lines after the only win are the best of the rest, draws here, best first
        for line in lines[1:]:
            board.push(line["pv"][0])
            assert -oracle.probe_wdl(board) == 0
            board.pop()
            assert line["score"].white() == chess.engine.Cp(0)
        assert engine.play(board, chess.engine.Limit(depth=8)).move.uci() == "f2e3"
        # the Python API's own probes, with python-chess's conventions
        for fen in (KPK_WIN, "8/8/8/8/3k4/8/1R6/K6r w - - 0 1", "8/8/8/8/8/2k5/8/KQ6 b - - 0 1"):
            b = chess.Board(fen)
            assert engine.probe_wdl(b) == oracle.probe_wdl(b)
            assert engine.probe_dtz(b) == oracle.probe_dtz(b)
        with pytest.raises(KeyError):
            engine.probe_wdl(chess.Board())


def test_cursed_win_is_a_draw_with_the_fifty_move_rule_and_a_win_without():
    """KRBvKR's cursed win: with Syzygy50MoveRule the root reports the draw the rule makes of
    it (1 centipawn), without it a win."""
    with black_numba.Engine({"SyzygyPath": BOTH}) as engine:
        board = chess.Board(CURSED)
        assert engine.probe_wdl(board) == 1
        info = engine.analyse(board, chess.engine.Limit(depth=6))
        assert info["score"].white() == chess.engine.Cp(1)
        engine.configure({"Syzygy50MoveRule": False})
        info = engine.analyse(board, chess.engine.Limit(depth=6))
        assert info["score"].white() == chess.engine.Cp(20000)


def test_uci_options_ponder_infinite_and_bad_tables(tmp_path):
    bad = tmp_path / "tables"
    bad.mkdir()
    for name in ("KQvK.rtbw", "KQvK.rtbz"):
        (bad / name).write_bytes((open(os.path.join(SMALL, name), "rb").read())[:100])
    (bad / "KRvK.rtbw").write_bytes(open(os.path.join(SMALL, "KQvK.rtbw"), "rb").read())
    raw = Raw()
    try:
        raw.send("uci")
        out = raw.wait_for("uciok")
        for want in ("option name SyzygyPath type string default <empty>",
                     "option name SyzygyProbeDepth type spin default 1 min 1 max 100",
                     "option name Syzygy50MoveRule type check default true",
                     "option name SyzygyProbeLimit type spin default 7 min 0 max 7"):
            assert want in out
        raw.send(f"setoption name SyzygyPath value {bad};{SMALL}", "isready")
        out = raw.wait_for("readyok")
        errors = [l for l in out if l.startswith("info string error")]
        assert len(errors) == 3 and all(str(bad) in l for l in errors), out
        assert any("KRvK.rtbw" in l for l in errors)
        assert any(l.startswith("info string found 6 tablebases") for l in out), out
        # ponder: no bestmove before ponderhit, then the winning move
        raw.send(f"position fen {KPK_WIN}", "go ponder wtime 5000 btime 5000")
        time.sleep(1.0)
        early = []
        while not raw.q.empty():
            early.append(raw.q.get())
        assert not [l for l in early if l.startswith("bestmove")]
        raw.send("ponderhit")
        assert raw.wait_for("bestmove")[-1].split()[1] == "f2e3"
        # a missing folder: reported, and the engine goes on without tables
        raw.send(f"setoption name SyzygyPath value {tmp_path / 'none'}",
                 f"position fen {FIVE}", "go depth 6")
        out = raw.wait_for("bestmove")
        assert any("info string error" in l and "none" in l for l in out)
        assert all(_field(l, "tbhits") == "0" for l in out if " tbhits " in l)
    finally:
        raw.close()


def test_play_from_the_tables_wins_a_won_ending():
    """Playing both sides at a small node limit from KRvK with the tables, the stronger side
    mates within the fifty-move rule, the game ending as a GUI ends it: mate, a threefold
    repetition that occurred, or fifty moves without a capture (a repetition that could only
    be claimed by a move the engine does not play is no draw)."""
    board = chess.Board("8/8/8/4k3/8/8/8/R3K3 w - - 0 1")
    with black_numba.Engine({"SyzygyPath": SMALL}) as engine:
        while not (board.is_game_over() or board.is_repetition(3)
                   or board.halfmove_clock >= 100) and board.ply() < 150:
            board.push(engine.play(board, chess.engine.Limit(nodes=3000)).move)
    assert board.is_checkmate() and board.turn == chess.BLACK, board.fen()
