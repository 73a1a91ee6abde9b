"""Search behaviour: mates, draws, TT mate adjustment, SEE, evaluation symmetry, bench."""
import chess
import numpy as np
import pytest
from numba import njit

from black_numba.board.bitboard import TABLES as T
from black_numba.search.driver import Searcher
from black_numba.evaluation.evaluate import T_TEMPO, WEIGHTS, evaluate
from black_numba.search.limits import Limits
from black_numba.board.movegen import legal_moves, parse_uci_move
from black_numba.board.position import (
    KEY, SIDE, from_fen, is_repetition, make_move, move_to_uci, unmake_move,
)
from black_numba.board.rules import see_ge
from black_numba.search.state import C_ABORT, C_NODE_LIMIT, C_STOP
from black_numba.frontends.uci import info_line, score_text
from black_numba.search.tt import (
    BOUND_EXACT, MATE, new_table, score_from_tt, score_to_tt, tt_probe, tt_score, tt_store,
)


@pytest.fixture(scope="module")
def searcher():
    return Searcher(16)


def run(searcher, fen, moves=(), **limits):
    pos = from_fen(fen)
    for m in moves:
        make_move(T, pos, np.int64(parse_uci_move(pos, m)))
    infos = []
    searcher.clear()
    searcher.prepare()
    best, ponder, score = searcher.search(pos, Limits(**limits) if limits else Limits(depth=8), report=infos.append)
    return move_to_uci(best), score, infos


@pytest.mark.parametrize("fen,move,mate", [
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8", 1),
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", "h5f7", 1),
    ("1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1", "d6d1", 3),
    ("2r3k1/p4p2/3Rp2p/1p2P1pK/8/1P4P1/P3Q2P/1q6 b - - 0 1", "b1g6", 3),
])
def test_finds_mate_and_reports_mate_in_n(searcher, fen, move, mate):
    best, score, infos = run(searcher, fen, depth=10)
    assert best == move
    assert score_text(score) == f"mate {mate}"
    line = info_line(infos[-1], move_to_uci)
    assert f"score mate {mate} " in line and line.split(" pv ")[1].split()[0] == move


def test_being_mated_is_reported_negative(searcher):
    # white's only move Kg1 is answered by Ra1 mate
    best, score, lines = run(searcher, "7k/8/8/8/8/r7/1r6/7K w - - 0 1", depth=6)
    assert best == "h1g1" and score_text(score) == "mate -1"


def test_repetition_detection_counts_history_and_search_plies():
    pos = from_fen()
    for m in "g1f3 g8f6 f3g1 f6g8".split():
        make_move(T, pos, np.int64(parse_uci_move(pos, m)))
    assert not is_repetition(pos, 0)        # second occurrence in the game: not yet a draw
    assert is_repetition(pos, 4)            # but a repeat inside the search counts
    for m in "g1f3 g8f6 f3g1 f6g8".split():
        make_move(T, pos, np.int64(parse_uci_move(pos, m)))
    assert is_repetition(pos, 0)            # third occurrence


def test_losing_side_takes_the_threefold_repetition(searcher):
    history = "d1d2 b8c6 d2d1 c6b8 d1d2 b8c6 d2d1".split()
    best, score, _ = run(searcher, "1n5k/8/8/8/8/8/8/3Q2K1 w - - 0 1", history, depth=8)
    assert best == "c6b8" and score == 0


def test_winning_side_avoids_the_repetition(searcher):
    history = "b8c6 d1d2 c6b8 d2d1 b8c6 d1d2 c6b8".split()
    best, score, _ = run(searcher, "1n5k/8/8/8/8/8/8/3Q2K1 b - - 0 1", history, depth=8)
    assert best != "d2d1" and score > 300


def test_insufficient_material_and_fifty_moves_are_draws(searcher):
    _, score, _ = run(searcher, "8/8/4k3/8/8/3NK3/8/8 w - - 0 1", depth=6)
    assert score == 0
    _, score, _ = run(searcher, "8/8/4k3/8/8/3RK3/8/8 w - - 99 80", depth=6)
    assert score == 0          # every move reaches the fifty-move limit
    _, score, _ = run(searcher, "8/8/4k3/8/8/3RK3/8/8 w - - 0 80", depth=6)
    assert score > 300


