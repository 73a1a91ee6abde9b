"""The Texel tuner (black_numba/training/texel.py): it writes the weights module back byte for byte,
its linearisation is the evaluation's true slope, and its position filter keeps only quiet
positions."""

import types

import chess
import numpy as np

from black_numba.evaluation import evaluate as ev
from black_numba.training import texel as tune
from black_numba.evaluation import weights


def test_weights_module_is_regenerated_byte_for_byte(tmp_path):
    """The tuner's writer and weights.py agree: unchanged weights give the same file."""
    path = tmp_path / "weights.py"
    tune.write_module(ev.WEIGHTS.astype(np.int64), path)
    assert path.read_bytes() == open(weights.__file__, "rb").read()
    ns = {}
    exec(path.read_text(), ns)
    assert ns["PST_MG"][1][0] == ev.WEIGHTS[ev.W_PST + 64]
    assert len(ns["SAFETY"]) == 64 and ("TEMPO", 34, 6) in ns["TERMS"]
    assert max(len(line) for line in path.read_text().splitlines()) < 100


def test_terms_are_declared_once_and_laid_out_from_the_declaration(tmp_path):
    """A term added to weights.TERMS gets its own slot in W; every other weight keeps its
    value (nothing shifts silently)."""
    names = [t[0] for t in weights.TERMS]
    assert len(set(names)) == len(names)
    for k, (name, mg, eg) in enumerate(weights.TERMS):
        assert ev.term_index(name) == ev.W_TERMS + 2 * k
        assert (ev.WEIGHTS[ev.term_index(name)], ev.WEIGHTS[ev.term_index(name) + 1]) == (mg, eg)
    # a new term declared in the middle of TERMS: one line, and every table still reads back
    added = types.SimpleNamespace(**{k: v for k, v in vars(weights).items()
                                     if k.isupper()})
    added.TERMS = weights.TERMS[:2] + (("NEW_TERM", 7, 8),) + weights.TERMS[2:]
    W = ev.default_weights(added)
    tables, size = ev.layout(added)
    assert size == ev.W_SIZE + 2
    off = dict((name, o) for name, o, _ in tables)
    assert list(W[off["TERMS"] + 4:off["TERMS"] + 6]) == [7, 8]
    for name, o, n in tables:
        if name != "TERMS":
            assert list(W[o:o + n]) == list(np.array(getattr(weights, name)).reshape(n)), name
    assert list(W[off["TERMS"] + 6:off["TERMS"] + 8]) == list(weights.TERMS[2][1:])


def test_jacobian_is_the_material_slope(positions):
    boards, stm, fens = tune.pack([b.fen() for b in positions[::7]])
    knight_mg = ev.W_MAT + 1
    J = tune.jacobian(ev.WEIGHTS, np.array([knight_mg]), boards, stm)
    for i, fen in enumerate(fens):
        b = chess.Board(fen)
        phase = min(24, sum(len(b.pieces(pt, c)) * inc for pt, inc in
                            ((chess.KNIGHT, 1), (chess.BISHOP, 1), (chess.ROOK, 2),
                             (chess.QUEEN, 4)) for c in chess.COLORS))
        diff = len(b.pieces(chess.KNIGHT, chess.WHITE)) - len(b.pieces(chess.KNIGHT, chess.BLACK))
        slope = diff * phase / 24
        # rounding of the taper and the drawish-material scale leave a small error
        assert abs(J[i, 0] - slope) <= 0.2 or abs(J[i, 0] - slope / 4) <= 0.2, fen


def test_positions_are_quiet_and_labelled(tmp_path):
    pgn = tmp_path / "g.pgn"
    pgn.write_text('[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. Nxe5 Qd4 '
                   '6. Nf3 Qxe4+ 7. Kf1 Bg4 1-0\n')
    tr_f, tr_r, te_f, te_r = tune.load_positions([str(pgn)], skip_plies=4)
    fens = tr_f + te_f
    results = list(tr_r) + list(te_r)
    # plies 4..13: skip the capture moves (Bxc6, dxc6, Nxe5, Qxe4+) and the check (after Qxe4+)
    assert len(fens) == 5 and set(results) == {1.0}
    assert all(not chess.Board(f).is_check() for f in fens)


def test_engine_score_labels(tmp_path):
    # `black-numba label` lines: FEN;White's score in cp;game result
    fens = [b.fen() for b in [chess.Board()] * 20]
    path = tmp_path / "labels.txt"
    path.write_text("".join(f"{f};{160 * (i - 10)};1\n" for i, f in enumerate(fens))
                    + "not;a line\n")
    tr_f, tr_r, te_f, te_r = tune.load_labels([str(path)], mix=1.0)
    assert len(tr_f) == 18 and len(te_f) == 2
    targets = sorted(np.concatenate([tr_r, te_r]))
    assert abs(targets[10] - 0.5) < 1e-12                     # 0 cp is an even game
    assert abs(targets[11] - 1 / (1 + np.exp(-1))) < 1e-12     # 160 cp: sigmoid(1)
    _, mixed, _, mixed_te = tune.load_labels([str(path)], mix=0.5)
    assert abs(sorted(np.concatenate([mixed, mixed_te]))[10] - 0.75) < 1e-12
