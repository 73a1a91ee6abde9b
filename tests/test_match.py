"""`black-numba match`: the statistics on known numbers, faults caught from real engine
processes (tiny UCI scripts written here), a short match of black_numba against itself with
its PGN read back, and a real Dask cluster (a `dask scheduler` and two `dask worker`
processes on 127.0.0.1) playing the same games as a local run."""
import contextlib
import io
import signal
import json
import math
import os
import re
import socket
import subprocess
import sys
import textwrap

import chess
import chess.pgn
import pytest

from conftest import ENGINE, ROOT
from black_numba.arena import matchstats as ms
from black_numba.arena.matchgame import (CRASH, HANG, ILLEGAL, TIME_LOSS, close_engines, comment,
                                   play_game, points)
from black_numba.uci_client import MATE_CP, _score_depth, nodes_ignored

DASK = os.path.join(os.path.dirname(sys.executable), "dask")
OPENINGS = os.path.join(ROOT, "tests", "data", "match_openings.epd")


# -- the statistics ---------------------------------------------------------------------

def test_elo_and_los_on_numbers_worked_by_hand():
    assert ms.elo(0.75) == pytest.approx(400 * math.log10(3))          # 190.85
    assert ms.elo(0.5) == 0.0 and ms.expected_score(0) == 0.5
    assert ms.expected_score(ms.elo(0.3)) == pytest.approx(0.3)
    # LOS = 1/2 (1 + erf((W - L) / sqrt(2 (W + L)))) = 1/2 (1 + erf(5 / sqrt 30))
    assert ms.los(10, 5) == pytest.approx(0.901647, abs=1e-6)
    assert ms.los(5, 5) == 0.5 and ms.los(0, 0) == 0.5
    assert ms.sprt_bounds() == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))


def test_trinomial_interval_by_hand():
    # 30 wins, 40 draws, 30 losses: mean 1/2, variance a game 0.15, half-width
    # 1.96 sqrt(0.15 / 100) = 0.075910; Elo of 0.575910 = 400 log10(0.575910 / 0.424090)
    e, lo, hi = ms.elo_interval([30, 40, 30])
    assert e == 0.0
    assert hi == pytest.approx(53.158, abs=1e-3) and lo == pytest.approx(-53.158, abs=1e-3)


def test_pentanomial_figures_by_hand():
    # 50 pairs [LL, LD, WL+DD, WD, WW] = [2, 10, 20, 14, 4]: pair scores 0, .25, .5, .75, 1;
    # mean (2.5 + 10 + 10.5 + 4) / 50 = 0.54, variance 0.0584, half-width 1.96
    # sqrt(0.0584 / 50) = 0.066984: Elo 400 log10(.54 / .46) = +27.85 (-18.77 .. +75.51)
    counts = [2, 10, 20, 14, 4]
    e, lo, hi = ms.elo_interval(counts)
    assert (e, lo, hi) == pytest.approx((27.854, -18.768, 75.507), abs=1e-3)
    # normalised Elo: t = (0.54 - 0.5) / sqrt(2 * 0.0584) = 0.117041 a game, times 800 / ln 10
    assert ms.normalized_elo(counts)[0] == pytest.approx(40.664, abs=1e-3)
    score = ms.Score()
    for pair in [(0, 0)] * 2 + [(0, 0.5)] * 6 + [(0.5, 0)] * 4 + [(1, 0)] * 12 + \
            [(0.5, 0.5)] * 8 + [(1, 0.5)] * 14 + [(1, 1)] * 4:
        score.add_pair(pair)
    assert score.penta == counts
    assert (score.wins, score.draws, score.losses) == (12 + 14 + 8, 6 + 4 + 16 + 14,
                                                      4 + 6 + 4 + 12)
    assert score.games == 100 and score.pairs == 50
    assert ms.pentanomial([0, 0.5, 1, 1.5, 2, 2]) == [1, 1, 1, 1, 2]


# fastchess's SPRT tests (published values from fishtest's LLRcalc; fastchess writes its
# counts as LL, LD, WL, DD, WD, WW and wins, losses, draws)
def _penta(ll, ld, wl, dd, wd, ww):
    return [ll, ld, wl + dd, wd, ww]


@pytest.mark.parametrize("model, elo0, elo1, counts, llr", [
    ("normalized", 0, 2, _penta(365, 16618, 36029, 200, 16974, 390), 2.25),
    ("normalized", -1.75, 0.25, _penta(127, 4883, 10311, 401, 5150, 104), 3.01),
    ("normalized", 0, 5, _penta(0, 0, 0, 0, 0, 5550), 111.82),
    ("logistic", 0.5, 2.5, _penta(223, 9863, 20279, 1000, 10037, 246), -3.07),
    ("logistic", 0, 2, _penta(871, 26175, 55003, 980, 26678, 821), -4.98),
    ("normalized", 0, 2, [36027, 68692, 36433], 0.92),
    ("logistic", 0.5, 2.5, [21184, 40708, 21404], -1.57),
    ("normalized", 0, 10, [0, 0, 4250], 120.56),
])
def test_gsprt_llr_matches_fishtest_and_fastchess(model, elo0, elo1, counts, llr):
    f = ms.llr_logistic if model == "logistic" else ms.llr_normalized
    assert f(elo0, elo1, counts) == pytest.approx(llr, rel=0.01)


