"""Strength levels: UCI_LimitStrength / UCI_Elo / Skill Level (strength.py, uci.py)."""
import random
import re
import time

import chess
import chess.engine
import pytest

from black_numba.search import strength
from black_numba.search.strength import ELO_MAX, ELO_MIN, Handicap, SKILL_LINES, handicap
from conftest import Raw
from test_uci_clients import SYZYGY_DIR

QUEEN_HANGS = "rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"   # Nxh4


def test_elo_and_skill_map_onto_one_scale():
    assert 0.0 < strength.level_of_elo(ELO_MIN) < 20.0 and strength.level_of_elo(ELO_MAX) == 20.0
    first_elo, first_level = strength.ELO_LEVELS[0]
    assert strength.level_of_elo(first_elo - 100) == first_level      # clamped below the scale
    levels = [strength.level_of_elo(e) for e in range(ELO_MIN, ELO_MAX + 1, 10)]
    assert levels == sorted(levels) and len(set(levels)) == len(levels)
    for e in range(ELO_MIN, ELO_MAX + 1, 37):
        assert abs(strength.elo_of_level(strength.level_of_elo(e)) - e) <= 1


def test_uci_elo_wins_over_skill_level():
    assert handicap(True, ELO_MIN, 20).level == strength.level_of_elo(ELO_MIN)  # Skill not read
    assert handicap(True, ELO_MAX, 3) is None                 # the top Elo is full strength
    assert handicap(False, ELO_MIN, 20) is None               # off: Skill Level 20 = full
    assert handicap(False, ELO_MIN, 5).level == 5.0


def test_handicap_limits_and_choice():
    h0, h19 = Handicap(0.0), Handicap(19.0)
    assert (h0.depth_cap, h0.node_budget, h0.weakness) == (1, 1024, 120)
    assert h19.depth_cap == 20 and h19.node_budget == 198668 and h19.weakness == 15
    assert Handicap(13.0).weakness == 94 and Handicap(19.99).weakness < 0.2   # fades to 0
    assert h19.nodes(5000) == 5000 and h19.nodes(None) == 198668 and h0.depth(30) == 1
    assert h0.multipv(1) == SKILL_LINES and h0.multipv(7) == 7
    # seeded: the same key gives the same choice; close lines are chosen among at random
    close = [(0, 30), (1, 20), (2, 10), (3, 0)]
    picks = [h0.pick(close, h0.rng(k)) for k in range(200)]
    assert picks == [h0.pick(close, h0.rng(k)) for k in range(200)]
    assert set(picks) == {0, 1, 2, 3}
    # equal lines: no random term (delta 0), the last wins, as in Stockfish
    assert h0.pick([(m, 5) for m in range(4)], h0.rng(1)) == 3
    # a queen up against three quiet moves: level 19 takes it every time
    lines = [(0, 900), (1, 10), (2, 0), (3, -5)]
    assert {h19.pick(lines, random.Random(k)) for k in range(500)} == {0}
    # level 0 sometimes leaves it (Stockfish's level 0 does too)
    assert {h0.pick(lines, random.Random(k)) for k in range(500)} != {0}
    with pytest.raises(ValueError):
        h0.pick([], random.Random(1))


def _search(raw, fen, go="go wtime 10000 btime 10000"):
    raw.send(f"position fen {fen}", go)
    out = raw.wait_for("bestmove")
    infos = [l for l in out if l.startswith("info depth")]
    # without the clock-dependent fields, so that two searches compare
    return out[-1].split()[1], [re.sub(r" (nps|time) \d+", "", l) for l in infos]


def _field(line, name):
    return int(re.search(rf" {name} (-?\d+)", line).group(1))


