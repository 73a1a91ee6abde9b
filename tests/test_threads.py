"""Lazy SMP (Threads): node limits summed over threads, the stop request reaching every thread,
thread-count changes between searches, and a protocol loop at several thread counts under
stop / ponderhit / new positions, every reply checked against python-chess."""
import random
import threading
import time

import chess
import pytest

from black_numba.search.driver import Searcher
from black_numba.search.limits import Limits
from black_numba.board.movegen import legal_moves
from black_numba.board.position import from_fen, move_to_uci
from black_numba.search.state import C_NODES, C_STOP
from conftest import Raw, random_positions

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


@pytest.mark.parametrize("threads", [2, 3])
def test_node_limit_counts_all_threads(threads):
    s = Searcher(16, threads)
    for limit in (5000, 100_000):
        s.prepare()
        best, _, _ = s.search(from_fen(KIWIPETE), Limits(nodes=limit))
        per_thread = [int(st[0]["ctl"][C_NODES]) for st in s._states()]
        assert len(per_thread) == threads and min(per_thread) > 0   # every thread searched
        assert limit <= s.nodes() <= limit + 4 * threads, per_thread   # each its share, exactly
        assert best in legal_moves(from_fen(KIWIPETE))


def test_stop_reaches_every_thread_and_helpers_end():
    s = Searcher(16, 4)
    s.prepare()
    result = []
    t = threading.Thread(target=lambda: result.append(s.search(from_fen(KIWIPETE), Limits(infinite=True))))
    t.start()
    time.sleep(0.3)
    assert all(int(st[0]["ctl"][C_NODES]) > 0 for st in s._states())   # all four searching
    s.stop()
    t.join(10)
    assert not t.is_alive() and result[0][0] in legal_moves(from_fen(KIWIPETE))
    assert all(st[0]["ctl"][C_STOP] == 1 for st in s._states())
    s.prepare()                                  # waits for the helpers to unwind
    helpers = s.pool.helpers
    assert len(helpers) == 3 and all(th.is_alive() and not th.busy for th in helpers)  # parked
    # fewer threads, then more, between searches; depth searches complete with a legal move
    for n in (1, 3, 2):
        s.set_threads(n)
        assert len(s._states()) == n
        s.prepare()
        best, _, score = s.search(from_fen(KIWIPETE), Limits(depth=6))
        assert best in legal_moves(from_fen(KIWIPETE))


def test_threads_find_the_same_mate():
    """A forced mate is found at any thread count (the helpers only add to the table)."""
    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
    for n in (1, 2, 4):
        s = Searcher(16, n)
        s.prepare()
        best, _, score = s.search(from_fen(fen), Limits(depth=6))
        assert move_to_uci(best) == "h5f7" and score > 30000


def _check_bestmove(out, board, searchmoves=None):
    line = out[-1]
    assert line.startswith("bestmove "), out[-3:]
    parts = line.split()
    move = chess.Move.from_uci(parts[1])
    assert move in board.legal_moves, (board.fen(), line)
    if searchmoves:
        assert parts[1] in searchmoves
    if len(parts) == 4:
        after = board.copy()
        after.push(move)
        assert chess.Move.from_uci(parts[3]) in after.legal_moves, (after.fen(), line)
    infos = [l for l in out if l.startswith("info depth")]
    assert infos, out
    for l in infos:
        pv = l.split(" pv ")[1].split() if " pv " in l else []
        b = board.copy()
        for text in pv:
            assert chess.Move.from_uci(text) in b.legal_moves, (board.fen(), l)
            b.push_uci(text)


