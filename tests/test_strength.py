"""Strength levels: UCI_LimitStrength / UCI_Elo / Skill Level (strength.py, uci.py)."""
import json
import os
import random
import re
import shlex
import time

import chess
import chess.engine
import pytest

from black_numba.search import strength
from black_numba.search.strength import ELO_MAX, ELO_MIN, Handicap, SKILL_LINES, handicap
from conftest import Raw
from test_protocol import BOOK_MOVE, book  # noqa: F401 (a fixture)
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


def test_the_top_levels_blend_into_full_strength():
    """At or below BLEND_FROM the plain rules hold (the calibrated levels stand); above it the
    node budget doubles BLEND_DOUBLINGS times and the lines fall to one by level 20."""
    edge = Handicap(strength.BLEND_FROM)
    assert edge.blend == 0.0 and edge.lines == SKILL_LINES
    assert edge.node_budget == int(1024 * 2 ** (0.4 * strength.BLEND_FROM)) == 228843
    assert Handicap(19.0).lines == SKILL_LINES and Handicap(19.0).node_budget == 198668
    steps = [Handicap(lv / 100) for lv in range(1951, 2000)]
    assert [h.lines for h in steps] == sorted((h.lines for h in steps), reverse=True)
    assert [h.node_budget for h in steps] == sorted(h.node_budget for h in steps)
    top = Handicap(19.99)
    assert top.lines == 1 and top.multipv(1) == 1 and top.multipv(3) == 3
    assert top.node_budget > 15 * int(1024 * 2 ** (0.4 * 19.99)) and top.node_budget > 3_900_000
    assert [Handicap(lv).lines for lv in (19.62, 19.64, 19.75, 19.76, 19.87, 19.89)] == \
        [4, 3, 3, 2, 2, 1]
    # one line: the best line is played whatever the random term
    assert {top.pick([(0, 10), (1, 9), (2, 8)], random.Random(k)) for k in range(50)} == {0}


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


# -- the table, its stamp and the fit (calibration.py) -----------------------------------

def _shipped_network():
    from black_numba.evaluation import netfile
    return netfile.load(netfile.DEFAULT_NET)[1]["weights_sha256"]


def _synthetic_games(truth, levels, opponents, per, seed=1, draw=0.3):
    """(level, opponent, points) games drawn from the logistic model of truth(level)."""
    from black_numba.arena.calibration import expected
    rng = random.Random(seed)
    out = []
    for lv in levels:
        for k in range(per):
            opp = opponents(lv)[k % len(opponents(lv))]
            p = expected(truth(lv), opp)
            # a draw with probability draw * (1 - |2p - 1|), else a win with the rest's odds
            d = draw * (1 - abs(2 * p - 1))
            r = rng.random()
            pts = 0.5 if r < d else 1.0 if r < d + (1 - d) * p else 0.0
            out.append((lv, opp, pts))
    return out


def test_the_fit_recovers_a_known_monotone_curve():
    from black_numba.arena.calibration import fit, table_of
    truth = lambda lv: 1000 + 60 * lv + 3 * max(0, lv - 15) ** 2      # noqa: E731
    levels = [0, 2.5, 5, 7.5, 10, 12.5, 15, 17.5, 19, 20]
    near = lambda lv: [round(truth(lv)) + d for d in (-150, -50, 50, 150)]   # noqa: E731
    blocks = fit(_synthetic_games(truth, levels, near, 400))
    elos = [b["elo"] for b in blocks]
    assert elos == sorted(elos) and len(set(elos)) == len(elos)
    assert [lv for b in blocks for lv in b["levels"]] == levels
    for b in blocks:
        assert all(abs(b["elo"] - truth(lv)) < 45 for lv in b["levels"]), b
    points, elo_max = table_of(blocks)
    assert points[-1] == (elo_max, 20.0) and abs(elo_max - truth(20)) < 45
    assert all(e1 > e0 and l1 > l0 for (e0, l0), (e1, l1) in zip(points, points[1:]))


def test_the_fit_pools_levels_that_measure_out_of_order():
    from black_numba.arena.calibration import fit, table_of
    # level 10 scored better than level 11 against the same opponent: one block, one point
    games = [(10, 1500, 1.0)] * 14 + [(10, 1500, 0.0)] * 6 + \
        [(11, 1500, 1.0)] * 6 + [(11, 1500, 0.0)] * 14 + \
        [(20, 2400, 0.5)] * 10 + [(5, 1350, 0.0)] * 10
    blocks = fit(games)
    assert [b["levels"] for b in blocks] == [[5.0], [10.0, 11.0], [20.0]]
    assert abs(blocks[1]["elo"] - 1500) < 5 and abs(blocks[2]["elo"] - 2400) < 1
    points, elo_max = table_of(blocks)
    assert [lv for _, lv in points] == [5.0, 10.5, 20.0] and elo_max == 2400
    with pytest.raises(ValueError, match="full-strength"):
        table_of(fit(games[:40]))
    with pytest.raises(ValueError, match="points"):
        fit([(3, 1350, 0.25)])


