"""The Style option (Normal, Aggressive, Hustler), Contempt and Rating: the combo option,
the draw score and the evaluation terms from the root side's view, the table cleared on a
change of style, UCI_AnalyseMode turning styles off, the Hustler's contempt from the rating
gap and its clock trigger (search/style.py, styleterms.py, timeman.hurry)."""
import numpy as np
import pytest

from black_numba.core.engine import EngineCore
from black_numba.core.options import Option
from black_numba.search import style
from black_numba.search.limits import Limits
from black_numba.search.strength import ELO_MAX
from black_numba.search.timeman import allocate, hurry
from conftest import talk

STYLE_LINE = "option name Style type combo default Normal var Normal var Aggressive var Hustler"
# Middlegames with play for both sides (bench positions 2, 6 and 11).
FENS = ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1")
# Rook endgames where draws are near: contempt shows there.
ENDGAMES = ("8/5pk1/6p1/8/8/6P1/5PKP/3R4 w - - 0 1", "2r5/5pk1/4p1p1/1R6/8/6P1/5PKP/8 b - - 0 1")
BARE_KINGS = "8/8/4k3/8/8/3K4/8/8 w - - 0 1"


def _core(**options):
    core = EngineCore()
    for name, value in options.items():
        core.set_option(name, value)
    core.need_search()
    return core


def _nodes(style_settings, depth=7, fens=FENS):
    """Total nodes of fixed-depth searches of fens, each with a fresh table."""
    from black_numba.board.position import from_fen
    from black_numba.evaluation import netfile
    from black_numba.search.driver import Searcher
    NN = netfile.load(netfile.DEFAULT_NET)[0]
    total = 0
    for fen in fens:
        s = Searcher(16, 1)
        s.set_network(NN)
        s.prepare()
        s.search(from_fen(fen), Limits(depth=depth), style=style_settings)
        total += s.nodes()
        s.close()
    return total


# -- the combo option -------------------------------------------------------------------------
def test_uci_declares_style_contempt_and_rating():
    out = talk(["uci", "quit"])
    assert STYLE_LINE in out
    assert "option name Contempt type spin default 0 min -100 max 100" in out
    assert "option name Rating type spin default 0 min 0 max 4000" in out


def test_combo_parses_any_case_and_refuses_other_values():
    o = Option("Style", "combo", "Normal", var=("Normal", "Aggressive", "Hustler"))
    assert o.parse("aGGressive") == "Aggressive" and o.parse("HUSTLER") == "Hustler"
    with pytest.raises(ValueError, match="must be one of Normal, Aggressive, Hustler"):
        o.parse("Wild")
    with pytest.raises(ValueError, match="needs a value"):
        o.parse(None)
    with pytest.raises(ValueError, match="not among its choices"):
        Option("X", "combo", "Calm", var=("Normal",))
    assert o.declaration() == STYLE_LINE


def test_setoption_bad_style_is_an_error_and_keeps_the_style():
    out = talk(["uci", "setoption name Style value Hustler", "setoption name Style value Wild",
                "setoption name Contempt value 101", "isready", "quit"])
    errors = [l for l in out if l.startswith("info string error")]
    assert len(errors) == 2 and "Wild" in errors[0] and "between -100 and 100" in errors[1]
    core = EngineCore()
    core.set_option("Style", "hustler")
    with pytest.raises(ValueError, match="must be one of"):
        core.set_option("Style", "Wild")
    assert core.options["style"] == "Hustler"


def test_python_api_offers_the_combo():
    from black_numba import Engine
    engine = Engine()
    try:
        opt = engine.options["Style"]
        assert opt.type == "combo" and opt.default == "Normal"
        assert list(opt.var) == ["Normal", "Aggressive", "Hustler"]
        engine.configure({"Style": "aggressive"})
        assert engine._core.options["style"] == "Aggressive"
    finally:
        engine.quit()


# -- the settings -------------------------------------------------------------------------
def test_settings_of_each_style():
    assert style.settings("Normal") == style.NORMAL and not style.NORMAL.active
    a = style.settings("Aggressive")
    assert a.terms == style.TERM_SACRIFICE | style.TERM_SCALE
    assert a.contempt == style.AGGRESSIVE_CONTEMPT and a.active
    assert style.settings("Aggressive", contempt=-7).contempt == -7        # Contempt overrides
    assert style.settings("Normal", contempt=15) == style.StyleSettings(0, 15, False)
    # analysis is objective: every style off, Contempt too
    assert style.settings("Hustler", 50, 2500, 1500, analyse=True) == style.NORMAL
    assert style.settings("Aggressive", analyse=True) == style.NORMAL


