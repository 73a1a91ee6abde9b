"""The principal variation stops at a draw by repetition: no PV move after the position's
third occurrence counting the game's moves (fastchess's "PV continues after threefold
repetition"), nor after a position the line itself has met before (the search scores that
as a draw). Checked on every `info pv` of UCI searches, MultiPV lines, the Python API, and
games against Stockfish."""
import os
import time

import chess
import chess.engine
import pytest

from conftest import ENGINE, Raw

STOCKFISH = "/usr/games/stockfish"
# White, two rooks down, draws by perpetual check: Qh5+ Kg8 Qe8+ Kh7 Qh5+ ...
PERPETUAL = "8/6pk/8/8/8/8/rr3PPP/3Q2K1 w - - 0 1"
# games and clock of the games test: 8 at 1+0.01 in CI (BLACK_NUMBA_PV_GAMES="20 10+0.1"
# for the declared run at the gauntlet's clock, run PV1 in bench/results/RUNS.md)
GAMES_TC = (lambda g, tc: (int(g), tuple(map(float, tc.split("+")))))(
    *os.environ.get("BLACK_NUMBA_PV_GAMES", "8 1+0.01").split())
CHECKS = "d1h5 h7g8 h5e8 g8h7 e8h5 h7g8 h5e8 g8h7".split()


def pv_fault(board, pv):
    """Why `pv` (UCI texts) from `board` (with its game's moves) runs on past a draw by
    repetition: a move made from a position met three times in the game and line, or twice
    since the root; None if it stops in time."""
    board = board.copy()
    seen = {}
    for i, text in enumerate(pv):
        key = board._transposition_key()
        if board.is_repetition(3):
            return f"move {i + 1} ({text}) after a third occurrence"
        if seen.get(key, 0) >= 1:
            return f"move {i + 1} ({text}) after a repetition inside the line"
        seen[key] = seen.get(key, 0) + 1
        board.push_uci(text)
    return None


def test_the_checker_finds_a_line_past_a_repetition():
    board = chess.Board(PERPETUAL)
    assert pv_fault(board, CHECKS[:4]) is None
    assert "inside the line" in pv_fault(board, CHECKS + ["e8h5"])
    for m in CHECKS:
        board.push_uci(m)
    assert pv_fault(board, ["e8h5"]) is None
    assert "third occurrence" in pv_fault(board, ["e8h5", "h7g8"])


def _info_pvs(position, go, multipv=1):
    e = Raw()
    try:
        e.send("uci", f"setoption name MultiPV value {multipv}", "isready")
        e.wait_for("readyok", timeout=600)
        e.send(position, go)
        lines = e.wait_for("bestmove", timeout=120)
    finally:
        e.close()
    return [l.split(" pv ", 1)[1].split() for l in lines
            if l.startswith("info") and " pv " in l], lines[-1]


@pytest.mark.parametrize("history", [0, 4, 8])
def test_uci_lines_stop_at_the_repetition(history):
    """With no history the line repeats inside itself; with 8 plies of checks the first
    check is the third occurrence; the draw is seen and no line runs on past it."""
    moves = CHECKS[:history]
    board = chess.Board(PERPETUAL)
    for m in moves:
        board.push_uci(m)
    position = f"position fen {PERPETUAL}" + (f" moves {' '.join(moves)}" if moves else "")
    for multipv in (1, 3):
        pvs, best = _info_pvs(position, "go depth 12", multipv)
        assert len(pvs) >= 12 * multipv and best.startswith("bestmove ")
        faults = [(pv, pv_fault(board, pv)) for pv in pvs if pv_fault(board, pv)]
        assert not faults, faults[:3]
        if history == 8:        # Qh5+ is the third occurrence: a line through it ends there
            assert all(pv == ["e8h5"] for pv in pvs if pv[0] == "e8h5")


def test_api_lines_stop_at_the_repetition():
    """black_numba.Engine.analyse (the board's engine lines go through it): MultiPV lines of
    a board with the game's moves."""
    import black_numba
    board = chess.Board(PERPETUAL)
    for m in CHECKS:
        board.push_uci(m)
    with black_numba.Engine({"Hash": 16}) as engine:
        infos = engine.analyse(board, chess.engine.Limit(depth=12), multipv=3)
    assert len(infos) == 3
    for info in infos:
        pv = [m.uci() for m in info["pv"]]
        assert pv_fault(board, pv) is None, pv
    for info in infos:        # the line through the third occurrence is that move, a draw
        if info["pv"][0].uci() == "e8h5":
            assert len(info["pv"]) == 1 and info["score"].white().score() == 0


def play_and_check(games, tc, seed=1):
    """`games` games against Stockfish (UCI_Elo 2850, alternate colours) on clock `tc`
    (base, inc); every info pv of ours checked on the game's board. Returns (faults, PVs
    checked)."""
    import random
    rng = random.Random(seed)
    faults, checked = [], 0
    ours = chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=600)
    theirs = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    try:
        ours.configure({"Hash": 16, "Threads": 1})
        theirs.configure({"Hash": 16, "Threads": 1, "UCI_LimitStrength": True,
                          "UCI_Elo": 2850})
        for g in range(games):
            board = chess.Board()
            for _ in range(4):      # a few random plies: different games
                board.push(rng.choice(list(board.legal_moves)))
            clocks = [tc[0], tc[0]]
            white_is_ours = g % 2 == 0
            while not board.is_game_over(claim_draw=True) and board.ply() < 300:
                us = (board.turn == chess.WHITE) == white_is_ours
                limit = chess.engine.Limit(white_clock=clocks[0], black_clock=clocks[1],
                                           white_inc=tc[1], black_inc=tc[1])
                side = 0 if board.turn == chess.WHITE else 1
                t0 = time.monotonic()
                if us:
                    with ours.analysis(board, limit) as analysis:
                        for info in analysis:
                            if "pv" in info:
                                checked += 1
                                fault = pv_fault(board, [m.uci() for m in info["pv"]])
                                if fault:
                                    faults.append((board.fen(), fault))
                        move = analysis.wait().move
                else:
                    move = theirs.play(board, limit).move
                # the clock as a GUI keeps it (a flag is not this test's concern)
                clocks[side] = max(clocks[side] - (time.monotonic() - t0), 0.05) + tc[1]
                board.push(move)
    finally:
        ours.quit()
        theirs.quit()
    return faults, checked


@pytest.mark.slow
def test_games_against_stockfish_show_no_line_past_a_threefold():
    if not os.path.exists(STOCKFISH):
        pytest.fail(f"{STOCKFISH} is missing: `python3 bin/bootstrap test` installs it")
    games, tc = GAMES_TC
    faults, checked = play_and_check(games, tc)
    print(f"{games} games at {tc[0]:g}+{tc[1]:g}: {checked} PVs checked, {len(faults)} faults")
    assert checked > 100 and not faults, faults[:3]