def test_gsprt_is_near_the_normal_approximation_and_decides():
    # fishtest's LLR_alt2: N (s1 - s0) (2 s - s0 - s1) / (2 var), close to the exact GSPRT
    counts = [2, 10, 20, 14, 4]
    s0, s1 = ms.expected_score(0), ms.expected_score(10)
    approx = 50 * (s1 - s0) * (2 * 0.54 - s0 - s1) / (2 * 0.0584)
    assert ms.llr_logistic(0, 10, counts) == pytest.approx(approx, rel=0.03)   # 0.396, 0.404
    assert ms.llr_logistic(0, 10, [0] * 5) == 0.0
    bounds = ms.sprt_bounds()
    assert ms.sprt_state(ms.llr_logistic(0, 10, [c * 20 for c in counts]), bounds) == "H1"
    assert ms.sprt_state(ms.llr_logistic(0, 10, [4, 14, 20, 10, 2]), bounds) is None
    assert ms.sprt_state(ms.llr_logistic(0, 10, [80, 280, 400, 200, 40]), bounds) == "H0"


def test_scores_and_comments():
    assert _score_depth("info depth 12 seldepth 20 score cp -35 nodes 5", None, None) == \
        (-35, 12)
    assert _score_depth("info depth 9 score mate 3 pv e2e4", None, None) == (MATE_CP - 3, 9)
    assert _score_depth("info depth 9 score mate -2", None, None) == (-MATE_CP + 2, 9)
    assert _score_depth("info string score of nothing", 7, 3) == (7, 3)
    assert comment(35, 12, 0.25) == "+0.35/12 0.250s"
    assert comment(-MATE_CP + 2, 9, 0.1) == "-M2/9 0.100s"
    assert points("1-0", 0) == 1.0 and points("1-0", 1) == 0.0 and points("1/2-1/2", 1) == 0.5


def test_adjudication_needs_both_engines_to_agree():
    from black_numba.arena.matchgame import _Adjudicator
    conf = _conf("a", "b", "--nodes", "1", "--resign", "500", "4", "--draw", "10", "3", "5")
    adj = _Adjudicator(conf)
    # White's view, one ply each side: a run of 4 beyond 500 with one sign wins
    assert [adj.update(s, p) for p, s in enumerate([600, 700, -800, 900, 600, 650, 700],
                                                   1)] == [None] * 6 + ["1-0"]
    adj = _Adjudicator(conf)
    assert [adj.update(s, p) for p, s in enumerate([-600, -700, None, -900, -600, -650, -501],
                                                   1)] == [None] * 6 + ["0-1"]
    # near zero for 3 plies, counted from ply 10 only
    adj = _Adjudicator(conf)
    assert [adj.update(s, p) for p, s in enumerate([0] * 9 + [3, -5, 0], 1)] == \
        [None] * 11 + ["1/2-1/2"]
    off = _Adjudicator(_conf("a", "b", "--nodes", "1", "--resign", "500", "0"))
    assert all(off.update(-30000, p) is None for p in range(1, 100))


# -- openings and arguments -------------------------------------------------------------

