#!/usr/bin/env python3
"""How well an evaluation predicts Stockfish's opinion on positions from our own games (not the
training distribution): positions sampled from PGN files (past ply 10, not in check), labelled
by Stockfish 15.1 at --nodes, then for the tapered evaluation and each network the mean
squared error of sigmoid(K * eval / 400) against sigmoid(K_sf * label / 400) and the
correlation. The training data's held-out loss says how well a net fits Stockfish's games;
this says how well it carries over to the positions our search meets.

    .venv/bin/python bench/eval_quality.py GAMES.pgn [...] --nets A.bnn B.bnn [--nodes 20000]
"""
import argparse
import random

import chess
import chess.engine
import numpy as np

from common import popen_stockfish, read_pgn, use_checkout

use_checkout()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pgn", nargs="+")
    ap.add_argument("--nets", nargs="*", default=[])
    ap.add_argument("--nodes", type=int, default=20000)
    ap.add_argument("--rate", type=float, default=0.08, help="share of positions sampled")
    ap.add_argument("--k", type=float, default=3.07, help="logistic scale of the evaluations")
    ap.add_argument("--k-label", type=float, default=3.39, help="logistic scale of the labels")
    args = ap.parse_args()
    from black_numba.evaluation import netfile
    from black_numba.evaluation.batch import evaluate_cpu, pack
    rng = random.Random(1)
    fens = []
    for path in args.pgn:
        for game in read_pgn(path):
            board = game.board()
            for i, mv in enumerate(game.mainline_moves()):
                if i >= 10 and not board.is_check() and rng.random() < args.rate:
                    fens.append(board.fen())
                board.push(mv)
    sf = popen_stockfish()
    kept, labels = [], []
    for fen in fens:
        score = sf.analyse(chess.Board(fen), chess.engine.Limit(nodes=args.nodes))["score"].white()
        if not score.is_mate() and abs(score.score()) <= 2000:
            kept.append(fen)
            labels.append(score.score())
    sf.quit()
    lab = np.array(labels, dtype=float)
    target = 1 / (1 + np.exp(-args.k_label * lab / 400))
    boards, stm, _ = pack(kept)
    print(f"{len(kept)} positions from {len(args.pgn)} PGN files, Stockfish 15.1 at {args.nodes} nodes")
    for name in ["tapered"] + args.nets:
        NN = None if name == "tapered" else netfile.load(name)[0]
        ev = evaluate_cpu(boards, stm, NN=NN).astype(float)
        mse = np.mean((1 / (1 + np.exp(-args.k * ev / 400)) - target) ** 2)
        print(f"{name:40} mse {mse:.5f}  correlation {np.corrcoef(ev, lab)[0, 1]:.4f}  "
              f"mean |eval - label| {np.mean(np.abs(ev - lab)):.0f} cp")


if __name__ == "__main__":
    main()
