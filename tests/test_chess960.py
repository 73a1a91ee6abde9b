"""Chess960: castling with king and rooks on any start files, X-FEN and Shredder-FEN, the
UCI_Chess960 notation, exact perft, and python-chess (chess960=True) as the oracle."""
import os
import random
import subprocess
import time

import chess
import chess.engine
import chess.polyglot
import numpy as np
import pytest

from conftest import ENGINE, PERFT_DIR, Raw, talk as _talk
from black_numba.board.bitboard import TABLES
from black_numba.frontends.cli import _read_suite
from black_numba.board.move import is_castling
from black_numba.board.movegen import legal_moves, parse_uci_move
from black_numba.board.perft import divide, perft
from black_numba.board.position import (
    KEY, compute_key, from_fen, get_fen, make_move, move_to_uci, unmake_move,
)


def _suite(name):
    return [(fen, counts) for _, fen, counts in _read_suite(os.path.join(PERFT_DIR, name), None)]


FISCHER960 = _suite("perft_fischer960.epd")      # middlegames, Shredder-FEN, counts to depth 6
STARTS = _suite("perft_chess960_starts.epd")     # the 960 start positions, X-FEN, depth 4


def test_suites_are_complete():
    assert len(FISCHER960) == 960 and len(STARTS) == 960
    assert [fen for fen, _ in STARTS] == [chess.Board.from_chess960_pos(n).fen() for n in range(960)]
    assert STARTS[518] == (chess.STARTING_FEN, {1: 20, 2: 400, 3: 8902, 4: 197281})


def test_fischer960_perft_first_positions_depth_3():
    for fen, counts in FISCHER960[:40]:
        assert perft(from_fen(fen), 3) == counts[3], fen


@pytest.mark.slow
def test_fischer960_perft_all_depth_4():
    bad = [fen for fen, counts in FISCHER960 if perft(from_fen(fen), 4) != counts[4]]
    assert bad == []


@pytest.mark.slow
def test_all_960_start_positions_perft_depth_4():
    bad = [fen for fen, counts in STARTS if perft(from_fen(fen), 4) != counts[4]]
    assert bad == []


def test_castling_notation_both_ways():
    pos = from_fen("4k3/8/8/8/8/8/8/RK5R w HA - 0 1")    # king b1, rooks a1 and h1
    castles = [m for m in legal_moves(pos) if is_castling(m)]
    assert sorted(move_to_uci(m, pos) for m in castles) == ["b1a1", "b1h1"]
    assert sorted(move_to_uci(m) for m in castles) == ["b1c1", "b1g1"]
    rows = dict(divide(pos, 1, chess960=True))
    assert rows["b1h1"] == 1 and rows["b1a1"] == 1 and len(rows) == 25
    # standard notation: castling b1c1 has the text of the king's step b1c1, which wins
    m = parse_uci_move(pos, "b1c1")
    assert not is_castling(m)
    m = parse_uci_move(pos, "b1a1", chess960=True)
    make_move(TABLES, pos, np.int64(m))
    assert get_fen(pos) == "4k3/8/8/8/8/8/8/2KR3R b - - 1 1"
    with pytest.raises(ValueError, match=r"castling is b1g1"):
        parse_uci_move(from_fen("4k3/8/8/8/8/8/8/RK5R w HA - 0 1"), "b1h1")
    with pytest.raises(ValueError, match=r"castling is b1h1 with UCI_Chess960"):
        parse_uci_move(from_fen("4k3/8/8/8/8/8/8/RK5R w HA - 0 1"), "b1g1", chess960=True)