def test_hustler_contempt_formula():
    f = style.hustler_contempt
    assert f(2500, 2100) == 40                     # 10 cp per 100 Elo
    assert f(2500, 2455) == 4
    assert f(2500, 2500) == 0 and f(2000, 2500) == 0
    assert f(3000, 1000) == style.HUSTLER_MAX_CONTEMPT
    assert f(2500, None) == 0
    h = style.settings("Hustler", 0, 2400, 2000)
    assert h == style.StyleSettings(0, 40, False)
    # the clock trigger: at least HUSTLER_CLOCK_CONTEMPT, with material scaling
    rushed = style.settings("Hustler", 0, 2400, 2300, hurry=True)
    assert rushed == style.StyleSettings(style.TERM_SCALE, style.HUSTLER_CLOCK_CONTEMPT, True)
    assert style.settings("Hustler", 0, 2400, 2000, hurry=True).contempt == 40
    assert style.settings("Hustler", 0, 3000, 2000, hurry=True).contempt == 100
    assert not style.settings("Aggressive", hurry=True).hurry       # the Hustler's alone


def test_hustler_contempt_from_uci_opponent_and_rating():
    core = EngineCore()
    core.set_option("Style", "Hustler")
    assert core.style_settings().contempt == 0                      # no opponent: no gap
    core.set_option("UCI_Opponent", "none 2206 human someone")
    assert core.our_rating() == ELO_MAX
    assert core.style_settings().contempt == (ELO_MAX - 2206) // 10
    core.set_option("Rating", 2400)
    assert core.style_settings().contempt == 19
    core.set_option("Rating", 0)
    core.set_option("UCI_LimitStrength", True)
    core.set_option("UCI_Elo", 1600)
    assert core.our_rating() == 1600 and core.style_settings().contempt == 0
    core.set_option("Contempt", -20)
    assert core.style_settings().contempt == -20
    core.set_option("UCI_AnalyseMode", True)
    assert core.style_settings() == style.NORMAL


# -- the clock trigger --------------------------------------------------------------------
def test_hurry_trigger():
    # white to move, 60 s each side: no; the opponent under half our time: yes
    assert not hurry(Limits(wtime=60000, btime=60000), True)
    assert hurry(Limits(wtime=60000, btime=29999), True)
    assert not hurry(Limits(wtime=60000, btime=30000), True)       # exactly half: no
    assert hurry(Limits(wtime=29999, btime=60000), False)          # black to move
    assert not hurry(Limits(wtime=60000, btime=20000), False)      # it is our clock that is low
    # fast game: our clock + 40 increments under 3 minutes
    assert hurry(Limits(wtime=100000, btime=10000, winc=1999), True)
    assert not hurry(Limits(wtime=100000, btime=10000, winc=2000), True)
    assert not hurry(Limits(wtime=200000, btime=10000), True)
    # no clock, one clock, a fixed move time: never
    assert not hurry(Limits(depth=5), True)
    assert not hurry(Limits(wtime=60000), True)
    assert not hurry(Limits(movetime=1000, wtime=60000, btime=1000), True)


def test_hurry_spends_less_time_but_keeps_a_minimum_depth():
    from black_numba.search.timeman import HURRY_MIN_DEPTH, HURRY_TIME_SHARE
    core = _core()
    limits = Limits(wtime=20000, btime=5000)
    from black_numba.board.position import game_ply
    soft, hard = allocate(limits, True, 30, game_ply(core.pos))
    rushed = style.settings("Hustler", 0, 2500, 2000, hurry=True)
    depths = []
    core.searcher.prepare()
    core.searcher.search(core.pos.copy(), limits, report=lambda i: depths.append(i.depth),
                         style=rushed)
    assert core.searcher._soft == pytest.approx(soft * HURRY_TIME_SHARE)
    assert core.searcher._hard == hard
    assert max(depths) >= HURRY_MIN_DEPTH
    core.close()


# -- the search ------------------------------------------------------------------------------
def test_contempt_is_the_draw_score_from_the_root_side():
    """Bare kings: every line is a dead draw, scored -contempt for the root side, whichever
    side that is; 0 under Normal."""
    from black_numba.board.position import from_fen
    from black_numba.search.driver import Searcher
    s = Searcher(1, 1)
    for fen in (BARE_KINGS, BARE_KINGS.replace(" w ", " b ")):
        for contempt in (0, 30, -25):
            s.prepare()
            _, _, score = s.search(from_fen(fen), Limits(depth=4),
                                   style=style.StyleSettings(0, contempt))
            assert score == -contempt
    s.close()


def test_helpers_know_the_root_side():
    from black_numba.board.position import from_fen
    from black_numba.search.driver import Searcher
    from black_numba.search.state import C_CONTEMPT, C_ROOT_MATERIAL, C_ROOT_SIDE, \
        C_STYLE_TERMS
    s = Searcher(1, 3)
    s.prepare()
    # Black to move, a pawn down
    pos = from_fen("rnbqkbnr/ppp1pppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1")
    s.search(pos, Limits(depth=3), style=style.settings("Aggressive"))
    for st in s._states():
        ctl = st[0]["ctl"]
        assert ctl[C_ROOT_SIDE] == 1 and ctl[C_ROOT_MATERIAL] == -100
        assert ctl[C_CONTEMPT] == style.AGGRESSIVE_CONTEMPT
        assert ctl[C_STYLE_TERMS] == style.TERM_SACRIFICE | style.TERM_SCALE
    s.close()


