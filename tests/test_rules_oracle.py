"""Move generation, FEN, Zobrist keys and make/unmake against python-chess on random games."""
import chess
import chess.polyglot
import numpy as np

from black_numba.board.bitboard import TABLES
from black_numba.board.movegen import legal_moves, parse_uci_move
from black_numba.board.position import (
    BOARD, KEY, SP, STACK, compute_key, from_fen, get_fen, make_move, make_null, move_to_uci, unmake_move,
    unmake_null,
)


def test_positions_are_many(positions):
    assert len(positions) > 3000


def test_legal_move_sets_match(positions):
    for board in positions:
        pos = from_fen(board.fen())
        ours = sorted(move_to_uci(m) for m in legal_moves(pos))
        theirs = sorted(m.uci() for m in board.legal_moves)
        assert ours == theirs, board.fen()


def test_capture_generation_is_captures_and_promotions(positions):
    for board in positions[::3]:
        pos = from_fen(board.fen())
        ours = sorted(move_to_uci(m) for m in legal_moves(pos, captures_only=True))
        theirs = sorted(m.uci() for m in board.legal_moves
                        if board.is_capture(m) or m.promotion)
        assert ours == theirs, board.fen()


def test_fen_round_trip(positions):
    for board in positions:
        pos = from_fen(board.fen())
        assert get_fen(pos) == board.fen(en_passant="xfen")


def test_zobrist_incremental_equals_polyglot_and_unmake_restores(positions):
    for board in positions[::2]:
        pos = from_fen(board.fen())
        before = pos.copy()
        for m in legal_moves(pos):
            make_move(TABLES, pos, np.int64(m))
            child = board.copy(stack=False)
            child.push_uci(move_to_uci(m))
            assert int(pos[KEY]) == chess.polyglot.zobrist_hash(child), (board.fen(), move_to_uci(m))
            assert int(pos[KEY]) == int(compute_key(TABLES, pos))
            unmake_move(TABLES, pos)
            assert np.array_equal(pos[:SP], before[:SP]) and pos[SP] == before[SP]
            assert np.array_equal(pos[BOARD:BOARD + 64], before[BOARD:BOARD + 64])


def test_null_move_round_trip(positions):
    for board in positions[::10]:
        if board.is_check():
            continue
        pos = from_fen(board.fen())
        before = pos.copy()
        make_null(TABLES, pos)
        nb = board.copy(stack=False)
        nb.push(chess.Move.null())
        assert int(pos[KEY]) == chess.polyglot.zobrist_hash(nb)
        unmake_null(TABLES, pos)
        assert np.array_equal(pos[:88], before[:88])


def test_game_replay_keeps_key_history():
    board = chess.Board()
    pos = from_fen()
    keys = []
    for text in "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7".split():
        keys.append(int(pos[KEY]))
        make_move(TABLES, pos, np.int64(parse_uci_move(pos, text)))
        board.push_uci(text)
    assert int(pos[KEY]) == chess.polyglot.zobrist_hash(board)
    assert [int(pos[STACK + 2 * i + 1]) for i in range(len(keys))] == keys


def test_special_moves():
    # en passant that would expose the king along the rank is illegal
    pos = from_fen("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1")
    assert "e5d6" not in [move_to_uci(m) for m in legal_moves(pos)]
    # castling through an attacked square is illegal, out of check too
    pos = from_fen("r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1")
    ms = [move_to_uci(m) for m in legal_moves(pos)]
    assert "e1g1" not in ms and "e1c1" in ms
    pos = from_fen("r3k2r/8/8/8/8/8/8/R3K2r w KQkq - 0 1")      # in check: no castling
    assert not [m for m in legal_moves(pos) if move_to_uci(m) in ("e1c1", "e1g1")]
    pos = from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    ms = [move_to_uci(m) for m in legal_moves(pos)]
    assert "e1c1" in ms and "e1g1" in ms
    # all four promotions, captures too
    pos = from_fen("1n5k/P7/8/8/8/8/8/K7 w - - 0 1")
    ms = {move_to_uci(m) for m in legal_moves(pos)}
    assert {"a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7b8q", "a7b8n"} <= ms
    # double check: only king moves
    pos = from_fen("4k3/8/8/8/8/4n3/8/R4K1q w - - 0 1")
    assert all(move_to_uci(m).startswith("f1") for m in legal_moves(pos))
