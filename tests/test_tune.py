"""The Texel tuner (perft/tune_eval.py): its weights module round-trips, its linearisation is
the evaluation's true slope, and its position filter keeps only quiet positions."""
import importlib.util
import os

import chess
import numpy as np

from conftest import PERFT_DIR
from black_numba import evaluate as ev

spec = importlib.util.spec_from_file_location("tune_eval", os.path.join(PERFT_DIR, "tune_eval.py"))
tune = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tune)


def test_weights_module_round_trips(tmp_path):
    path = tmp_path / "weights.py"
    tune.write_module(ev.WEIGHTS.astype(np.int64), path)
    ns = {}
    exec(path.read_text(), ns)
    assert ns["PST_MG"][1][0] == ev.WEIGHTS[ev.W_PST + 64]
    assert len(ns["SAFETY"]) == 64 and len(ns["TERMS"]) == 34
    assert max(len(line) for line in path.read_text().splitlines()) < 100


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
    # perft/label_positions.py lines: FEN;White's score in cp;game result
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