@pytest.mark.parametrize("fen, moved", [
    # the king already on its destination g1: only the rook moves
    ("4k3/8/8/8/8/8/8/R5KR w K - 0 1", "4k3/8/8/8/8/8/8/R4RK1 b - - 1 1"),
    # the rook on the king's destination c1
    ("4k3/8/8/8/8/8/8/2RK4 w Q - 0 1", "4k3/8/8/8/8/8/8/2KR4 b - - 1 1"),
])
def test_odd_castles_make_and_unmake(fen, moved):
    pos = from_fen(fen)
    board = chess.Board(fen, chess960=True)
    castle = next(m for m in legal_moves(pos) if is_castling(m))
    assert board.is_castling(chess.Move.from_uci(move_to_uci(castle, pos)))
    make_move(TABLES, pos, np.int64(castle))
    assert get_fen(pos) == moved and pos[KEY] == compute_key(TABLES, pos)
    unmake_move(TABLES, pos)
    assert get_fen(pos) == fen and pos[KEY] == compute_key(TABLES, pos)


def test_castling_through_a_rook_shield_is_illegal():
    """King c1 castling queen-side stays on c1 while its rook b1 goes to d1: the black rook
    on a1 then attacks c1, so the castle is illegal though no square was attacked before."""
    pos = from_fen("4k3/8/8/8/8/8/8/rRK5 w B - 0 1")
    assert "c1b1" not in [move_to_uci(m, pos) for m in legal_moves(pos)]
    assert "c1b1" not in [m.uci() for m in chess.Board(get_fen(pos), chess960=True).legal_moves]


@pytest.mark.parametrize("fen, message", [
    ("4k3/8/8/8/8/8/8/RK5R w HG - 0 1", "no white rook on g1"),                 # no rook there
    ("4k3/8/8/8/8/8/8/1K3R1R w HF - 0 1", "two white rooks on one side"),       # one wing, two rooks
    ("4k3/8/8/8/8/8/8/1K3R1R w KH - 0 1", "two white rooks on one side"),
    ("4k3/8/8/8/8/8/1K6/R6R w HA - 0 1", "king is not on its back rank"),
    ("r3k2r/8/8/8/8/8/8/4K3 b KQx - 0 1", "bad castling field"),
])
def test_malformed_castling_fields(fen, message):
    with pytest.raises(ValueError, match=message):
        from_fen(fen)


