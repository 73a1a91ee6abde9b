"""Malformed and impossible FENs raise ValueError naming the problem."""
import chess
import pytest
from hypothesis import given, settings, strategies as st

from conftest import random_positions

from black_numba.board.position import KEY, from_fen, get_fen

BAD = {
    "field count": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq",
    "too many fields": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 7",
    "bad letter": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
    "two white kings": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w KQkq - 0 1",
    "no black king": "rnbqqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",
    "side not to move in check": "4k3/8/8/8/8/8/4R3/4K3 b - - 0 1".replace(" b ", " w "),
    "rank of 9": "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rank of 7": "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "seven ranks": "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "garbage": "hello world this is not chess",
    "empty": "",
    "bad side": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
    "bad castling": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkz - 0 1",
    "bad ep": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1",
    "ep wrong rank": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1",
    "bad counters": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
    "negative clock": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1",
    "pawn on back rank": "rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQq - 0 1",
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_fen_raises_value_error(name):
    with pytest.raises(ValueError) as e:
        from_fen(BAD[name])
    assert str(e.value)


def test_error_names_the_problem():
    with pytest.raises(ValueError, match="king"):
        from_fen(BAD["two white kings"])
    with pytest.raises(ValueError, match="not to move is in check"):
        from_fen(BAD["side not to move in check"])
    with pytest.raises(ValueError, match="9 squares|squares, not 8|empty-square"):
        from_fen(BAD["rank of 9"])


def test_castling_rights_without_pieces_are_dropped():
    pos = from_fen("4k3/8/8/8/8/8/8/4K2R w KQkq - 0 1")
    assert get_fen(pos).split()[2] == "K"


# Real FENs with random single-character edits: many stay valid, many do not.
_REAL = [b.fen() for b in random_positions(30, seed=11)][::5] + [
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"]
_EDITED = st.builds(lambda fen, i, ch: fen[:i % len(fen)] + ch + fen[i % len(fen) + 1:],
                    st.sampled_from(_REAL), st.integers(0, 200),
                    st.sampled_from("rnbqkpRNBQKP12345678/ wb-KQkqe36x0"))


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(alphabet="rnbqkpRNBQKP12345678/ wb-KQkqe36x0", max_size=70),
                 st.sampled_from(_REAL), _EDITED))
def test_random_text_is_parsed_or_rejected(text):
    try:
        pos = from_fen(text)
    except ValueError:
        return
    fen = get_fen(pos)
    again = from_fen(fen)
    assert get_fen(again) == fen and again[KEY] == pos[KEY]
    # python-chess reads it alike; as a Chess960 board, since a castling right with the king
    # off the e-file or the rook off the corner is a Chess960 right (kept, as Stockfish does)
    assert fen == chess.Board(fen, chess960=True).fen(en_passant="fen")


def test_edited_fens_include_valid_ones():
    valid = 0
    for fen in _REAL:
        for i in range(0, len(fen), 3):
            try:
                from_fen(fen[:i] + "1" + fen[i + 1:])
                valid += 1
            except ValueError:
                pass
    assert valid > 20