def test_each_label_is_placed_by_its_own_games():
    """Stockfish's labels are not one Elo scale against this engine. Games drawn with a
    label-dependent offset (the engine's Elo against label L is curve(level) + offset[L]):
    the table puts each label where the engine scores 50% against it, which the fit of all
    the games on one scale misses by levels."""
    from black_numba.arena.calibration import fit, table_from_games, table_of
    curve = lambda lv: 900 + 80 * lv                                  # noqa: E731
    offset = {1350: 0, 1600: 100, 1900: -150, 2200: 150}
    where = {lab: (lab - off - 900) / 80 for lab, off in offset.items()}   # 5.6 .. 14.4
    games = []
    for lab, off in offset.items():
        lvs = [round(where[lab] + d, 2) for d in (-1.5, -0.5, 0.5, 1.5)]
        games += _synthetic_games(lambda lv, off=off: curve(lv) + off, lvs,
                                  lambda lv, lab=lab: [lab], 300, seed=lab)
    games += _synthetic_games(curve, [20], lambda lv: [2400], 300, seed=7)
    points, elo_max, blocks, labels = table_from_games(games)
    assert points[-1] == (elo_max, 20.0) and abs(elo_max - curve(20)) < 40
    for lab in offset:
        assert abs(strength.level_at(points, lab) - where[lab]) < 0.3, (lab, points)
    assert [x["from"] for x in labels] == ["own games"] * 4
    pooled, _ = table_of(fit(games))
    assert max(abs(strength.level_at(pooled, lab) - where[lab]) for lab in offset) > 1


def test_a_labels_level_comes_from_the_crossing_of_its_curve():
    from black_numba.arena.calibration import crossing, _rising, table_from_games
    blocks = [{"levels": [4.0], "elo": 1300.0}, {"levels": [6.0], "elo": 1400.0},
              {"levels": [7.0, 9.0], "elo": 1500.0}]
    assert crossing(blocks, 1350) == 5.0                 # between the blocks around it
    # the fit is flat across the pooled block 7-9: the rise is in the gap 6-7
    assert crossing(blocks, 1450) == 6.5
    assert crossing(blocks, 1500) == 8.0                 # on the flat block: its middle
    assert crossing(blocks, 1250) == 3.0                 # the end gap's slope below
    assert crossing(blocks, 1600) == 10.0                # and above, from the top of 7-9
    # a label's real games: 18.97-19.42 pooled at 38.1%, 19.57 at 58.8%: between the two
    real = [{"levels": [18.97, 19.27, 19.42], "elo": 2116.0}, {"levels": [19.57], "elo": 2262.0}]
    assert crossing(real, 2200) == 19.51
    assert crossing(blocks, 9000) == 19.99 and crossing(blocks, 0) == 0.0
    assert crossing(blocks[:1], 1350) is None            # no slope: the pooled fit decides
    assert _rising([(1350, 6.0), (1600, 5.0), (1900, 9.0)]) == [(1475, 5.5), (1900, 9.0)]
    # a label played at one level only falls back on the fit of all the games
    games = [(5, 1350, 1.0)] * 10 + [(5, 1350, 0.0)] * 10 + [(20, 2400, 0.5)] * 20 + \
        [(8, 1600, 1.0)] * 5 + [(8, 1600, 0.0)] * 15 + [(9, 1600, 1.0)] * 15 + \
        [(9, 1600, 0.0)] * 5
    points, elo_max, _, labels = table_from_games(games)
    assert [x["from"] for x in labels] == ["fit of all games", "own games"]
    assert points == [(1350, 5.0), (1600, 8.5), (2400, 20.0)] and elo_max == 2400