def test_fen_notations():
    # X-FEN as python-chess writes it: KQkq for the outermost rooks, a file letter otherwise
    for shredder, xfen in [
            ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
             "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9"),
            ("4k3/8/8/8/8/8/8/R1K3RR w GA - 0 1", "4k3/8/8/8/8/8/8/R1K3RR w GQ - 0 1"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1", chess.STARTING_FEN)]:
        assert get_fen(from_fen(shredder)) == xfen == chess.Board(shredder, chess960=True).fen()
        assert get_fen(from_fen(xfen)) == xfen


def _oracle_game(rng, counts):
    """One seeded random Chess960 game checked ply by ply against python-chess."""
    board = chess.Board.from_chess960_pos(rng.randrange(960))
    start = board.fen()
    pos = from_fen(start)
    for _ in range(rng.randrange(20, 90)):
        ours = sorted(move_to_uci(m, pos) for m in legal_moves(pos))
        assert ours == sorted(m.uci() for m in board.legal_moves), board.fen()
        if not ours:
            break
        fen = board.fen(en_passant="xfen")
        assert get_fen(pos) == fen
        again = from_fen(board.fen(shredder=True, en_passant="xfen"))
        assert get_fen(again) == fen and again[KEY] == pos[KEY]
        assert pos[KEY] == compute_key(TABLES, pos) == chess.polyglot.zobrist_hash(board)
        moves = list(board.legal_moves)
        castles = [m for m in moves if board.is_castling(m)]
        caps = [m for m in moves if board.is_capture(m)]
        r = rng.random()
        move = rng.choice(castles if castles and r < 0.5 else caps if caps and r < 0.8 else moves)
        if board.is_castling(move):
            king_to = chess.square(6 if board.is_kingside_castling(move) else 2,
                                   chess.square_rank(move.from_square))
            counts["king side" if board.is_kingside_castling(move) else "queen side"] += 1
            counts["king stays"] += move.from_square == king_to
            counts["rook on king's destination"] += move.to_square == king_to
        elif board.castling_rights & chess.BB_SQUARES[move.to_square]:
            counts["right lost to a capture"] += 1
        make_move(TABLES, pos, np.int64(parse_uci_move(pos, move.uci(), chess960=True)))
        board.push(move)
    while board.move_stack:
        board.pop()
        unmake_move(TABLES, pos)
    assert get_fen(pos) == start and pos[KEY] == compute_key(TABLES, pos)


@pytest.mark.slow
def test_200_random_chess960_games_against_python_chess():
    rng = random.Random(960)
    counts = dict.fromkeys(["king side", "queen side", "king stays", "rook on king's destination",
                            "right lost to a capture"], 0)
    for _ in range(200):
        _oracle_game(rng, counts)
    assert min(counts.values()) >= 10, counts


ITALIAN = "position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6"
CASTLED = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4"
BEFORE = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


def test_uci_chess960_option_and_the_mismatches():
    """As Stockfish 15.1 answers them: startpos with the option on castles e1h1 and e1g1 is
    then illegal; with it off a Chess960 FEN still loads, castling written as the king's
    move; a malformed 960 FEN is refused and the last position kept."""
    out = _talk([
        "uci", "setoption name UCI_Chess960 value true", "isready",
        ITALIAN, "go perft 1",
        ITALIAN + " e1h1", "d",
        ITALIAN + " e1g1", "d",
        "setoption name UCI_Chess960 value false",
        ITALIAN + " e1g1", "d",
        ITALIAN + " e1h1", "d",
        "position fen 4k3/8/8/8/8/8/8/RK5R w HA - 0 1", "go perft 1",
        "position fen 4k3/8/8/8/8/8/8/RK5R w HA - 0 1 moves b1g1", "d",
        "position fen 4k3/8/8/8/8/8/8/RK5R w HG - 0 1", "d",
        "position fen 4k3/8/8/8/8/8/8/1K3R1R w HF - 0 1", "d",
        "quit"])
    assert "option name UCI_Chess960 type check default false" in out
    rows = [l.split(":")[0] for l in out if l.endswith(": 1")]
    assert "e1h1" in rows[:33] and "e1g1" not in rows[:33] and len(rows[:33]) == 33
    fens = [l for l in out if "/" in l and not l.startswith("info")]
    errors = [l for l in out if l.startswith("info string error")]
    assert fens[0] == CASTLED
    assert fens[1] == CASTLED and "castling is e1h1 with UCI_Chess960 on" in errors[0]
    assert fens[2] == CASTLED
    assert fens[3] == CASTLED and "king-takes-rook needs UCI_Chess960" in errors[1]
    assert sorted(rows[33:]) == sorted(
        ["a1a%d" % r for r in range(2, 9)] + ["h1%s1" % f for f in "cdefg"]
        + ["h1h%d" % r for r in range(2, 9)] + ["b1c1", "b1a2", "b1b2", "b1c2", "b1g1", "b1c1"])
    assert fens[4] == "4k3/8/8/8/8/8/8/R4RK1 b - - 1 1"
    assert fens[5] == fens[6] == fens[4] and len(errors) == 4
    assert "no white rook on g1" in errors[2] and "two white rooks" in errors[3]


@pytest.mark.slow
def test_python_chess_client_plays_chess960_games():
    """lichess-bot's client sets UCI_Chess960 for a Chess960 board; complete games of the engine
    against itself at 2+0.02, every move legal (python-chess raises otherwise). The first time
    a side may castle, the client restricts it to its castling moves (go searchmoves): the
    castle must come back as one of them. The last game starts with castling open to both."""
    eng = chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=120)
    starts = [chess.Board.from_chess960_pos(0), chess.Board.from_chess960_pos(959),
              chess.Board("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w AHah - 0 1", chess960=True)]
    castles = 0
    try:
        assert "UCI_Chess960" in eng.options
        for board in starts:
            clock = {chess.WHITE: 2.0, chess.BLACK: 2.0}
            offered = {chess.WHITE: False, chess.BLACK: False}
            while not board.is_game_over(claim_draw=True):
                limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                           white_inc=0.02, black_inc=0.02)
                castling = [m for m in board.legal_moves if board.is_castling(m)]
                only = castling if castling and not offered[board.turn] else None
                offered[board.turn] |= bool(only)
                t0 = time.monotonic()
                result = eng.play(board, limit, root_moves=only,
                                  info=chess.engine.INFO_SCORE | chess.engine.INFO_PV)
                clock[board.turn] += 0.02 - (time.monotonic() - t0)
                assert clock[board.turn] > 0, "lost on time"
                assert result.move in board.legal_moves
                assert only is None or result.move in only
                castles += board.is_castling(result.move)
                board.push(result.move)
            assert board.outcome(claim_draw=True) is not None
    finally:
        eng.quit()
    assert castles >= 2


