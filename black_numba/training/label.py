"""Label quiet positions from games with a stronger engine's search score, for the tuner
(`black-numba label`, frontends/commands/label.py).

Takes the positions the Texel tuner would take (after the opening, not in check, the move
played next quiet), drops repeats, and searches each with the reference engine to a fixed
depth. Writes one line per position: FEN;score from White's view in centipawns;game result
(1, 0.5, 0); positions where the engine's best move is a capture, a promotion or gives check,
or where it reports a mate, are left out: a static evaluation cannot be asked to see those.
"""
import multiprocessing as mp

import chess

from black_numba.training.refengine import MATE_PLIES_MAX
from black_numba.training.texel import load_positions
from black_numba.uci_client import MATE_CP, UciProcess


LABEL_TIMEOUT_S = 600        # a start (a cold compile) or a search to the depth: past it, a hang


def _worker(args):
    """Label a share of the positions with one engine process: its last exact score (no
    bound) and best move at the depth asked."""
    engine, depth, fens = args
    uci = UciProcess([engine])
    try:
        uci.handshake(LABEL_TIMEOUT_S)
        uci.set_option("Threads", 1)
        uci.set_option("Hash", 16)
        uci.ready(LABEL_TIMEOUT_S)
        out = []
        for fen, res in fens:
            best, score, _, _ = uci.go("position fen " + fen, f"go depth {depth}",
                                       LABEL_TIMEOUT_S, exact=True)
            if score is None or abs(score) >= MATE_CP - MATE_PLIES_MAX:
                continue                      # no score, or a mate: not a label
            board = chess.Board(fen)
            move = chess.Move.from_uci(best)
            if board.is_capture(move) or move.promotion or board.gives_check(move):
                continue
            if board.turn == chess.BLACK:
                score = -score
            out.append(f"{fen};{score};{res}")
        return out
    finally:
        uci.close()


def label_positions(pgns, engine, depth=8, jobs=2, limit=0):
    """(positions searched, label lines "FEN;score;result") of the games in pgns (paths),
    each distinct position searched by `engine` (a UCI engine's path) to `depth`, in `jobs`
    processes; at most `limit` positions where limit > 0."""
    tr_f, tr_r, te_f, te_r = load_positions(pgns)
    seen = set()
    items = []
    for fen, res in zip(tr_f + te_f, list(tr_r) + list(te_r)):
        key = " ".join(fen.split()[:4])
        if key not in seen:
            seen.add(key)
            items.append((fen, float(res)))
    if limit:
        items = items[:limit]
    shares = [items[i::jobs * 8] for i in range(jobs * 8)]
    with mp.Pool(jobs) as pool:
        parts = pool.map(_worker, [(engine, depth, share) for share in shares])
    return len(items), [line for part in parts for line in part]