def test_a_fitted_table_is_written_checked_and_read(tmp_path):
    """write_table's table loads; stamp_problems catches a missing record file, a record of
    another network, a table edited by hand and a network other than the stamp's."""
    from black_numba.arena import calibration
    net = _shipped_network()
    truth = lambda lv: 900 + 75 * lv                                   # noqa: E731
    games = _synthetic_games(truth, [4, 8, 12, 16, 20], lambda lv: [round(truth(lv))], 60)
    matches = [{"label": 1350, "level": float(lv), "opponent_elo": round(truth(lv)),
                "network": net, "bench": 1_107_874, "log": f"/elsewhere/L{lv}/summary.json",
                "results": "".join(calibration.RESULT_CHAR[p] for l2, _, p in games
                                   if l2 == lv)} for lv in (4, 8, 12, 16, 20)]
    table = str(tmp_path / "strength_table.json")
    calibration.write_table(table, matches, {"tc": "10+0.1"})
    t = strength.load_table(table)
    assert t["stamp"]["fitted"] and t["stamp"]["network"] == net
    assert t["stamp"]["logs"] == ["strength_table.games.json"]
    assert t["elo_levels"][-1] == (t["elo_max"], 20.0) and abs(t["elo_max"] - truth(20)) < 90
    assert calibration.stamp_problems(table, net) == []
    assert "not the shipped network" in calibration.stamp_problems(table, "0" * 64)[0]
    records = tmp_path / "strength_table.games.json"
    kept = records.read_text()
    records.write_text(kept.replace(net, "1" * 64, 1))
    assert any("played with the network 1111" in p
               for p in calibration.stamp_problems(table, net))
    records.unlink()
    assert any("cannot be read" in p for p in calibration.stamp_problems(table, net))
    records.write_text(kept)
    data = json.loads(open(table).read())
    data["elo_levels"][0][0] -= 10
    open(table, "w").write(json.dumps(data))
    assert calibration.stamp_problems(table, net) == ["the table is not the fit of its records"]
    # the command refits the records alone (--fit-only) into the same table
    from black_numba.frontends.cli import main
    again = str(tmp_path / "again.json")
    assert main(["calibrate", "--fit-only", "--include", str(records), "--table", again]) == 0
    assert strength.load_table(again)["elo_levels"] == t["elo_levels"]
    # its stamp states what the records say, not the command's own defaults
    assert strength.load_table(again)["stamp"]["conditions"] == {
        "fit_only": True, "opponent": calibration.OPPONENT, "labels": [1350],
        "levels": {"1350": [4.0, 8.0, 12.0, 16.0]}, "full_opponents": [round(truth(20))],
        "parts": "each part's clock, openings and seed are in its log (stamp.matches)"}
    bad = tmp_path / "bad.games.json"
    for text in ("{", '{"format": 1, "matches": [{"level": 3}]}'):
        bad.write_text(text)
        assert main(["calibrate", "--fit-only", "--include", str(bad), "--table", again]) == 2
    # games of two networks are not fitted together
    other = [dict(m, network="2" * 64) for m in matches[:1]]
    with pytest.raises(ValueError, match="networks"):
        calibration.write_table(str(tmp_path / "x.json"), matches + other, {})


def test_an_unfitted_tables_validation_is_checked(tmp_path):
    """A provisional table's validation must cover every label below full strength at the
    table's level, with an Elo that is its score's and within +-75."""
    from black_numba.arena import calibration
    net = _shipped_network()
    runs = [{"run": "A", "label": 1500, "level": 9.0, "games": 100, "points": 56.0,
             "elo": 41.9},
            {"run": "B", "label": 2000, "level": 15.0, "games": 100, "points": 44.5,
             "elo": -38.4}]
    table = tmp_path / "t.json"

    def problems(**change):
        data = {"format": 1, "elo_levels": [[1500, 9.0], [2000, 15.0], [2600, 20.0]],
                "elo_max": 2600, "stamp": {"fitted": False, "network": net, "bench": 1,
                                           "date": "2026-12-05", "logs": [], "reason": "why",
                                           "validation": runs}}
        data["stamp"].update(change)
        table.write_text(json.dumps(data))
        return calibration.stamp_problems(str(table), net)
    assert problems() == []
    assert problems(validation=None) == []          # no validation claimed: nothing to check
    assert problems(validation=runs[:1]) == ["labels without a validation: 2000"]
    moved = [runs[0], dict(runs[1], level=15.5)]
    assert problems(validation=moved) == [
        "validation B: label 2000 played at level 15.5, the table gives 15.0"]
    lost = [runs[0], dict(runs[1], points=38.0, elo=-85.0)]
    assert problems(validation=lost) == [
        "validation B: label 2000 scored -85.0 Elo, outside +-75: refit it"]
    wrong = [runs[0], dict(runs[1], elo=-30.0)]
    assert "is not its score's" in problems(validation=wrong)[0]
    assert "lacks one of" in problems(validation=[{"run": "C"}] + runs)[0]


@pytest.mark.parametrize("text, why", [
    (None, "cannot read"), ("{", "cannot read"), ('{"format": 2}', "not a format 1"),
    ('{"format": 1, "elo_levels": [[1500, 9], [1400, 12], [2400, 20]], "elo_max": 2400, '
     '"stamp": {}}', "rise"),
    ('{"format": 1, "elo_levels": [[1500, 9], [2400, 19]], "elo_max": 2400, "stamp": {}}',
     "last point"),
    ('{"format": 1, "elo_levels": [[1500, 9], [2400, 20]], "elo_max": 2400, '
     '"stamp": {"fitted": false}}', "lacks network"),
])
def test_a_missing_or_malformed_table_is_a_clear_error(tmp_path, text, why):
    path = tmp_path / "t.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(strength.StrengthTableError, match=why) as e:
        strength.load_table(str(path))
    assert str(path) in str(e.value)