def test_material_balance():
    from black_numba.board.position import from_fen
    pos = from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1")
    assert style.material_balance(pos, 0) == (-900, style.FULL_MATERIAL - 900)
    assert style.material_balance(pos, 1) == (900, style.FULL_MATERIAL - 900)


def test_aggressive_and_hustler_search_differently_from_normal():
    assert _nodes(style.settings("Aggressive")) != _nodes(style.NORMAL)
    hustler = style.settings("Hustler", 0, 2500, 2000)
    assert hustler.contempt == 50
    assert _nodes(hustler, 10, ENDGAMES) != _nodes(style.NORMAL, 10, ENDGAMES)


def test_analyse_mode_turns_the_style_off():
    """Aggressive under UCI_AnalyseMode searches exactly as Normal (same nodes, move,
    score); without it, it does not."""
    def run(**options):
        core = _core(**options)
        core.set_position(FENS[1])
        infos = []
        result = core.go(Limits(depth=8), on_info=infos.append)
        core.close()
        return result.best, result.score, infos[-1].nodes
    normal = run()
    assert run(Style="Aggressive", UCI_AnalyseMode=True) == normal
    assert run(Style="Aggressive") != normal


def test_table_cleared_when_the_style_changes():
    core = _core()
    core.set_position(FENS[0])
    core.go(Limits(depth=5))
    tt = core.searcher.tt
    assert np.count_nonzero(tt) > 0
    core.set_option("Style", "Normal")                  # no change: the table stays
    assert np.count_nonzero(core.searcher.tt) > 0
    core.set_option("Style", "Aggressive")
    assert np.count_nonzero(core.searcher.tt) == 0
    # a styled search for the other side empties it too (scores are the root side's)
    core.go(Limits(depth=4))
    core.set_position(FENS[0].replace(" w ", " b "))
    filled = np.count_nonzero(core.searcher.tt)
    core.searcher._style_root(core.pos, core.style_settings())
    assert filled > 0 and np.count_nonzero(core.searcher.tt) == 0
    # and an objective search after a styled one (analysis after the game)
    core.go(Limits(depth=4))
    core.set_option("UCI_AnalyseMode", True)
    assert np.count_nonzero(core.searcher.tt) > 0
    core.searcher._style_root(core.pos, core.style_settings())
    assert np.count_nonzero(core.searcher.tt) == 0
    core.close()


# -- the Hustler's choice against a weaker human (hustle.py) ------------------------------
def test_hustle_margin_grows_with_the_gap():
    from black_numba.search import hustle
    assert hustle.margin(0) == 10 and hustle.margin(-300) == 10
    assert hustle.margin(400) == 30 and hustle.margin(5000) == hustle.HUSTLE_MARGIN_MAX


def test_ways_to_go_wrong_counts_the_losing_replies():
    """Black's queen is attacked by a pawn: the five king moves and Qb5 (attacked by the
    pawn too) lose it; most queen moves keep it."""
    from black_numba.board.position import from_fen
    from black_numba.search import hustle
    from black_numba.search.driver import Searcher
    probe = Searcher(1, 1)
    traps, n = hustle.ways_to_go_wrong(probe, from_fen("4k3/8/8/3q4/2P5/8/8/4K3 b - - 0 1"),
                                       20000)
    assert 6 <= traps <= n - 10
    probe.close()


def test_hustler_chooses_only_against_a_weaker_human():
    """Against a computer, or a stronger human, Hustler plays Normal's move (contempt 0, no
    choice); against a weaker human it plays the probe's choice: the candidate (a move
    within the margin of the best) with the most losing replies."""
    from black_numba.board.position import START_FEN, from_fen
    from black_numba.search import hustle
    from black_numba.search.state import C_RESULT_MOVE
    fen, limits = START_FEN, Limits(depth=11)         # several moves near the best

    def play(**options):
        core = _core(**options)
        core.set_position(fen)
        r = core.go(limits)
        core.close()
        return r.best
    normal = play()
    assert play(Style="Hustler", UCI_Opponent="none 1500 computer bot") == normal
    assert play(Style="Hustler", UCI_Opponent="none 3000 human gm") == normal
    core = _core(Style="Hustler", UCI_Opponent="none 1500 human someone")
    core.set_position(fen)
    assert core._hustles(limits, 1, ()) and not core._hustles(limits, 2, ())
    played = core.go(limits).best
    budget = int(core.searcher.nodes() * hustle.HUSTLE_SHARE)
    assert budget >= hustle.HUSTLE_MIN_NODES
    main_best = int(core.searcher.ctl[C_RESULT_MOVE])      # the main search's move
    core._probe.clear()
    move, _, _, cands, traps = hustle.choose(core._probe, from_fen(fen), main_best, budget,
                                             ELO_MAX - 1500)
    assert len(cands) >= 2 and len(traps) == len(cands)
    assert traps[cands.index(move)] == max(traps)
    assert core._text(core.pos, move) == played
    core.close()
