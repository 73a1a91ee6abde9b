"""Label quiet positions from games with a stronger engine's search score, for the tuner.

    black-numba label GAMES.pgn [MORE.pgn ...] --out labels.txt
        [--engine /usr/games/stockfish] [--depth 8] [--jobs 2]

Takes the positions the Texel tuner would take (after the opening, not in check, the move
played next quiet), drops repeats, and searches each with the reference engine to a fixed
depth. Writes one line per position: FEN;score from White's view in centipawns;game result
(1, 0.5, 0); positions where the engine's best move is a capture, a promotion or gives check,
or where it reports a mate, are left out: a static evaluation cannot be asked to see those.
"""
import multiprocessing as mp
import os
import sys
import time

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


def add_arguments(ap):
    """The `black-numba label` command line."""
    ap.add_argument("pgn", nargs="+", help="games to take positions from")
    ap.add_argument("--out", required=True, help="labelled positions are written here")
    ap.add_argument("--engine", default="/usr/games/stockfish", help="reference UCI engine")
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="label at most this many positions")


def run(args):
    """Label the positions; returns the exit code (2 for bad arguments)."""
    if not (os.path.isfile(args.engine) and os.access(args.engine, os.X_OK)):
        print(f"black-numba label: engine {args.engine!r} is not an executable file",
              file=sys.stderr)
        return 2
    if args.depth < 1 or args.jobs < 1 or args.limit < 0:
        print("black-numba label: --depth and --jobs must be at least 1, --limit not negative",
              file=sys.stderr)
        return 2
    tr_f, tr_r, te_f, te_r = load_positions(args.pgn)
    seen = set()
    items = []
    for fen, res in zip(tr_f + te_f, list(tr_r) + list(te_r)):
        key = " ".join(fen.split()[:4])
        if key not in seen:
            seen.add(key)
            items.append((fen, float(res)))
    if args.limit:
        items = items[:args.limit]
    chunks = [items[i::args.jobs * 8] for i in range(args.jobs * 8)]
    t0 = time.time()
    with mp.Pool(args.jobs) as pool:
        parts = pool.map(_worker, [(args.engine, args.depth, c) for c in chunks])
    lines = [line for part in parts for line in part]
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(items)} positions searched, {len(lines)} kept, {time.time() - t0:.0f} s")
    return 0
