"""Texel tuning of the evaluation weights from played games.

    black-numba tune GAMES.pgn [MORE.pgn ...] [--out black_numba/evaluation/weights.py]
    (the command: frontends/commands/tune.py; in Python: tune(paths) -> weights)

Positions are taken from the games (after the opening, side to move not in check, the move
played next quiet), each labelled with the game's result. The tuner fits the logistic scale K
of the current evaluation, then minimises the mean squared error between sigmoid(K * eval) and
the results (Texel's method) over the weights that enter the evaluation linearly (material,
piece-square tables, mobility, passed pawns, the scalar terms, the king-danger table), with an
L2 pull towards the current values against overfitting small data. The evaluation is
linearised around the current weights by central differences through the batch evaluator (the
engine's own `evaluate`), minimised with Adam, and re-linearised at the result; a tenth of
the games is held out and both losses are printed. Writes the weights module on request.

With --labels the inputs are positions labelled by `black-numba label` (a reference
engine's search score, optionally mixed with the game result), split a tenth held out.

Measured (2026-11-22):
- Game results as labels: on 127,000 positions from 1,400 of our own games the held-out error
  fell from 0.0968 to 0.0937, yet the tuned weights lost 13-43 (5 draws) to the hand-set ones
  at 4+0.04: results of a weak engine's fast games are too noisy a label at this size.
- Stockfish 15.1 depth-8 scores as labels (138,633 quiet positions from 1,850 of our games):
  --lam 2e-7, 3 rounds: held-out 0.0293 -> 0.0234, largest change 41; +46 Elo (95% -1 .. +95)
  in self-play at 4+0.04 over 160 games: kept (weights.py). --lam 2e-8, 6 rounds: held-out
  0.0200, changes up to 256 (endgame rook 745, knight 455) and -55 Elo in 123 games: a
  closer fit that plays worse, so the L2 pull stays.
"""
import random
import time

import numpy as np

from black_numba.evaluation import weights
from black_numba.evaluation.batch import eval_batch, pack
from black_numba.board.bitboard import TABLES
from black_numba.evaluation.evaluate import (
    W_KING_ATT, W_MAT, W_MOB, W_PASSED, W_PST, W_SAFETY, W_TERMS, WEIGHT_TABLES, WEIGHTS,
)
from black_numba.board.move import code_piece, code_square, piece_square
from black_numba.board.pgn import PgnError, read_game
from black_numba.board.position import PAWN

WEIGHTS_DOC = '''"""Evaluation weights: started from PeSTO tables and hand-set terms, then Texel-tuned.

Written by `black-numba tune --out` (black_numba/training/texel.py) when a tuning run is
kept; its docstring says what was measured. Every weight is declared here once: tables are
diagrams from rank 8 down (white reads square ^ 56), TERMS are (name, middlegame, endgame),
and black_numba/evaluation/evaluate.py derives the weight vector's layout from these
declarations. To add a term, add its line to TERMS (any place) and score it in evaluate.py.
"""'''
MAX_LINE = 99