def test_the_calibration_level_is_hidden_and_sets_a_real_level(monkeypatch):
    assert strength.LEVEL_OPTION not in {o.name for o in __import__(
        "black_numba.core.engine", fromlist=["OPTIONS"]).OPTIONS}
    assert handicap(True, ELO_MIN, 20, 350).level == 3.5          # wins over UCI_Elo
    assert handicap(False, ELO_MIN, 20, 1999).level == 19.99       # and over Skill Level
    assert handicap(True, ELO_MIN, 3, 2000) is None               # 20.00: full strength
    assert handicap(False, ELO_MIN, 3, strength.LEVEL_OFF).level == 3.0
    monkeypatch.setenv(strength.CALIBRATE_ENV, "1")
    raw = Raw()
    try:
        raw.send("uci")
        out = raw.wait_for("uciok")
        assert "option name Calibration Level type spin default -1 min -1 max 2000" in out
        raw.send("setoption name Calibration Level value 250", "isready")
        raw.wait_for("readyok")
        _, infos = _search(raw, chess.STARTING_FEN)
        assert max(_field(l, "depth") for l in infos) <= 3               # 1 + floor(2.5)
        assert max(_field(l, "nodes") for l in infos) <= Handicap(2.5).node_budget + 1024
    finally:
        raw.close()


def test_a_calibration_part_keeps_its_records_when_it_does_not_fit(tmp_path):
    """Full-strength games alone give no table, but their records are written for a later
    --include (real games: this engine at full strength against itself, 200 nodes a move,
    standing in for Stockfish at UCI_Elo 2850)."""
    import sys
    from black_numba.arena import calibration
    from black_numba.frontends.cli import main
    table = str(tmp_path / "part.json")
    opponent = shlex.join([sys.executable, "-m", "black_numba"])
    rc = main(["calibrate", "--labels", "", "--full-games", "2", "--full-opponent", "2850",
               "--nodes", "200", "--concurrency", "1", "--stockfish", opponent,
               "--table", table, "--out", str(tmp_path / "logs")])
    assert rc == 0 and not os.path.exists(table)
    (m,) = calibration.read_records(calibration.records_path(table))
    assert (m["label"], m["level"], m["opponent_elo"]) == ("full", 20.0, 2850)
    assert len(m["results"]) == 2 and set(m["results"]) <= set("1=0")
    assert m["network"] == _shipped_network()
    assert os.path.isfile(m["log"])


def test_the_calibration_defaults_need_no_checkout():
    """calibrate's defaults run without arguments: the held-out openings ship in the
    package, and its engine command starts the package's own engine with the hidden level
    option on (from a folder outside any checkout)."""
    import subprocess
    from black_numba.arena import calibration
    assert os.path.isfile(calibration.HOLDOUT)
    package = os.path.dirname(os.path.dirname(os.path.abspath(strength.__file__)))
    assert os.path.dirname(os.path.abspath(calibration.HOLDOUT)) == \
        os.path.dirname(os.path.abspath(calibration.__file__))
    assert os.path.samefile(calibration.PACKAGE_PARENT, os.path.dirname(package))
    assert calibration.engine_command("my-engine --x") == "my-engine --x"
    cmd = calibration.engine_command()
    out = subprocess.run(shlex.split(cmd), input="uci\nquit\n", capture_output=True,
                         text=True, timeout=60, cwd="/").stdout
    assert "uciok" in out
    assert f"option name {strength.LEVEL_OPTION} type spin" in out


def test_a_level_does_not_play_book_moves(book):
    """The book is opening theory, not skill: a level plays its own moves from the first
    (full strength, the control, takes the book's)."""
    raw = Raw()
    try:
        raw.send("uci", f"setoption name BookFile value {book}",
                 "setoption name OwnBook value true", "setoption name Skill Level value 3",
                 "isready")
        raw.wait_for("readyok", timeout=120)
        raw.send("position startpos", "go wtime 10000 btime 10000")
        out = raw.wait_for("bestmove")
        assert not any("book move" in l for l in out)
        assert max(_field(l, "depth") for l in out if l.startswith("info depth")) >= 1
        raw.send("setoption name Skill Level value 20", "position startpos",
                 "go wtime 10000 btime 10000")
        out = raw.wait_for("bestmove")
        assert out[0] == f"info string book move {BOOK_MOVE}" and out[-1].split()[1] == BOOK_MOVE
    finally:
        raw.close()