def test_openings_from_epd_fen_and_pgn(tmp_path):
    from black_numba.arena.runner import load_openings
    epd = tmp_path / "o.epd"
    epd.write_text("# a comment\n"
                   "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"e4\";\n\n"
                   "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n")
    got = load_openings(str(epd))
    assert [fen.split()[:2] for fen, _ in got] == [
        ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR", "b"],
        ["rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR", "w"]]
    pgn = tmp_path / "o.pgn"
    pgn.write_text('[Event "a"]\n\n1. d4 Nf6 2. c4 *\n\n'
                   '[Event "b"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 *\n')
    got = load_openings(str(pgn))
    assert got == [(chess.STARTING_FEN, ["d2d4", "g8f6", "c2c4"]),
                   (chess.STARTING_FEN, ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"])]
    bad = tmp_path / "bad.epd"
    bad.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\nnot a fen\n")
    with pytest.raises(ValueError, match="bad.epd:2"):
        load_openings(str(bad))
    (tmp_path / "empty.epd").write_text("# nothing\n")
    with pytest.raises(ValueError, match="no openings"):
        load_openings(str(tmp_path / "empty.epd"))


def test_random_plies_give_each_pair_its_own_seeded_opening():
    from black_numba.arena.runner import Openings, openings_for

    def make(**source):
        return openings_for(Openings(**source), 6)
    got = make(random_plies=8, seed=4)
    assert got == make(random_plies=8, seed=4)
    assert got != make(random_plies=8, seed=5)
    assert len(got) == 6 and len({tuple(m) for _, m in got}) == 6
    for fen, moves in got:
        board = chess.Board(fen)
        assert fen == chess.STARTING_FEN and len(moves) == 8
        for m in moves:
            board.push_uci(m)                              # legal, or it raises
        assert not board.is_game_over(claim_draw=True)
    # after a book's opening: the book's position, then the random plies
    book = make(path=OPENINGS, random_plies=2)
    with open(OPENINGS) as f:
        fens = {line.strip() for line in f}
    assert all(fen in fens and len(moves) == 2 for fen, moves in book)
    assert make(path=OPENINGS) == make(path=OPENINGS)


# A tiny UCI engine: plays the first legal move in UCI order with a score of 0, and in its
# MODE misbehaves at its second move (illegal: a move of the other side's pawn; crash: exits;
# hang: never answers; slow: overruns every movetime).
TINY = textwrap.dedent('''
    import sys, time
    import chess
    mode = sys.argv[1]
    board, moves = chess.Board(), 0
    def say(text):
        print(text, flush=True)
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "uci":
            say("id name tiny " + mode)
            say("option name Hash type spin default 16 min 1 max 64")
            say("uciok")
        elif cmd[0] == "isready":
            say("readyok")
        elif cmd[0] == "ucinewgame":
            moves = 0
        elif cmd[0] == "position":
            board = chess.Board(" ".join(cmd[2:8]))
            for m in cmd[9:]:
                board.push_uci(m)
        elif cmd[0] == "go":
            moves += 1
            if moves == 2 and mode == "illegal":
                say("bestmove " + ("e7e5" if board.turn else "e2e4"))
                continue
            if moves == 2 and mode == "crash":
                sys.exit(3)
            if moves == 2 and mode == "hang":
                time.sleep(600)
            if mode == "slow" and "movetime" in cmd:
                time.sleep(int(cmd[cmd.index("movetime") + 1]) / 1000 + 1.5)
            if mode == "sleepy":
                time.sleep(0.05)
            say("info depth 1 score cp 0")
            say("bestmove " + min(m.uci() for m in board.legal_moves))
        elif cmd[0] == "quit":
            break
''')


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.py"
    path.write_text(TINY)
    yield lambda mode: f"{sys.executable} {path} {mode}"
    close_engines()


def _conf(*argv):
    """The match conditions of a `black-numba match` command line (the command layer's)."""
    from black_numba.frontends.cli import _parser
    from black_numba.frontends.commands.match import match_conditions
    return match_conditions(_parser().parse_args(["match", *argv]))


@pytest.mark.parametrize("mode, limit, fault, reason", [
    ("illegal", ["--nodes", "1"], ILLEGAL, "illegal move"),
    ("crash", ["--nodes", "1"], CRASH, "crashed"),
    ("hang", ["--nodes", "1", "--hang-timeout", "3"], HANG, "no move"),
    ("slow", ["--movetime", "50", "--margin", "1000"], TIME_LOSS, "on time"),
])
def test_a_fault_loses_the_game_and_is_counted(tiny, mode, limit, fault, reason):
    conf = _conf(tiny("good"), tiny(mode), *limit)
    opening = (chess.STARTING_FEN, [])
    for white in (0, 1):
        record = play_game(opening, white, conf)
        assert record["faults"] == [(1, fault)]
        bad_colour = "White" if white == 1 else "Black"
        assert record["result"] == ("0-1" if bad_colour == "White" else "1-0")
        assert points(record["result"], white) == 1.0        # the good engine scores
        assert reason in record["reason"]
        assert record["termination"] in ("rules infraction", "abandoned", "time forfeit")
        # it misbehaves at its second move (slow: its first): 3 plies before it as Black
        # (0 = White), 2 as White (1)
        assert len(record["moves"]) == (1 if mode == "slow" else 3) - white


def test_the_fault_free_game_of_two_tiny_engines(tiny):
    conf = _conf(tiny("good"), tiny("good"), "--nodes", "1")
    record = play_game((chess.STARTING_FEN, ["e2e4"]), 0, conf)
    # both play the first legal move in UCI order: a7a5 a2a3 a5a4 a1a2 a8a5 a2a1 a5a6 a1a2
    # a6a5 a2a1 a5a6 a1a2 a6a5, the same position on the board for the third time
    assert record["faults"] == [] and record["result"] == "1/2-1/2"
    assert (record["termination"], record["reason"]) == ("normal", "threefold repetition")
    assert len(record["moves"]) == 13
    short = play_game((chess.STARTING_FEN, ["e2e4"]), 0,
                      _conf(tiny("good"), tiny("good"), "--nodes", "1", "--max-plies", "6"))
    assert (short["result"], short["termination"]) == ("1/2-1/2", "adjudication")
    assert short["moves"] == record["moves"][:6] and "ply limit" in short["reason"]
    board = chess.Board()
    board.push_uci("e2e4")
    for m in record["moves"]:
        assert min(x.uci() for x in board.legal_moves) == m
        board.push_uci(m)


def test_uneven_conditions_give_each_engine_its_own_limits():
    from black_numba.arena.runner import describe_limits
    from black_numba.arena.matchgame import _go_command
    conf = _conf("a", "b", "--nodes-a", "1000", "--tc-b", "5+0.05")
    a, b = conf["limits"]
    assert a == {"tc": None, "movetime": None, "nodes": 1000, "depth": None}
    assert b == {"tc": (5.0, 0.05), "movetime": None, "nodes": None, "depth": None}
    assert describe_limits(conf) == "uneven limits (a: 1000 nodes a move; b: 5+0.05)"
    # a White on nodes, b Black on its clock: each `go` carries only its own limits
    limits = {chess.WHITE: a, chess.BLACK: b}
    clocks = {chess.WHITE: None, chess.BLACK: 4.2}
    assert _go_command(limits, clocks, chess.WHITE) == "go nodes 1000"
    assert _go_command(limits, clocks, chess.BLACK) == "go btime 4200 binc 50"
    # two clocks: both run and are shown, each with its own increment
    two = _conf("a", "b", "--tc", "10+0.1", "--tc-b", "5+0.05", "--nodes", "300",
                "--nodes-a", "2000")["limits"]
    assert two[0] == {"tc": (10.0, 0.1), "movetime": None, "nodes": 2000, "depth": None}
    assert two[1] == {"tc": (5.0, 0.05), "movetime": None, "nodes": 300, "depth": None}
    assert _go_command({chess.WHITE: two[1], chess.BLACK: two[0]},
                       {chess.WHITE: 4.5, chess.BLACK: 9.75}, chess.BLACK) == \
        "go wtime 4500 btime 9750 winc 50 binc 100 nodes 2000"
    # an own move time replaces the shared clock; the shared depth stays
    own = _conf("a", "b", "--tc", "10+0.1", "--depth", "9", "--movetime-a", "50")["limits"]
    assert own[0] == {"tc": None, "movetime": 50, "nodes": None, "depth": 9}
    assert own[1] == {"tc": (10.0, 0.1), "movetime": None, "nodes": None, "depth": 9}
    # even limits are said once; an engine left without any gets the default clock
    assert describe_limits(_conf("a", "b", "--nodes", "7")) == "7 nodes a move"
    assert _conf("a", "b", "--depth-a", "5")["limits"][1]["tc"] == (10.0, 0.1)


def test_the_typed_conditions_are_the_command_lines():
    """runner.settings and match.conditions called with typed values, as calibration calls
    them, give what the command line gives; two engines of one name are told apart."""
    from black_numba.arena import match, runner
    own = (runner.Limits(nodes=1000), runner.Limits(tc=(5.0, 0.05)))
    rules = runner.Rules(margin_ms=250, resign=(500, 0), draw=(10, 3, 5), chess960=True)
    engines = [runner.engine_spec("tiny --x", None, ["Hash=16"]),
               runner.engine_spec("tiny", "tiny", ["Hash=16", "Threads=1"])]
    conf = match.conditions(engines, runner.settings(runner.Limits(depth=9), own, rules))
    assert conf == _conf("tiny --x", "tiny", "--name-b", "tiny", "--option", "Hash=16",
                         "--option-b", "Threads=1", "--depth", "9", "--nodes-a", "1000",
                         "--tc-b", "5+0.05", "--margin", "250", "--resign", "500", "0",
                         "--draw", "10", "3", "5", "--chess960")
    assert [e["name"] for e in conf["engines"]] == ["tiny-a", "tiny-b"]
    assert [e["name"] for e in engines] == ["tiny", "tiny"]          # the specs are kept
    assert conf["limits"] == [{"tc": None, "movetime": None, "nodes": 1000, "depth": 9},
                              {"tc": (5.0, 0.05), "movetime": None, "nodes": None,
                               "depth": 9}]
    assert (conf["resign"], conf["draw"], conf["margin_ms"]) == (None, (10, 3, 5), 250)
    # a move time of its own replaces the shared clock; no limit at all: the default clock
    assert runner.engine_limits(runner.Limits(tc=(10.0, 0.1), depth=4),
                                runner.Limits(movetime=50)) == \
        {"tc": None, "movetime": 50, "nodes": None, "depth": 4}
    assert runner.engine_limits(runner.Limits())["tc"] == runner.parse_tc(runner.DEFAULT_TC)


@pytest.mark.parametrize("argv, words", [
    (["--nodes-a", "0"], "--nodes-a must be at least 1, not 0"),
    (["--depth-b", "-2"], "--depth-b must be at least 1, not -2"),
    (["--movetime-a", "0"], "--movetime-a must be at least 1"),
    (["--tc-b", "fast"], "--tc-b 'fast' is not BASE+INCREMENT"),
    (["--tc-a", "0+1"], "--tc-a '0+1': the base must be above 0"),
    (["--tc-a", "inf"], "--tc-a 'inf': the base must be above 0"),
    (["--tc", "fast", "--tc-a", "1+0", "--tc-b", "1+0"], "--tc 'fast' is not")])
def test_bad_uneven_flags_are_a_clear_error(argv, words):
    with pytest.raises(ValueError) as e:
        _conf("a", "b", *argv)
    assert words in str(e.value)


def test_each_side_is_judged_by_its_own_clock(tiny):
    # both engines take 50 ms a move: the one on nodes never loses on time, the one on a
    # 20 ms clock loses at its first move, whichever its colour
    conf = _conf(tiny("sleepy"), tiny("sleepy"), "--nodes-a", "1", "--tc-b", "0.02+0",
                 "--margin", "0")
    for white in (0, 1):
        record = play_game((chess.STARTING_FEN, []), white, conf)
        assert record["faults"] == [(1, TIME_LOSS)], record["reason"]
        assert len(record["moves"]) == white ^ 1        # a's first move when a is White


def _match(*argv, timeout=300):
    r = subprocess.run([ENGINE, "match", *argv], capture_output=True, text=True,
                       timeout=timeout)
    return r


def test_a_crashing_engine_in_a_match_is_counted_and_restarted(tiny, tmp_path):
    r = _match(tiny("good"), tiny("crash"), "--name-a", "good", "--name-b", "crashy",
               "--nodes", "1", "--games", "4", "--out", str(tmp_path / "m"))
    assert r.returncode == 0, r.stderr[-3000:]
    summary = json.loads((tmp_path / "m" / "summary.json").read_text())
    assert summary["faults"]["crashy"] == {"illegal move": 0, "time loss": 0, "crash": 4,
                                           "hang": 0}
    assert summary["faults"]["good"]["crash"] == 0
    assert (summary["wins"], summary["draws"], summary["losses"]) == (4, 0, 0)
    assert summary["pentanomial"] == {"LL": 0, "LD": 0, "WL+DD": 0, "WD": 0, "WW": 2}
    assert "crashy: illegal move 0, time loss 0, crash 4, hang 0" in r.stdout
    games = list(_read_pgn(tmp_path / "m" / "games.pgn"))
    assert [g.headers["Termination"] for g in games] == ["abandoned"] * 4
    assert (tmp_path / "m" / "match.log").read_text().splitlines()[-2].startswith("Faults:")


def test_the_sprt_stops_the_match_at_the_same_pair_on_two_workers(tiny, tmp_path):
    """Every pair won twice: the GSPRT 0 .. 400 accepts H1 after 5 pairs (LLR 2.99 >= 2.94,
    4 pairs give less); pairs finished out of order or in flight then are not counted."""
    assert ms.llr_logistic(0, 400, [0, 0, 0, 0, 4]) < ms.sprt_bounds()[1] <= \
        ms.llr_logistic(0, 400, [0, 0, 0, 0, 5])
    r = _match(tiny("good"), tiny("crash"), "--nodes", "1", "--games", "100", "--sprt", "0",
               "400", "--concurrency", "2", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["sprt"]["verdict"] == "H1" and summary["pairs"] == 5
    assert len(summary["games_played"]) == 10 == len(list(_read_pgn(tmp_path / "games.pgn")))
    assert "H1 accepted (Elo >= 400) after 10 games" in r.stdout


def test_a_stopped_match_resumes_where_it_stopped(tiny, tmp_path):
    """A match stopped after 2 of 5 pairs (and a pair torn mid-write) goes on with --resume:
    the same tally, faults, games and PGN as the match played at one go."""
    args = [tiny("good"), tiny("illegal"), "--name-a", "good", "--name-b", "bad", "--nodes",
            "1", "--openings", OPENINGS, "--seed", "3", "--max-plies", "40"]
    whole, part = tmp_path / "whole", tmp_path / "part"
    assert _match(*args, "--games", "10", "--out", str(whole)).returncode == 0
    r = _match(*args, "--games", "4", "--out", str(part))
    assert r.returncode == 0, r.stderr[-3000:]
    with open(part / "pairs.jsonl", "a") as f:
        f.write('{"index": 2, "games": [{"whi')                 # a pair torn by the stop
    r = _match(*args, "--games", "10", "--out", str(part), "--resume")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "resumed: 2 pairs from" in r.stdout and "pair 3 next" in r.stdout
    assert r.stdout.count("\npair ") == 3                  # only the pairs played now
    a, b = (json.loads((d / "summary.json").read_text()) for d in (whole, part))
    assert b["pairs"] == 5 and b["faults"]["bad"]["illegal move"] == 10
    for key in ("pairs", "pentanomial", "wins", "draws", "losses", "faults", "games_played"):
        assert a[key] == b[key], key
    ga, gb = (list(_read_pgn(d / "games.pgn")) for d in (whole, part))
    assert len(ga) == len(gb) == 10
    for x, y in zip(ga, gb):                        # the same but the moves' times
        assert dict(x.headers) == dict(y.headers)
        assert list(x.mainline_moves()) == list(y.mainline_moves())
        assert [n.comment.split()[0] for n in x.mainline()] == \
            [n.comment.split()[0] for n in y.mainline()]
    assert len((part / "pairs.jsonl").read_text().splitlines()) == 1 + 5
    assert (part / "match.log").read_text().count("match: good") == 2     # appended
    # the same again resumes a finished match: nothing more to play
    r = _match(*args, "--games", "10", "--out", str(part), "--resume")
    assert r.returncode == 0 and r.stdout.count("\npair ") == 0, r.stderr[-3000:]
    assert json.loads((part / "summary.json").read_text())["pairs"] == 5


@pytest.mark.parametrize("change, words", [
    (["--seed", "4"], "holds a match of other conditions (seed differ)"),
    (["--nodes", "2"], "(conditions differ)"),
    (["--out", "{tmp}/none"], "no pairs to resume"),
    (["--out", ""], "--resume needs the stopped match's --out folder"),
])
def test_a_resume_of_other_conditions_is_one_clear_error(tiny, tmp_path, change, words):
    args = {"--nodes": "1", "--openings": OPENINGS, "--seed": "3", "--games": "2",
            "--out": str(tmp_path / "m")}
    assert _match(tiny("good"), tiny("illegal"), *sum(args.items(), ())).returncode == 0
    args.update(zip(change[::2], change[1::2]))
    args["--out"] = args["--out"].format(tmp=tmp_path)
    argv = [x for k, v in args.items() if v for x in (k, v)]
    r = _match(tiny("good"), tiny("illegal"), *argv, "--resume")
    assert r.returncode == 2 and words in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_bad_arguments_are_one_clear_error(tiny, tmp_path):
    for args, words in (
            ([tiny("good"), tiny("good"), "--option-b", "Nonsense=1"], "has no option"),
            ([tiny("good"), tiny("good"), "--tc", "fast"], "--tc"),
            ([tiny("good"), tiny("good"), "--openings", str(tmp_path / "none.epd")],
             "none.epd"),
            (["/nonexistent/engine", tiny("good")], "cannot start"),
            ([tiny("good"), tiny("good"), "--games", "0"], "at least 1")):
        r = _match(*args, "--nodes", "1", "--out", str(tmp_path / "bad"))
        assert r.returncode == 2, (args, r.stderr[-2000:])
        assert "Traceback" not in r.stderr and words in r.stderr, (args, r.stderr)


def test_go_nodes_counts_as_ignored_under_a_tenth_of_the_limit():
    assert nodes_ignored(6, 4000) and nodes_ignored(399, 4000)
    assert not nodes_ignored(400, 4000) and not nodes_ignored(3000, 4000)
    assert not nodes_ignored(None, 4000)        # an engine that shows no nodes is not judged


def test_an_engine_that_ignores_go_nodes_is_refused_before_the_games(tiny, tmp_path):
    """Ethereal 12 answers `go nodes 4000` after depth 1 (6 nodes): at a node limit the match
    refuses it before any game, saying why; on a depth it plays."""
    ethereal = "/usr/games/ethereal-chess"
    if not os.path.exists(ethereal):
        pytest.fail(f"{ethereal} is missing: `python3 bin/bootstrap test` installs it")
    r = _match(tiny("good"), ethereal, "--nodes", "4000", "--games", "2",
               "--out", str(tmp_path / "n"))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert re.search(r"Ethereal.* searched \d nodes at `go nodes 4000`: it ignores the node "
                     r"limit \(give it a clock or a depth\)", r.stderr), r.stderr
    pgn = tmp_path / "n" / "games.pgn"
    assert pgn.read_text() == ""
    r = _match(tiny("good"), ethereal, "--depth", "2", "--games", "2", "--openings", OPENINGS,
               "--out", str(tmp_path / "d"))
    assert r.returncode == 0, r.stderr[-2000:]
    summary = json.loads((tmp_path / "d" / "summary.json").read_text())
    assert summary["wins"] + summary["draws"] + summary["losses"] == 2


def test_a_bad_scheduler_address_is_one_clear_error(tiny, tmp_path):
    r = _match(tiny("good"), tiny("good"), "--nodes", "1", "--out", str(tmp_path),
               "--scheduler", f"tcp://127.0.0.1:{_free_port()}")
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert r.stderr.startswith("match: cannot connect to the scheduler at tcp://127.0.0.1:")
    assert "connect" in json.loads((tmp_path / "summary.json").read_text())["error"]


# -- black_numba against itself ---------------------------------------------------------

def _read_pgn(path):
    with open(path) as f:
        while (game := chess.pgn.read_game(f)) is not None:
            yield game


# a cold compile cache (the first run after an edit) takes minutes on a busy machine
COLD = ["--startup-timeout", "600"]
FIXED = ["--nodes", "200", "--games", "4", "--openings", OPENINGS, "--seed", "3",
         "--option", "Threads=1", "--option", "Hash=16", "--sprt", "0", "10"] + COLD


@pytest.fixture(scope="module")
def local_match(tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    r = _match(ENGINE, ENGINE, "--name-a", "new", "--name-b", "base", *FIXED,
               "--out", str(out), "--concurrency", "1", timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    return out, r.stdout


@pytest.mark.slow
def test_black_numba_plays_itself_at_fixed_nodes(local_match):
    out, stdout = local_match
    summary = json.loads((out / "summary.json").read_text())
    games = list(_read_pgn(out / "games.pgn"))
    assert len(games) == 4 == summary["games"]
    # each opening twice, colours swapped: new White in game x.1, Black in x.2
    assert [g.headers["Round"] for g in games] == ["1.1", "1.2", "2.1", "2.2"]
    assert [g.headers["White"] for g in games] == ["new", "base", "new", "base"]
    assert games[0].headers["FEN"] == games[1].headers["FEN"] != games[2].headers["FEN"]
    new_points = 0.0
    with open(OPENINGS) as f:
        book = {line.strip() for line in f}
    for g, played in zip(games, summary["games_played"]):
        assert g.headers["FEN"] in book
        board = g.board()
        for move in g.mainline_moves():
            assert board.is_legal(move)
            board.push(move)
        result = g.headers["Result"]
        assert result == played["result"] and g.headers["PlyCount"] == str(played["plies"])
        if g.headers["Termination"] == "normal":
            assert board.outcome(claim_draw=True).result() == result
        new_points += points(result, 0 if g.headers["White"] == "new" else 1)
        assert all(n.comment for n in g.mainline())                # score/depth time
    assert summary["wins"] + summary["draws"] / 2 == new_points
    assert summary["faults"]["new"] == summary["faults"]["base"] == {
        "illegal move": 0, "time loss": 0, "crash": 0, "hang": 0}
    counts = list(summary["pentanomial"].values())
    assert sum(counts) == 2
    assert summary["sprt"]["llr"] == pytest.approx(ms.llr_logistic(0, 10, counts))
    assert summary["sprt"]["verdict"] is None and summary["sprt"]["model"] == "logistic"
    assert "Score of new vs base" in stdout and "SPRT 0 .. 10" in stdout
    assert stdout.count("\npair ") == 2


@pytest.mark.slow
def test_chess960_games(tmp_path):
    r = _match(ENGINE, ENGINE, "--chess960", "--nodes", "100", "--rounds", "1", "--seed", "5",
               "--out", str(tmp_path), *COLD, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    games = list(_read_pgn(tmp_path / "games.pgn"))
    assert len(games) == 2 and all(g.headers["Variant"] == "Chess960" for g in games)
    for g in games:
        board = g.board()
        assert board.chess960
        for move in g.mainline_moves():
            assert board.is_legal(move)
            board.push(move)


@pytest.mark.slow
def test_an_uneven_match_at_two_node_counts(tmp_path):
    """black_numba at 500 nodes against itself at 1,000: each side's limits in the PGN, the
    log's first line and the summary, and each engine's style report at the end."""
    r = _match(ENGINE, ENGINE, "--name-a", "fast", "--name-b", "deep", "--nodes-a", "500",
               "--nodes-b", "1000", "--games", "2", "--openings", OPENINGS, "--seed", "3",
               "--option", "Threads=1", "--option", "Hash=16", "--out", str(tmp_path),
               *COLD, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "2 games at uneven limits (fast: 500 nodes a move; deep: 1000 nodes a move)" in \
        r.stdout
    games = list(_read_pgn(tmp_path / "games.pgn"))
    assert [g.headers["White"] for g in games] == ["fast", "deep"]
    for g in games:
        limits = {"fast": "500 nodes a move", "deep": "1000 nodes a move"}
        assert g.headers["WhiteLimits"] == limits[g.headers["White"]]
        assert g.headers["BlackLimits"] == limits[g.headers["Black"]]
        assert "TimeControl" not in g.headers and "WhiteTimeControl" not in g.headers
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [lim["nodes"] for lim in summary["conditions"]["limits"]] == [500, 1000]
    for name in ("fast", "deep"):
        report = summary["style"][name]
        assert report["games"] == 2 and report["player"] == name
        assert report["wins"] + report["draws"] + report["losses"] == 2
        assert f"Style of {name}: 2 games" in r.stdout
    assert summary["style"]["fast"]["wins"] == summary["style"]["deep"]["losses"]
    assert r.stdout.count("  sacrifices (material held 6 plies") == 2
    assert r.stdout.count("  bad draws: ") == 2


def test_the_pgn_of_an_uneven_clock_names_each_sides():
    from black_numba.arena.runner import pgn_game
    conf = _conf("a", "b", "--tc", "10+0.1", "--tc-b", "2.5+0.025")
    record = {"white": 1, "result": "1/2-1/2", "termination": "normal",
              "reason": "threefold repetition", "moves": ["e7e5"], "comments": ["+0.10/3 0.01s"],
              "faults": []}
    h = pgn_game(conf, (chess.STARTING_FEN, ["e2e4"]), record, 0, "ev").headers
    assert (h["White"], h["WhiteTimeControl"], h["BlackTimeControl"]) == ("b", "2.5+0.025",
                                                                          "10+0.1")
    assert (h["WhiteLimits"], h["BlackLimits"]) == ("2.5+0.025", "10+0.1")
    assert "TimeControl" not in h
    even = pgn_game(_conf("a", "b", "--tc", "10+0.1"), (chess.STARTING_FEN, ["e2e4"]), record,
                    0, "ev").headers
    assert even["TimeControl"] == "10+0.1" and "WhiteTimeControl" not in even
    assert "WhiteLimits" not in even


# -- a real Dask cluster ----------------------------------------------------------------

def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """The address of a `dask scheduler` with two one-thread `dask worker`s on 127.0.0.1;
    the workers import this checkout's black_numba (PYTHONPATH)."""
    with _cluster(tmp_path_factory.mktemp("dask")) as (address, _):
        yield address


@contextlib.contextmanager
def _cluster(logs):
    """(address, worker processes) of a scheduler and two workers, torn down after."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONPATH=ROOT)
    procs = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard"], stdout=subprocess.DEVNULL, env=env,
                              stderr=open(logs / "scheduler.log", "w"))]
    for i in range(2):
        procs.append(subprocess.Popen([DASK, "worker", address, "--nthreads", "1",
                                       "--no-nanny", "--no-dashboard", "--name", f"w{i}"],
                                      env=env, stdout=subprocess.DEVNULL,
                                      stderr=open(logs / f"worker{i}.log", "w")))
    try:
        from distributed import Client
        with Client(address, timeout=60) as c:
            c.wait_for_workers(2, timeout=120)
        yield address, procs[1:]
    finally:
        for p in procs[::-1]:                              # workers first, then the scheduler
            if p.poll() is None:
                p.terminate()
        for p in procs[::-1]:
            try:
                p.wait(timeout=5)         # a worker closing gracefully may wait on a busy one
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=20)


@pytest.mark.slow
def test_a_dask_cluster_plays_the_local_runs_games(cluster, local_match, tmp_path):
    local, _ = local_match
    r = _match(ENGINE, ENGINE, "--name-a", "new", "--name-b", "base", *FIXED,
               "--out", str(tmp_path), "--scheduler", cluster, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    assert cluster in r.stdout
    there = json.loads((tmp_path / "summary.json").read_text())
    here = json.loads((local / "summary.json").read_text())
    assert there["games_played"] == here["games_played"]
    for key in ("wins", "draws", "losses", "pentanomial", "sprt", "faults"):
        assert there[key] == here[key]
    pgn = [[(g.headers["Result"], [m.uci() for m in g.mainline_moves()])
            for g in _read_pgn(d / "games.pgn")] for d in (tmp_path, local)]
    assert pgn[0] == pgn[1]


def test_pgn_round_trip_of_a_record():
    from black_numba.arena.runner import pgn_game
    conf = _conf("a", "b", "--nodes", "1")
    record = {"white": 1, "result": "0-1", "termination": "rules infraction",
              "reason": "b played an illegal move 'e2e5'", "moves": ["e7e5"],
              "comments": ["+0.10/3 0.010s"], "faults": [(1, ILLEGAL)]}
    game = pgn_game(conf, (chess.STARTING_FEN, ["e2e4"]), record, 6, "ev")
    again = chess.pgn.read_game(io.StringIO(str(game)))
    assert again.headers["White"] == "b" and again.headers["Round"] == "7.2"
    assert [m.uci() for m in again.mainline_moves()] == ["e2e4", "e7e5"]
    assert again.end().comment == "+0.10/3 0.010s, b played an illegal move 'e2e5'"
    assert again.headers["Termination"] == "rules infraction"


@pytest.mark.slow
def test_a_worker_killed_mid_match_loses_no_pair(tiny, tmp_path):
    """A worker killed while it plays: its pair is played again by the other, and the match
    is the local run's (tiny engines that take 50 ms a move, random openings)."""
    args = [tiny("sleepy"), tiny("good"), "--nodes", "1", "--random-plies", "6", "--rounds",
            "4", "--seed", "9"]
    local = _match(*args, "--out", str(tmp_path / "local"))
    assert local.returncode == 0, local.stderr[-3000:]
    with _cluster(tmp_path) as (address, workers):
        p = subprocess.Popen([ENGINE, "match", *args, "--out", str(tmp_path / "d"),
                              "--scheduler", address], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        for line in p.stdout:
            if line.startswith("pair 1/"):
                break
        assert p.poll() is None
        workers[1].send_signal(signal.SIGKILL)              # busy with a pair of its own
        workers[1].wait(timeout=30)
        out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err[-3000:]
    assert "pair 4/4" in out
    there, here = (json.loads((tmp_path / d / "summary.json").read_text())
                   for d in ("d", "local"))
    assert there["games_played"] == here["games_played"] and len(here["games_played"]) == 8
    assert there["faults"] == here["faults"]


def test_a_game_ends_by_the_draws_on_the_board_not_by_claims_still_to_be_played():
    """The runner's rules: a mate on the hundredth ply wins (a 50-move draw only stands once
    the clock is at 100 without mate), a threefold repetition ends the game once it is on the
    board, not when the mover could announce one (python-chess's claim_draw)."""
    from black_numba.arena.matchgame import rules_outcome
    # KBN v K, the clock at 99 and a mate for Black to play (a real match reached it)
    board = chess.Board("5n1K/5k2/8/6b1/8/8/8/8 b - - 99 53")
    assert board.can_claim_fifty_moves()
    assert rules_outcome(board) is None
    board.push_uci("g5f6")
    assert board.halfmove_clock == 100
    assert rules_outcome(board).termination == chess.Termination.CHECKMATE
    assert rules_outcome(board).winner == chess.BLACK
    quiet = chess.Board("5n1K/5k2/8/6b1/8/8/8/8 b - - 99 53")
    quiet.push_uci("f7f6")
    assert rules_outcome(quiet).termination == chess.Termination.FIFTY_MOVES
    # a repetition: the claim with a move to come is not taken, the third time on the board is
    rep = chess.Board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1")
    for uci in ("b1c1", "e5e6", "c1b1", "e6e5", "b1c1", "e5e6", "c1b1"):
        rep.push_uci(uci)
    assert rep.can_claim_threefold_repetition() and rules_outcome(rep) is None
    rep.push_uci("e6e5")
    assert rules_outcome(rep).termination == chess.Termination.THREEFOLD_REPETITION