def load_positions(paths, skip_plies=8, seed=1):
    """(train FENs, train results, test FENs, test results); result is White's score."""
    games = []
    for path in paths:
        with open(path, encoding="utf-8-sig") as f:
            while True:
                try:
                    game = read_game(f)
                except PgnError as e:
                    raise ValueError(f"{path}: game {len(games) + 1}: {e}") from None
                if game is None:
                    break
                res = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(game.headers.get("Result"))
                if res is None:
                    continue
                fens = []
                board = game.board()
                for ply, move in enumerate(game.mainline_moves()):
                    if (ply >= skip_plies and not board.is_check()
                            and not board.is_capture(move) and move.promotion is None):
                        fens.append(board.fen())
                    board.push(move)
                games.append((fens, res))
    random.Random(seed).shuffle(games)
    n_test = max(1, len(games) // 10)
    split = []
    for part in (games[n_test:], games[:n_test]):
        fens = [f for g, _ in part for f in g]
        res = np.array([r for g, r in part for _ in g], dtype=np.float64)
        split += [fens, res]
    return split


def load_labels(paths, mix=1.0, scale=160.0, seed=1):
    """Like load_positions, from `black-numba label` output: the target is mix times the
    reference engine's score as an expected result, sigmoid(cp / scale), plus (1 - mix) times
    the game result. A tenth of the positions is held out."""
    rows = []
    for path in paths:
        with open(path) as f:
            for line in f:
                parts = line.strip().split(";")
                if len(parts) == 3:
                    rows.append((parts[0], float(parts[1]), float(parts[2])))
    random.Random(seed).shuffle(rows)
    n_test = max(1, len(rows) // 10)
    split = []
    for part in (rows[n_test:], rows[:n_test]):
        cp = np.array([r[1] for r in part])
        res = np.array([r[2] for r in part])
        target = mix / (1.0 + np.exp(-cp / scale)) + (1.0 - mix) * res
        split += [[r[0] for r in part], target]
    return split


def tunable():
    """Indices of the weights that enter the evaluation linearly."""
    idx = list(range(W_MAT + 1, W_MAT + 5)) + list(range(W_MAT + 7, W_MAT + 11))
    # piece-square entries, except pawns on the first and last ranks
    idx += [i for i in range(W_PST, W_PST + 768) if code_piece(i - W_PST) % 6 != PAWN
            or 8 <= code_square(i - W_PST) < 56]
    idx += list(range(W_MOB, W_MOB + 12))
    idx += [i for i in range(W_PASSED, W_PASSED + 16) if 1 <= (i - W_PASSED) % 8 <= 6]
    idx += list(range(W_TERMS, W_KING_ATT))
    idx += list(range(W_SAFETY + 1, W_SAFETY + 64))
    return np.array(sorted(set(idx)), dtype=np.int64)


def evaluate_all(W, boards, stm):
    out = np.zeros(len(stm), dtype=np.int64)
    eval_batch(TABLES, W.astype(np.int32), boards, stm, out)
    return out.astype(np.float64)


def jacobian(W, idx, boards, stm, delta=8):
    """d eval / d W[i] for every tunable i (central differences), float32 N x len(idx)."""
    J = np.zeros((len(stm), len(idx)), dtype=np.float32)
    Wf = W.astype(np.int64)
    for k, i in enumerate(idx):
        Wp = Wf.copy()
        Wp[i] += delta
        Wm = Wf.copy()
        Wm[i] -= delta
        J[:, k] = (evaluate_all(Wp, boards, stm) - evaluate_all(Wm, boards, stm)) / (2 * delta)
    return J


def sigmoid(x, K):
    return 1.0 / (1.0 + np.exp(-K * x / 400.0))


def mse(e, r, K):
    return float(np.mean((sigmoid(e, K) - r) ** 2))


def fit_k(e, r):
    best = min(np.arange(0.2, 3.0, 0.02), key=lambda K: mse(e, r, K))
    return float(best)


def adam(J, e0, r, K, lam, steps=1500, lr=1.0):
    """Minimise mean (sigmoid(K (e0 + J d)) - r)^2 + lam * |d|^2 over d."""
    d = np.zeros(J.shape[1], dtype=np.float64)
    m = np.zeros_like(d)
    v = np.zeros_like(d)
    n = len(r)
    for t in range(1, steps + 1):
        e = e0 + J @ d.astype(np.float32)
        s = sigmoid(e, K)
        g_e = 2.0 * (s - r) * s * (1 - s) * K / 400.0 / n
        g = (J.T @ g_e.astype(np.float32)).astype(np.float64) + 2 * lam * d
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        mh = m / (1 - 0.9 ** t)
        vh = v / (1 - 0.999 ** t)
        d -= lr * mh / (np.sqrt(vh) + 1e-12)
    return d


def _wrap(line, indent="        "):
    """Lines of at most MAX_LINE characters, cut after commas."""
    out = []
    while len(line) > MAX_LINE:
        cut = line.rfind(", ", 0, MAX_LINE - 1) + 1
        out.append(line[:cut])
        line = indent + line[cut + 1:]
    out.append(line)
    return out


def module_text(W, term_names=None):
    """The text of the weights module for weight vector W (terms named as in weights.py)."""
    term_names = term_names or [t[0] for t in weights.TERMS]

    def row(vals):
        return "(" + ", ".join(str(int(x)) for x in vals) + ")"

    lines = WEIGHTS_DOC.splitlines()
    for name, off, n in WEIGHT_TABLES:
        if name == "TERMS":
            lines.append("TERMS = (")
            lines.append("    # name, middlegame, endgame")
            for k, term in enumerate(term_names):
                lines.append(f'    ("{term}", {int(W[off + 2 * k])}, {int(W[off + 2 * k + 1])}),')
            lines.append(")")
        elif n == 6 * 64:                 # piece-square tables: one row per piece type
            lines.append(f"{name} = (")
            for t in range(6):
                table = W[off + piece_square(t, 0):off + piece_square(t + 1, 0)]
                lines += _wrap(f"    {row(table)},")
            lines.append(")")
        else:
            lines += _wrap(f"{name} = {row(W[off:off + n])}")
    return "\n".join(lines) + "\n"


def write_module(W, path):
    """Write the weights module black_numba/evaluation/evaluate.py builds its default vector from."""
    with open(path, "w") as f:
        f.write(module_text(W))


def tune(paths, labels=False, mix=1.0, lam=2e-7, rounds=2, steps=1500, log=print):
    """The tapered evaluation's weights (an int64 vector, WEIGHTS' layout) Texel-tuned on the
    positions of `paths` (PGN games, or with labels `black-numba label` files, the engine
    score weighted by mix against the result): `rounds` rounds of linearise and minimise
    (Adam, `steps` steps, an L2 pull of lam towards the current weights). ValueError when
    the inputs hold too few positions to tune and hold out."""
    t0 = time.time()
    if labels:
        tr_f, tr_r, te_f, te_r = load_labels(paths, mix)
    else:
        tr_f, tr_r, te_f, te_r = load_positions(paths)
    if not tr_f or not te_f:
        raise ValueError("too few positions in the inputs to tune and hold out")
    log(f"positions: {len(tr_f)} train, {len(te_f)} held out ({time.time() - t0:.0f} s)")
    tr_b, tr_s, _ = pack(tr_f)
    te_b, te_s, _ = pack(te_f)
    W = WEIGHTS.astype(np.int64).copy()
    idx = tunable()
    e_tr = evaluate_all(W, tr_b, tr_s)
    K = fit_k(e_tr, tr_r)
    e_te = evaluate_all(W, te_b, te_s)
    log(f"K {K:.2f}  train {mse(e_tr, tr_r, K):.6f}  held out {mse(e_te, te_r, K):.6f}")
    for rnd in range(rounds):
        J = jacobian(W, idx, tr_b, tr_s)
        d = adam(J, e_tr, tr_r, K, lam, steps=steps)
        W_new = W.copy()
        W_new[idx] = np.round(W[idx] + d).astype(np.int64)
        # king danger never falls as attack units grow
        W_new[W_SAFETY:W_SAFETY + 64] = np.maximum.accumulate(W_new[W_SAFETY:W_SAFETY + 64])
        e_tr = evaluate_all(W_new, tr_b, tr_s)
        e_te = evaluate_all(W_new, te_b, te_s)
        log(f"round {rnd + 1}: train {mse(e_tr, tr_r, K):.6f}  held out "
            f"{mse(e_te, te_r, K):.6f}  max change {int(np.abs(W_new - WEIGHTS).max())} "
            f"({time.time() - t0:.0f} s)")
        W = W_new
    return W