def test_stalemate_and_checkmate_at_root(searcher):
    for fen, score in (("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "cp 0"),          # stalemate
                       ("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "mate 0")):       # checkmate
        infos = []
        searcher.prepare()
        assert searcher.search(from_fen(fen), Limits(depth=3), report=infos.append) == (None, None, 0)
        assert [info_line(i, move_to_uci) for i in infos] == [f"info depth 0 score {score}"]


def test_one_legal_move_answers_at_once(searcher):
    best, _, infos = run(searcher, "7k/8/8/8/8/8/6q1/7K w - - 0 1", movetime=60000)
    assert best == "h1g2"
    assert len(infos) <= 6 and infos[-1].time_ms < 1000


def test_tt_mate_scores_are_stored_relative_to_the_node():
    mate_in_3_from_root = MATE - 5          # found at ply 2: mate 3 plies below that node
    stored = score_to_tt(mate_in_3_from_root, 2)
    assert stored == MATE - 3
    assert score_from_tt(stored, 6) == MATE - 9      # the same node reached at ply 6
    assert score_from_tt(score_to_tt(-(MATE - 7), 3), 1) == -(MATE - 5)
    assert score_from_tt(score_to_tt(123, 9), 2) == 123
    tt = new_table(1)
    key = np.uint64(0x123456789ABCDEF0)
    tt_store(tt, key, 777, MATE - 5, 10, 7, BOUND_EXACT, 1, 2)
    hit, data = tt_probe(tt, key)
    assert hit
    assert tt_score(np.uint64(data), 6) == MATE - 9


def test_tt_rejects_a_torn_entry():
    """Two threads storing two positions into one slot at once can leave one's key word beside
    the other's data word; the probe must then find neither (lockless hashing: key ^ data)."""
    tt = new_table(1)
    key_a = np.uint64(0x123456789ABCDEF0)
    key_b = key_a ^ np.uint64(0xFFFF)              # same bucket (the high bits choose it)
    tt_store(tt, key_a, 111, 50, 10, 7, BOUND_EXACT, 1, 0)
    slot = next(i for i in range(0, len(tt), 2) if tt[i + 1] != 0)
    entry_a = tt[slot:slot + 2].copy()
    tt[slot:slot + 2] = 0
    tt_store(tt, key_b, 222, -50, 10, 7, BOUND_EXACT, 1, 0)
    assert tt[slot + 1] != 0                       # b went to the same slot
    entry_b = tt[slot:slot + 2].copy()
    assert tt_probe(tt, key_b)[0] and not tt_probe(tt, key_a)[0]
    for key_word, data_word in ((entry_a[0], entry_b[1]), (entry_b[0], entry_a[1])):
        tt[slot], tt[slot + 1] = key_word, data_word   # a torn write
        assert tt_probe(tt, key_a) == (False, 0) and tt_probe(tt, key_b) == (False, 0)
    tt[slot:slot + 2] = entry_a
    assert tt_probe(tt, key_a) == (True, entry_a[1])


def _see_reference(board, move):
    """Recursive swap-off with python-chess: value of the captured piece minus the best the
    opponent gets by recapturing with its least valuable attacker."""
    values = {chess.PAWN: 100, chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500,
              chess.QUEEN: 950, chess.KING: 20000}

    def gain(b, sq):
        attackers = [s for s in b.attackers(b.turn, sq)]
        if not attackers:
            return 0
        s = min(attackers, key=lambda a: values[b.piece_type_at(a)])
        victim = values[b.piece_type_at(sq)]
        b.push(chess.Move(s, sq))
        g = max(0, victim - gain(b, sq))
        b.pop()
        return g

    victim = values[board.piece_type_at(move.to_square)]
    board.push(move)
    g = victim - gain(board, move.to_square)
    board.pop()
    return g


@pytest.mark.parametrize("fen,move,value", [
    ("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", 100),
    ("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5", -220),
    ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 100),
    ("4k3/8/2p5/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 0),
    ("4k3/8/2p5/3r4/4P3/8/8/4K3 w - - 0 1", "e4d5", 400),
    ("4k3/3q4/8/3r4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 500),
])
def test_see_values_on_known_positions(fen, move, value):
    pos = from_fen(fen)
    m = np.int64(parse_uci_move(pos, move))
    assert see_ge(T, pos, m, value)
    assert not see_ge(T, pos, m, value + 1)
    assert _see_reference(chess.Board(fen), chess.Move.from_uci(move)) == value


def test_see_matches_swap_off_reference(positions):
    checked = 0
    for board in positions[::7]:
        pos = from_fen(board.fen())
        for m in legal_moves(pos):
            mv = chess.Move.from_uci(move_to_uci(m))
            if not board.is_capture(mv) or board.is_en_passant(mv) or mv.promotion:
                continue
            if chess.square_rank(mv.to_square) in (0, 7):
                continue                       # recaptures there would be promotions
            v = _see_reference(board, mv)
            assert see_ge(T, pos, np.int64(m), v), (board.fen(), mv, v)
            assert not see_ge(T, pos, np.int64(m), v + 1), (board.fen(), mv, v)
            checked += 1
    assert checked > 200


def test_evaluation_is_colour_symmetric(positions):
    for board in positions:
        a = from_fen(board.fen())
        b = from_fen(board.mirror().fen())
        ea = evaluate(T, WEIGHTS, a, int(a[SIDE]))
        eb = evaluate(T, WEIGHTS, b, int(b[SIDE]))
        assert ea == eb, board.fen()


def test_evaluation_values():
    start = from_fen()
    # a symmetric middlegame position is worth exactly the middlegame tempo to either side
    tempo = int(WEIGHTS[T_TEMPO])
    assert tempo > 0
    assert evaluate(T, WEIGHTS, start, 0) == evaluate(T, WEIGHTS, start, 1) == tempo
    queen_up = from_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert evaluate(T, WEIGHTS, queen_up, 0) > 800
    assert evaluate(T, WEIGHTS, queen_up, 1) < -800


def test_opposite_coloured_bishops_halve_the_score():
    # the same two-pawn lead with the defending bishop on a dark square (c7: opposite colours
    # to White's light-squared d3 bishop) and on a light square (c8: same colours)
    opposite = "8/2b1k3/7p/6pP/4P1P1/3B4/5PK1/8 w - - 0 1"
    same = "2b5/4k3/7p/6pP/4P1P1/3B4/5PK1/8 w - - 0 1"
    e_opp = evaluate(T, WEIGHTS, from_fen(opposite), 0)
    e_same = evaluate(T, WEIGHTS, from_fen(same), 0)
    assert e_same > 100
    assert 0 < e_opp < 0.6 * e_same
    # the scale keeps the score's sign and colour symmetry
    flipped = from_fen(chess.Board(opposite).mirror().fen())
    assert evaluate(T, WEIGHTS, flipped, 1) == e_opp
    # with a knight added the ending is no longer pure opposite-coloured bishops
    knight = evaluate(T, WEIGHTS, from_fen("8/2b1k3/7p/6pP/4P1P1/3B4/5PK1/6N1 w - - 0 1"), 0)
    assert knight > e_same


@pytest.mark.parametrize("fen,score,factor", [
    ("5b2/8/4k3/8/8/R2K4/8/8 w - - 0 1", 300, 4),       # KR v KB: a rook against a minor
    ("5b2/8/4k3/8/8/R2K4/8/8 w - - 0 1", -50, 0),       # the bishop's side cannot win
    ("8/4r3/4k3/8/8/R2K4/8/5B2 w - - 0 1", 250, 14),     # KRB v KR
    ("8/4r3/4k3/8/8/R2K4/8/5N2 b - - 0 1", -250, 14),    # KRN v KR, Black to move
    ("8/8/4k3/8/8/R2K4/8/8 w - - 0 1", 600, 64),         # KR v K: a win
    ("8/4r3/4k3/8/8/Q2K4/8/8 w - - 0 1", 400, 64),       # KQ v KR: a queen is 4 more
    ("8/4r3/4k3/8/8/R2K4/5P2/8 w - - 0 1", 120, 64),     # a pawn: no scale
    ("8/4p3/4k3/8/8/3K4/8/5B2 w - - 0 1", 200, 0),       # KB v KP
    ("8/4n3/4k3/8/8/3K4/8/4BB2 w - - 0 1", 300, 64),     # KBB v KN: a win
    ("8/4b3/4k3/8/8/3K4/8/4NB2 w - - 0 1", 300, 4),      # KBN v KB
])
def test_drawish_material_scales_the_side_ahead(fen, score, factor):
    from black_numba.evaluation.endgame import material_scale, scale_network
    pos = from_fen(fen)
    stm = int(pos[SIDE])
    assert material_scale(pos, stm, score) == factor
    assert scale_network(pos, stm, score) == int(score * factor / 64)


def test_the_search_sees_the_scaled_score():
    """KRB v KR at depth 1 with the network: the score is at most the best child's evaluation
    as the search scales it (stand pat bounds each reply), well below the network's own."""
    from black_numba.evaluation import netfile
    from black_numba.evaluation.endgame import scale_network
    from black_numba.search.search import static_eval
    searcher = Searcher(16)
    searcher.set_network(netfile.load(netfile.DEFAULT_NET)[0])
    fen = "8/4r3/4k3/8/8/R2K4/8/5B2 w - - 0 1"
    pos = from_fen(fen)
    raw, scaled = [], []
    for m in legal_moves(pos):
        make_move(T, pos, np.int64(m))
        v = int(static_eval(T, searcher.EV, pos))          # Black's view
        raw.append(-v)
        scaled.append(-int(scale_network(pos, 1, v)))
        unmake_move(T, pos)
    _, score, _ = run(searcher, fen, depth=1)
    assert max(scaled) < max(raw) // 2
    assert score <= max(scaled)


@pytest.mark.parametrize("fen,bare,full,score,want", [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 780, 1024, 100, 100),
    ("8/4r3/4k3/8/8/R2K4/5P2/8 w - - 0 1", 780, 1024, 200, 159),   # 817/1024 with two rooks
    ("8/4r3/4k3/8/8/R2K4/5P2/8 w - - 0 1", 780, 1024, -200, -159),
    ("8/4p3/4k3/8/8/3K4/5P2/8 w - - 0 1", 780, 1024, 333, 253),     # pawns alone: 780/1024
    ("8/4p3/4k3/8/8/3K4/5P2/8 w - - 0 1", 1024, 1024, 333, 333),    # the default: off
])
def test_material_scaling_of_the_network_score(fen, bare, full, score, want):
    from black_numba.evaluation.endgame import scale_material
    assert scale_material(from_fen(fen), score, bare, full) == want


def test_the_search_reads_the_material_scaling_from_its_margins():
    """Rook and pawn against rook at depth 1: with the scaling off (1024 / 1024) the network's
    score; at 512 / 1024 (0.58 of it with two rooks on) and at the default 780 / 1024 (0.80)
    the score falls by that share."""
    from black_numba.evaluation import netfile
    from black_numba.search.params import EVAL_SCALE_BARE, margins
    searcher = Searcher(16)
    searcher.set_network(netfile.load(netfile.DEFAULT_NET)[0])
    fen = "8/4r3/4k3/8/8/R2K4/5P2/8 w - - 0 1"
    _, default, _ = run(searcher, fen, depth=1)
    ev = searcher.EV
    searcher.EV = (ev[0], ev[1], margins({"EVAL_SCALE_BARE": 1024}), *ev[3:])
    _, plain, _ = run(searcher, fen, depth=1)
    searcher.EV = (ev[0], ev[1], margins({"EVAL_SCALE_BARE": 512}), *ev[3:])
    _, scaled, _ = run(searcher, fen, depth=1)
    assert plain > 50 and EVAL_SCALE_BARE == 780
    assert abs(scaled - plain * 590 / 1024) <= 3
    assert abs(default - plain * 817 / 1024) <= 3


def test_node_limit_and_bench_determinism(searcher):
    pos = from_fen()
    searcher.clear()
    searcher.prepare()
    searcher.search(pos, Limits(nodes=5000))
    assert 5000 <= searcher.nodes() <= 5000 + 2       # go nodes is exact, not a poll interval
    counts = []
    for _ in range(2):
        s = Searcher(16)
        s.prepare()
        s.search(from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
                 Limits(depth=7))
        counts.append(s.nodes())
    assert counts[0] == counts[1] > 1000


def test_a_tiny_node_limit_still_ends_the_first_iteration(searcher):
    """`go nodes N` stops at N nodes, but the first iteration always ends (a labeller asking
    `go nodes 200` of a busy middlegame got a bestmove with no score), as in Stockfish."""
    fen = "r2q1rk1/5pbp/p1n3p1/2pbP3/P2P2PP/P3PNn1/1R2Q3/2B1KB1R w K - 1 21"
    for nodes in (1, 50, 200):
        infos = []
        searcher.clear()
        searcher.prepare()
        best, _, _ = searcher.search(from_fen(fen), Limits(nodes=nodes), report=infos.append)
        assert [i.depth for i in infos if i.score is not None][:1] == [1]
        assert move_to_uci(best) in {m.uci() for m in chess.Board(fen).legal_moves}
    searcher.clear()
    searcher.prepare()
    searcher.search(from_fen(fen), Limits(nodes=20000))
    assert 20000 <= searcher.nodes() <= 20000 + 2


@pytest.mark.parametrize("multipv,limits", [(2, Limits(nodes=3000)), (1, Limits(nodes=3000)),
                                             (1, Limits(depth=7))])
def test_a_search_without_a_report_searches_the_same_tree(multipv, limits):
    """datagen and bench search with no report (no info records, PVs not extended by hash
    moves; search.deepen in one call instead of a depth a call): the same best move, score, node
    count and searched PVs as a reported search, also when the same searcher goes on through
    a game (root orders carry over)."""
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    runs = []
    for report in (None, []):
        s = Searcher(16)
        pos = from_fen(fen)
        got = []
        for _ in range(6):
            s.prepare()
            args = {} if report is None else {"report": report.append}
            best, _, score = s.search(pos, limits, multipv=multipv, **args)
            got.append((best, score, s.nodes(), [pv for _, pv in s.last_lines]))
            make_move(T, pos, np.int64(best))
        runs.append(got)
    quiet, reported = runs
    for (b0, s0, n0, lines0), (b1, s1, n1, lines1) in zip(quiet, reported):
        assert (b0, s0, n0) == (b1, s1, n1)
        assert all(pv1[:len(pv0)] == pv0 for pv0, pv1 in zip(lines0, lines1))
        assert len(lines0) == len(lines1) == multipv


def test_failed_windows_are_reported_and_the_tree_stays_the_same(monkeypatch):
    """A watched search hands each failed aspiration window back to the driver for an info
    line with its bound (here from the start instead of after the first second), then goes on
    with the next window: the same best move, score and nodes as the search nobody watches."""
    from black_numba.search import driver as engine
    monkeypatch.setattr(engine, "ASPIRATION_REPORT_AFTER", 0.0)
    fens = ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1")
    bounds = 0
    for fen in fens:
        got = []
        for watched in (False, True):
            s = Searcher(16)
            s.prepare()
            infos = []
            best, _, score = s.search(from_fen(fen), Limits(depth=11),
                                      report=infos.append if watched else None)
            got.append((best, score, s.nodes()))
            failed = [i for i in infos if i.bound]
            bounds += len(failed)
            assert all(i.bound in ("lowerbound", "upperbound") for i in failed)
            assert all(i.pv for i in failed if i.bound == "lowerbound")
        assert got[0] == got[1]
    assert bounds > 0


def test_one_iterative_deepening_loop():
    """Every thread's iterative deepening is search.deepen: nothing else calls search_root,
    and the driver (engine.py) and the helpers reach the search only through deepen."""
    import ast
    import os
    import black_numba
    root = os.path.dirname(black_numba.__file__)
    callers = set()
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                tree = ast.parse(open(path).read())
                for node in ast.walk(tree):
                    if isinstance(node, ast.Name) and node.id == "search_root":
                        callers.add(os.path.relpath(path, root))
    assert callers == {os.path.join("search", "search.py")}
    from black_numba.search import search
    src = open(search.__file__).read()
    body = src[src.index("def deepen("):]
    assert "search_root(" in body and src.count("search_root(") == 2   # its def and deepen's


def test_multipv_lines_are_distinct_and_ordered(searcher):
    pos = from_fen("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    infos = []
    searcher.clear()
    searcher.prepare()
    searcher.search(pos, Limits(depth=5), report=infos.append, multipv=3)
    last = [info_line(i, move_to_uci) for i in infos if i.depth == 5]
    assert [l.split(" multipv ")[1].split()[0] for l in last] == ["1", "2", "3"]
    firsts = [l.split(" pv ")[1].split()[0] for l in last]
    assert len(set(firsts)) == 3 and firsts[0] == "h5f7"


def test_time_allocation():
    from black_numba.search.timeman import allocate
    assert allocate(Limits(movetime=1000), True, 30) == (None, 970)
    assert allocate(Limits(), True) == (None, None)
    soft, hard = allocate(Limits(wtime=10000, btime=1, winc=100), True, 30)
    assert 200 < soft < hard <= 0.7 * 9970
    soft, hard = allocate(Limits(wtime=1, btime=10000), True, 30)
    assert soft == hard == 1                       # flagged clock: move at once
    soft, hard = allocate(Limits(wtime=10000, btime=10000, movestogo=1), False, 30)
    assert hard < 9970
    soft, hard = allocate(Limits(wtime=60000, btime=60000, movestogo=40), False, 0)
    assert 1000 < soft < 2000 and hard <= 4 * soft
    # the increment counts net of the move overhead: 9970/20 + 0.8 * (100 - 30)
    assert allocate(Limits(wtime=10000, winc=100), True, 30)[0] == 9970 / 20 + 0.8 * 70
    assert allocate(Limits(wtime=100, winc=10), True, 30)[0] == 70 / 20


def test_first_moves_of_a_game_are_quick():
    """The opening ramp: at 3+0 and 5+3 the first moves' soft limit is a second or so and the
    hard one under 5 s (a full-strength reply within about 3 s); from OPENING_PLIES on, the
    usual share."""
    from black_numba.search.timeman import OPENING_PLIES, allocate, opening_ramp
    for wtime, inc in ((180000, 0), (300000, 3000)):
        limits = Limits(wtime=wtime, btime=wtime, winc=inc, binc=inc)
        for ply in (0, 1):
            soft, hard = allocate(limits, ply == 0, 30, ply)
            assert 400 < soft < 1300 and hard < 5000
        later = [allocate(limits, True, 30, ply)[0] for ply in range(0, OPENING_PLIES + 6)]
        assert later == sorted(later) and later[-1] == later[OPENING_PLIES]
        assert later[-1] == (wtime - 30) / 20 + 0.8 * max(0, inc - 30)
    assert opening_ramp(-3) == opening_ramp(0) and opening_ramp(1000) == 1


def test_middlegame_time_scales_moves_12_to_30_and_fades_by_55():
    """Middlegame Time 160: the sudden-death share is 1.6x the usual from move 12 to 30,
    1.312x at move 42 (12 of the 25 moves back), the usual from move 55; 100 changes nothing, and a
    movestogo clock is not scaled."""
    from black_numba.search.timeman import allocate, middlegame_share
    limits = Limits(wtime=10000, btime=10000, winc=100, binc=100)
    usual = 9970 / 20 + 0.8 * 70
    assert allocate(limits, True, 30, 22, 160) == allocate(limits, True, 30, 22)   # move 11
    for ply, share in ((24, 1.6), (60, 1.6), (62, 1.6 - 0.6 / 25), (110, 1.0),
                       (300, 1.0)):
        assert allocate(limits, True, 30, ply, 160)[0] == pytest.approx(usual * share)
        assert allocate(limits, True, 30, ply)[0] == pytest.approx(usual)
    assert middlegame_share(85, 160) == pytest.approx(1.312)
    assert middlegame_share(40, 50) == 0.5
    mtg = Limits(wtime=10000, btime=10000, movestogo=20)
    assert allocate(mtg, True, 30, 40, 160) == allocate(mtg, True, 30, 40)


def test_time_allocation_keeps_a_bullet_clock_alive():
    """1+0.01 with 5 ms of lag a move: spending the soft limit every move for 300 moves keeps
    more than 100 ms on the clock (it settles near 30 + 20 * (10 - 5) ms). Counting the
    whole increment as ours (the old rule) let it sink to about 44 ms, one hiccup from a loss."""
    from black_numba.search.timeman import allocate
    clock, lowest = 1000.0, 1000.0
    for _ in range(300):
        soft, _ = allocate(Limits(wtime=clock, winc=10), True, 30)
        clock += 10 - soft - 5
        lowest = min(lowest, clock)
    assert lowest > 100


def test_node_share_time_keeps_the_mean_factor_at_one():
    """Node-share time (timeman.NODE_TM, off as shipped): Ethereal's factor (0.5 when the best
    move took every node, 1.8 when it took 30%), divided by its running mean over the game,
    so the scaled factors average 1 and a contested best move still thinks longer."""
    from black_numba.search.timeman import NODE_TM, NODE_TM_PRIOR, NodeShareMean, node_factor
    assert NODE_TM == 0
    assert node_factor(1.0) == 0.5 and node_factor(0.3) == pytest.approx(1.8)
    mean = NodeShareMean()
    assert mean.scale(1.0) == pytest.approx(0.5 * (NODE_TM_PRIOR + 1) / (NODE_TM_PRIOR + 0.5))
    mean.reset()
    scaled = [mean.scale(x) for x in [0.95, 0.6, 0.99, 0.8, 0.4, 0.97] * 50]
    assert sum(scaled[-60:]) / 60 == pytest.approx(1.0, abs=0.02)
    assert scaled[-2] > 1.4 > 0.7 > scaled[-1]


def test_node_share_counts_each_root_moves_nodes(searcher):
    """Each root move's nodes over the search (by from-to square) give the best move's share
    for node-share time; with it switched on a clocked search still ends with a legal move."""
    from black_numba.search.timeman import NODE_TM_PRIOR
    pos = from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    searcher.clear()
    searcher.prepare()
    best = searcher.search(pos, Limits(depth=9))[0]
    effort = searcher._fields(searcher.st)["root_effort"]
    assert 0.9 * searcher.nodes() < effort.sum() <= searcher.nodes()
    assert 0.2 < searcher._best_share(best) < 1.0
    s = Searcher(16)
    s.tune("NODE_TM", 1)
    s.prepare()
    best = s.search(pos, Limits(wtime=60000, btime=60000))[0]
    assert best in legal_moves(pos)
    assert s.node_share.count > NODE_TM_PRIOR      # the factor was taken at least once


def test_singular_verification_search_leaves_out_the_hash_move(searcher):
    """The reduced search behind singular extensions skips the excluded move (here the only
    move that saves the queen's value: taking the hanging rook) and writes no TT entry."""
    from black_numba.search.search import negamax
    fen = "4k3/8/8/3r4/8/8/3Q4/4K3 w - - 0 1"
    best, score, _ = run(searcher, fen, depth=8)
    assert best == "d2d5" and score > 700
    pos = from_fen(fen)
    key = pos[KEY]
    hit, data = tt_probe(searcher.tt, key)
    assert hit
    ctl = searcher.ctl
    ctl[C_ABORT] = ctl[C_STOP] = 0
    ctl[C_NODE_LIMIT] = 0
    ply = np.int64(1)
    excluded = searcher.st[0]["stack"]["excluded"]
    excluded[ply] = parse_uci_move(pos, "d2d5")
    try:
        without = negamax(T, searcher.EV, pos, searcher.tt, searcher.st, np.int64(6),
                          np.int64(-32001), np.int64(32001), ply, np.int64(0))
    finally:
        excluded[ply] = 0
    assert without < score - 300            # no other move wins the rook
    assert tt_probe(searcher.tt, key) == (True, data)


def test_continuation_history_orders_the_follow_up_move():
    """A quiet move that earned continuation history after the previous move is ordered
    ahead of one with none; clearing the heuristics forgets it."""
    from black_numba.search.movepick import score_moves
    from black_numba.board.position import B_PAWN, BOARD
    from black_numba.search.state import clear_heuristics, new_state
    pos = from_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    st = new_state()
    s = st[0]
    ply = 1
    prev = B_PAWN * 64 + chess.E5                  # a black pawn just came to e5
    s["stack"]["piece_to"][ply - 1] = prev
    nf3 = parse_uci_move(pos, "g1f3")
    piece = int(pos[BOARD + chess.G1])
    s["cont"][prev, piece * 64 + chess.F3] = 5000
    moves = legal_moves(pos)
    s["moves"][ply, :len(moves)] = moves
    score_all = njit(lambda T, pos, st, ply, n: score_moves(T, pos, st[0], ply, n, 0))
    score_all(T, pos, st, np.int64(ply), np.int64(len(moves)))
    scores = dict(zip(moves, s["scores"][ply, :len(moves)]))
    assert scores[nf3] == 5000 and max(scores.values()) == 5000
    assert sorted(scores.values())[-2] == 0
    clear_heuristics(st)
    assert not s["cont"].any()


def test_uci_mate_constants_mirror_the_table():
    """core/engine.py converts scores before any compiled module is imported, so it keeps its own
    copy of the mate bounds: they must equal tt.py's."""
    from black_numba.core import engine as core
    from black_numba.search import tt
    assert (core.MATE, core.MATE_IN_MAX, core.TB_WIN, core.TB_WIN_IN_MAX) == \
        (tt.MATE, tt.MATE_IN_MAX, tt.TB_WIN, tt.TB_WIN_IN_MAX)
    assert score_text(tt.MATE - 5) == "mate 3" and score_text(-(tt.MATE - 4)) == "mate -2"


def test_history_saturates_within_its_int16_table():
    """Continuation history is stored as int16 (1.2 MB a thread instead of 4.7): gravity keeps
    every value within HIST_MAX + 1, which deep searches reach but never pass."""
    from black_numba.frontends.bench import BENCH_FENS
    from black_numba.search.params import HIST_MAX
    s = Searcher(16)
    for fen in BENCH_FENS[:6]:
        s.prepare()
        s.search(from_fen(fen), Limits(depth=11))
    cont = s.st[0]["cont"].astype(np.int64)
    hist = s.st[0]["history"]
    assert s.st[0]["cont"].dtype == np.int16
    assert HIST_MAX // 2 < np.abs(cont).max() <= HIST_MAX + 1
    assert np.abs(hist).max() <= HIST_MAX + 1


def test_cut_node_reduces_one_ply_more_within_the_clamp():
    """An expected cut node reduces late moves CUT_NODE_R plies more than another non-PV node,
    and no reduction ever reaches the move's new depth (a reduced search keeps at least a ply)."""
    from black_numba.search.params import CUT_NODE_R
    from black_numba.search.search import _reduction
    from black_numba.search.state import new_state
    from black_numba.search.params import margins
    mg = margins()
    reduce = njit(lambda st, d, n, nd, cut: _reduction(mg, st[0], d, n, nd, 0, True, False,
                                                        False, cut, False))
    st = new_state()
    grew = 0
    for depth in range(1, 40):
        for searched in range(1, 60):
            nd = depth - 1
            plain = reduce(st, np.int64(depth), np.int64(searched), np.int64(nd), np.int64(0))
            at_cut = reduce(st, np.int64(depth), np.int64(searched), np.int64(nd), np.int64(1))
            assert 0 <= plain <= at_cut <= max(nd - 1, 0)
            assert at_cut - plain <= CUT_NODE_R
            grew += at_cut == plain + CUT_NODE_R
    assert grew > 1000


def _probcut_at_root(searcher, fen, depth, beta):
    """ProbCut tried at the root of fen with a zero static-evaluation margin: (score, entry)."""
    from black_numba.search.search import _probcut, refresh_root
    pos = from_fen(fen)
    searcher.clear()
    searcher.prepare()
    ctl = searcher.ctl
    ctl[C_ABORT] = ctl[C_STOP] = 0
    ctl[C_NODE_LIMIT] = 0

    @njit
    def probcut(T, EV, pos, tt, st, depth, beta):
        ply = np.int64(0)
        refresh_root(EV, pos, st[0], ply)
        return _probcut(T, EV, pos, tt, st, depth, beta, beta, beta, ply, pos[KEY], np.int64(1))

    score = probcut(T, searcher.EV, pos, searcher.tt, searcher.st, np.int64(depth), np.int64(beta))
    return score, tt_probe(searcher.tt, pos[KEY])


def test_probcut_cuts_on_a_won_capture_and_records_a_lower_bound(searcher):
    """Taking a free queen beats beta by far more than the margin at reduced depth: ProbCut
    returns that search's score and leaves a lower bound with the capture in the table."""
    from black_numba.search.params import PROBCUT_MARGIN, PROBCUT_REDUCTION
    from black_numba.search.tt import BOUND_LOWER, MATE_IN_MAX, tt_bound, tt_depth, tt_move
    fen = "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"
    score, (hit, data) = _probcut_at_root(searcher, fen, 6, 0)
    assert PROBCUT_MARGIN < score < MATE_IN_MAX
    assert hit and move_to_uci(tt_move(data)) == "d2d5"
    assert tt_bound(data) == BOUND_LOWER and tt_score(data, 0) == score
    assert tt_depth(data) == 6 - PROBCUT_REDUCTION + 1


def test_probcut_never_returns_a_mate_score(searcher):
    """Rxd8 takes a rook and mates: the reduced search finds the mate, but ProbCut leaves mate
    scores to the full search (no cut, no table entry of its own)."""
    from black_numba.search.search import INF
    fen = "3r2k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"
    score, (hit, _) = _probcut_at_root(searcher, fen, 6, 0)
    assert score == -INF and not hit
    assert run(searcher, fen, depth=6)[:2] == ("d1d8", MATE - 1)


def test_clear_forgets_the_per_ply_stack():
    """ucinewgame leaves nothing of an earlier game on the per-ply stack: quiescence orders
    evasions by the continuation rows found there, so a stale row changed a later game's scores
    (datagen's labels depended on the games its labeller had scored before)."""
    from black_numba.evaluation.nnue import NO_NET
    fen = "8/5p2/3k4/3p1p2/3P2q1/4P3/6Bp/5K2 b - - 7 55"

    def search(s):
        s.prepare()
        _, _, score = s.search(from_fen(fen), Limits(depth=7))
        return score, s.nodes()

    fresh = Searcher(16)
    used = Searcher(16)
    rng = np.random.default_rng(5)
    stack = used.st[0]["stack"]
    stack["piece_to"][...] = rng.integers(0, 768, stack.shape)
    stack["static_eval"][...] = rng.integers(-500, 500, stack.shape)
    used.clear()
    assert not used.st[0]["stack"]["piece_to"].any()
    assert search(used) == search(fresh)


# -- correction history ----------------------------------------------------------------------
from black_numba.search.params import CORR_DIV, CORR_LIMIT  # noqa: E402
from black_numba.search.search import (  # noqa: E402
    _null_move_r, _reduction, corrected, update_correction)
from black_numba.search.movepick import SCORE_GOOD_CAPTURE  # noqa: E402
from black_numba.search.params import margins  # noqa: E402
from black_numba.search.state import C_NMP_COLOR, C_NMP_MIN_PLY  # noqa: E402
from black_numba.search.state import clear_heuristics, new_state  # noqa: E402
from black_numba.search.tt import MATE_IN_MAX, TB_WIN_IN_MAX  # noqa: E402


@njit(cache=True)
def _corrected(st, pos, raw):
    return corrected(st[0], pos, raw)


@njit(cache=True)
def _update(st, pos, depth, best, static):
    update_correction(st[0], pos, depth, best, static)


def test_correction_stays_within_its_bound_and_out_of_the_mate_range():
    st = new_state()
    pos = from_fen("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    rng = np.random.default_rng(7)
    for _ in range(2000):      # random results, huge ones too
        _update(st, pos, int(rng.integers(1, 40)), int(rng.integers(-30000, 30000)),
                int(rng.integers(-3000, 3000)))
        assert np.abs(st[0]["corr"]).max() <= CORR_LIMIT
    for _ in range(200):       # saturate upwards
        _update(st, pos, 30, 29000, -2000)
    top = CORR_LIMIT * CORR_LIMIT // CORR_DIV
    assert np.abs(st[0]["corr"]).max() <= CORR_LIMIT
    assert _corrected(st, pos, 0) <= top and _corrected(st, pos, 0) > 0
    # a corrected evaluation stays below the decisive scores (mates and tablebase results)
    assert _corrected(st, pos, TB_WIN_IN_MAX - 5) == TB_WIN_IN_MAX - 1
    clear_heuristics(st)
    assert not st[0]["corr"].any() and _corrected(st, pos, 123) == 123


def test_mate_scores_pass_through_a_saturated_correction_history(searcher):
    """Correction moves static evaluations only: a found mate keeps its exact score."""
    fen = "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1"
    searcher.clear()
    for st in [searcher.st] + list(searcher.helper_states):
        st[0]["corr"][...] = CORR_LIMIT
    pos = from_fen(fen)
    searcher.prepare()
    best, _, score = searcher.search(pos, Limits(depth=10))
    assert move_to_uci(best) == "d6d1" and score_text(score) == "mate 3"
    searcher.clear()


# The search's candidate items of Stockfish 15.1, each a TUNE number that leaves the search
# as shipped at its shipped value: (name, shipped value, a value that switches it on, the
# nodes of _switch_nodes with it on; 58,956 with every item off)
SWITCHES = [("TT_CUT_HISTORY", 0, 100, 64954), ("EVAL_SWING_MULT", 0, 19, 53808),
            ("PRIOR_FAIL_LOW", 0, 100, 73696), ("SE_MIN_DEPTH", 7, 5, 68038),
            ("NEG_EXTENSION", 0, 2, 61892), ("CHECK_EXT_MIN_DEPTH", 0, 10, 60175),
            ("CHECK_EXT_MIN_EVAL", 0, 40, 60291), ("NMP_VERIFY_DEPTH", 0, 6, 58950),
            ("LMR_CAPTURES", 0, 1, 54410)]
SWITCHES_OFF_NODES = 58956


def _switch_nodes(s, depth=9):
    """Nodes of fixed-depth searches of the first four bench positions, the table cleared."""
    from black_numba.frontends.bench import BENCH_FENS
    s.clear()
    total = 0
    for fen in BENCH_FENS[:4]:
        s.prepare()
        s.search(from_fen(fen), Limits(depth=depth))
        total += s.nodes()
    return total


@njit
def _nmp_r(MG, st, ply, us):
    return _null_move_r(MG, st[0], ply, 8, 300, 0, True, us)


@njit
def _capture_r(MG, st, pv_node):
    return _reduction(MG, st[0], 12, 8, 11, SCORE_GOOD_CAPTURE, False, False, pv_node, False,
                      True)


def test_null_move_verification_bars_only_the_verifying_side():
    """While a verification search runs (NMP_VERIFY_DEPTH; Stockfish's nmpMinPly and
    nmpColor), the side it verifies makes no null move below the minimum ply; its opponent
    still may, and from the minimum ply on both may."""
    st = new_state()
    st[0]["stack"][3]["move"] = 1           # the move before ply 4 is not a null move
    MG = margins()
    assert _nmp_r(MG, st, 4, 0) > 0 and _nmp_r(MG, st, 4, 1) > 0
    st[0]["ctl"][C_NMP_MIN_PLY] = 6
    st[0]["ctl"][C_NMP_COLOR] = 0
    assert _nmp_r(MG, st, 4, 0) == 0
    assert _nmp_r(MG, st, 4, 1) > 0
    st[0]["ctl"][C_NMP_MIN_PLY] = 4
    assert _nmp_r(MG, st, 4, 0) > 0


def test_lmr_of_captures_spares_pv_nodes():
    """LMR_CAPTURES reduces a good capture late in the move list away from the PV only (as
    Stockfish reduces no capture at a PV node); off, no good capture is reduced."""
    st = new_state()
    on = margins({"LMR_CAPTURES": 1})
    assert _capture_r(on, st, False) == 3
    assert _capture_r(on, st, True) == 0
    assert _capture_r(margins(), st, False) == 0


@pytest.mark.parametrize("name, shipped, on, nodes", SWITCHES)
def test_candidate_items_leave_the_search_as_shipped_until_switched_on(name, shipped, on,
                                                                        nodes):
    """Each candidate item (search/params.py) is off at its shipped value, which searches the
    tree of the engine without it (the bench signature test covers the whole); switched on it
    searches its own tree (its node count, a signature as bench's), and still returns a
    move."""
    from black_numba.frontends.bench import BENCH_FENS
    from black_numba.search import params
    assert getattr(params, name) == shipped
    s = Searcher(16)
    assert _switch_nodes(s) == SWITCHES_OFF_NODES
    s.tune(name, on)
    assert _switch_nodes(s) == nodes
    s.tune(name, shipped)
    assert _switch_nodes(s) == SWITCHES_OFF_NODES
    s.tune(name, on)
    s.prepare()
    best = s.search(from_fen(BENCH_FENS[0]), Limits(depth=6))[0]
    assert best in legal_moves(from_fen(BENCH_FENS[0]))


@pytest.mark.parametrize("items, depth, nodes", [
    # the check extension's limit with singular extensions from depth 5: Stockfish's else-if
    # (no check extension for a hash move the singular test took) makes 65,891, not 68,545
    ({"CHECK_EXT_MIN_DEPTH": 5, "SE_MIN_DEPTH": 5}, 9, 65891),
    # null-move verification from depth 4: barring the verifying side (C_NMP_COLOR), not
    # always White, makes 86,460, not 86,396
    ({"NMP_VERIFY_DEPTH": 4}, 10, 86460)])
def test_candidate_items_search_their_own_trees_together(items, depth, nodes):
    """Node signatures that move when a detail of an item's rule is lost."""
    s = Searcher(16)
    for name, value in items.items():
        s.tune(name, value)
    assert _switch_nodes(s, depth) == nodes