def _legal_line(board, moves):
    board = board.copy()
    for text in moves:
        move = chess.Move.from_uci(text)
        if move not in board.legal_moves:
            return False
        board.push(move)
    return True


# King c1 between its rooks b1 and e1: both castles are legal, c1b1 and c1e1 in UCI_Chess960.
CASTLES_960 = "1rk1r3/pppq1ppp/2np1n2/4p3/4P3/2NP1N2/PPPQ1PPP/1RK1R3 w EBeb - 0 1"


@pytest.mark.slow
def test_multipv_searchmoves_and_ponder_on_a_chess960_position():
    board = chess.Board(CASTLES_960, chess960=True)
    assert {"c1b1", "c1e1"} <= {m.uci() for m in board.legal_moves if board.is_castling(m)}
    eng = Raw()
    try:
        eng.send("uci", "setoption name UCI_Chess960 value true", "setoption name MultiPV value 3",
                 "isready")
        eng.wait_for("readyok")
        eng.send(f"position fen {CASTLES_960}", "go depth 6")
        out = eng.wait_for("bestmove")
        last = [l.split() for l in out if l.startswith("info depth 6 ")]
        assert sorted(int(l[l.index("multipv") + 1]) for l in last) == [1, 2, 3]
        pvs = [l[l.index("pv") + 1:] for l in last]
        assert len({pv[0] for pv in pvs}) == 3 and all(_legal_line(board, pv) for pv in pvs)
        assert _legal_line(board, [out[-1].split()[1]])

        eng.send("setoption name MultiPV value 1", "go depth 5 searchmoves c1b1 c1e1")
        best = eng.wait_for("bestmove")[-1].split()
        assert best[1] in ("c1b1", "c1e1") and best[2] == "ponder"
        after = board.copy()
        after.push_uci(best[1])
        assert _legal_line(after, [best[3]])

        # ponder on the expected reply, then the opponent plays it
        moves = f"{best[1]} {best[3]}"
        eng.send(f"position fen {CASTLES_960} moves {moves}", "go ponder wtime 3000 btime 3000")
        eng.send("ponderhit")
        reply = eng.wait_for("bestmove")[-1].split()
        after.push_uci(best[3])
        assert _legal_line(after, [reply[1]])
    finally:
        eng.close()


def test_cli_perft_divide_in_chess960_notation_and_960_suite(tmp_path):
    kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    r = subprocess.run([ENGINE, "perft", "2", "--divide", "--chess960", "--fen", kiwipete],
                       capture_output=True, text=True)
    lines = r.stdout.splitlines()
    assert r.returncode == 0 and lines[-1] == "Nodes searched: 2039"
    assert "e1h1: 43" in lines and not any(l.startswith(("e1g1", "e1c1")) for l in lines)
    suite = tmp_path / "five.epd"
    suite.write_text("".join(line for line in open(os.path.join(PERFT_DIR, "perft_fischer960.epd")).readlines()[:5]))
    r = subprocess.run([ENGINE, "perft", "--epd", str(suite), "--depth", "3"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