def test_threads_protocol_loop():
    """Threads changes, new positions, go infinite + stop, go ponder + ponderhit (+ stop),
    movetime, node limits and MultiPV with searchmoves, in a loop: every bestmove, ponder
    move and pv legal; node limits summed over threads."""
    rng = random.Random(12)
    boards = [b for b in random_positions(30, seed=12) if not b.is_game_over()]
    eng = Raw()
    try:
        eng.send("uci")
        eng.wait_for("uciok")
        for round_ in range(12):
            threads = (2, 8, 1, 3)[round_ % 4]
            eng.send(f"setoption name Threads value {threads}", "isready")
            assert eng.wait_for("readyok")[-1] == "readyok"
            board = rng.choice(boards)
            eng.send("position fen " + board.fen())
            # infinite, stopped
            eng.send("go infinite")
            time.sleep(0.05 + rng.random() * 0.1)
            eng.send("stop")
            _check_bestmove(eng.wait_for("bestmove", 10), board)
            # ponder on the expected reply, then ponderhit: a timed search follows
            eng.send("go ponder wtime 2000 btime 2000 winc 20 binc 20")
            time.sleep(rng.random() * 0.05)
            eng.send("ponderhit")
            _check_bestmove(eng.wait_for("bestmove", 10), board)
            # ponder stopped at once (the opponent played something else)
            eng.send("go ponder wtime 2000 btime 2000", "stop")
            _check_bestmove(eng.wait_for("bestmove", 10), board)
            # movetime, and a node limit counted over all threads
            eng.send("go movetime 30")
            _check_bestmove(eng.wait_for("bestmove", 10), board)
            eng.send("go nodes 30000")
            out = eng.wait_for("bestmove", 30)
            _check_bestmove(out, board)
            nodes = [int(l.split(" nodes ")[1].split()[0]) for l in out if " nodes " in l]
            assert max(nodes) <= 30000 + 4 * threads
            # MultiPV 2 over three chosen moves
            legal = [m.uci() for m in board.legal_moves]
            chosen = rng.sample(legal, min(3, len(legal)))
            eng.send("setoption name MultiPV value 2", "go depth 5 searchmoves " + " ".join(chosen))
            out = eng.wait_for("bestmove", 30)
            _check_bestmove(out, board, chosen)
            eng.send("setoption name MultiPV value 1")
            # a new position while a search runs: the old search answers for the old board
            eng.send("go infinite")
            time.sleep(0.02)
            nxt = rng.choice(boards)
            eng.send("stop", "position fen " + nxt.fen(), "go depth 4")
            _check_bestmove(eng.wait_for("bestmove", 10), board)
            _check_bestmove(eng.wait_for("bestmove", 30), nxt)
        eng.send("isready")
        assert eng.wait_for("readyok")[-1] == "readyok"
    finally:
        eng.close()


def test_pool_threads_persist_between_searches_and_change_with_threads():
    """The search threads are made when Threads changes and parked between searches: the
    same thread objects (alive, parked) serve two searches and a new game; a new Threads
    value makes a new pool (the old threads end), the same value keeps it."""
    from black_numba.core.engine import EngineCore
    core = EngineCore()
    core.set_option("Threads", 3)
    pool = core.searcher.pool
    before = list(pool.threads)
    assert len(before) == 3
    core.set_position(KIWIPETE)
    for _ in range(2):
        result = core.go(Limits(depth=6))
        assert chess.Move.from_uci(result.best) in chess.Board(KIWIPETE).legal_moves
        pool.wait_helpers()                  # helpers unwind after the answer, then park
        assert pool.threads == before and all(t.is_alive() and not t.busy for t in before)
    core.new_game()
    core.set_position(KIWIPETE)
    core.go(Limits(nodes=20000))
    assert core.searcher.pool.threads == before          # the same objects, after ucinewgame
    core.set_option("Threads", 3)
    assert core.searcher.pool.threads == before          # an unchanged value keeps the pool
    core.set_option("Threads", 2)
    after = core.searcher.pool.threads
    assert len(after) == 2 and not set(after) & set(before)
    assert not any(t.is_alive() for t in before)         # the old threads ended
    result = core.go(Limits(depth=5))
    assert chess.Move.from_uci(result.best) in chess.Board(KIWIPETE).legal_moves
    assert core.searcher.pool.threads == after and all(t.is_alive() for t in after)
    # a search started in the background runs on the pool's main thread, and stop ends it
    seen = []
    core.start(Limits(infinite=True), on_done=seen.append)
    time.sleep(0.2)
    assert after[0].busy and all(t.busy for t in after)
    core.stop()
    assert len(seen) == 1 and not any(t.busy for t in after[:1])
    core.stop()