def test_a_level_caps_depth_and_nodes_and_plays_one_of_its_lines():
    raw = Raw()
    try:
        raw.send("uci", "setoption name Skill Level value 3", "isready")
        raw.wait_for("readyok")
        budget = Handicap(3.0).node_budget
        for fen in (chess.STARTING_FEN, QUEEN_HANGS,
                    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2Q1RK1 w - - 0 9"):
            move, infos = _search(raw, fen)
            depth = max(_field(l, "depth") for l in infos)
            assert depth <= 4 and max(_field(l, "nodes") for l in infos) <= budget + 1024
            last = [l for l in infos if _field(l, "depth") == depth]
            if len(last) < SKILL_LINES:                      # an unfinished last iteration
                last = [l for l in infos if _field(l, "depth") == depth - 1]
            assert len(last) >= SKILL_LINES and " multipv 4 " in last[SKILL_LINES - 1]
            assert move in {l.split(" pv ")[1].split()[0] for l in last}
        # the same position and state give the same move; Threads does not change a level
        raw.send("ucinewgame")
        first = _search(raw, QUEEN_HANGS.replace("2 3", "2 4"))
        raw.send("ucinewgame", "setoption name Threads value 4")
        assert _search(raw, QUEEN_HANGS.replace("2 3", "2 4")) == first
        # go nodes below the budget is obeyed; go depth 2 too
        _, infos = _search(raw, chess.STARTING_FEN, "go nodes 1024")
        assert max(_field(l, "nodes") for l in infos) <= 1024 + 2
        _, infos = _search(raw, chess.STARTING_FEN, "go depth 2")
        assert max(_field(l, "depth") for l in infos) <= 2
        # MultiPV above 4 is honoured
        raw.send("setoption name MultiPV value 6")
        _, infos = _search(raw, chess.STARTING_FEN)
        assert any(" multipv 6 " in l for l in infos)
    finally:
        raw.close()


def test_out_of_range_levels_are_refused_like_any_spin():
    raw = Raw()
    try:
        raw.send("uci", "setoption name UCI_LimitStrength value true",
                 "setoption name UCI_Elo value 1349", f"setoption name UCI_Elo value {ELO_MAX + 1}",
                 "setoption name Skill Level value 21", "setoption name Skill Level value -1",
                 "isready")
        out = raw.wait_for("readyok")
        errors = [l for l in out if l.startswith("info string error")]
        assert len(errors) == 4 and all("must be between" in l for l in errors)
        move, infos = _search(raw, chess.STARTING_FEN)       # UCI_Elo kept its 1350
        assert max(_field(l, "depth") for l in infos) == 1 + int(strength.level_of_elo(ELO_MIN))
        raw.send("setoption name UCI_LimitStrength value false")
        _, infos = _search(raw, chess.STARTING_FEN, "go depth 6")
        assert max(_field(l, "depth") for l in infos) == 6    # Skill Level kept its 20
    finally:
        raw.close()


def test_a_level_does_not_play_tablebase_moves_and_pondering_adds_nothing():
    raw = Raw()
    try:
        raw.send("uci", f"setoption name SyzygyPath value {SYZYGY_DIR}",
                 "setoption name Skill Level value 2", "isready")
        raw.wait_for("readyok")
        move, infos = _search(raw, "8/8/8/4k3/8/8/4PK2/8 w - - 0 1")
        assert all(" tbhits 0 " in l and " multipv " in l for l in infos)   # never probed
        assert max(_field(l, "nodes") for l in infos) <= Handicap(2.0).node_budget + 1024
        raw.send(f"position fen {chess.STARTING_FEN}", "go ponder wtime 10000 btime 10000")
        time.sleep(1.5)
        early = []
        while not raw.q.empty():
            early.append(raw.q.get())
        assert early and not any(l.startswith("bestmove") for l in early)   # waits for ponderhit
        raw.send("ponderhit")
        out = early + raw.wait_for("bestmove")
        infos = [l for l in out if l.startswith("info depth")]
        assert max(_field(l, "nodes") for l in infos) <= Handicap(2.0).node_budget + 1024
    finally:
        raw.close()


def test_the_in_process_engine_plays_the_levels_move():
    from black_numba import Engine
    board = chess.Board(QUEEN_HANGS)
    raw = Raw()
    try:
        raw.send("uci", "setoption name UCI_LimitStrength value true",
                 "setoption name UCI_Elo value 1500", "ucinewgame", "isready")
        raw.wait_for("readyok")
        want, _ = _search(raw, QUEEN_HANGS)
    finally:
        raw.close()
    with Engine({"UCI_LimitStrength": True, "UCI_Elo": 1500}) as e:
        got = e.play(board, chess.engine.Limit(white_clock=10, black_clock=10))
    assert got.move.uci() == want
