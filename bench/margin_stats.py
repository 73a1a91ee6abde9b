#!/usr/bin/env python3
"""How far a static evaluation is from the search's score, per evaluation: the basis for the
evaluation-dependent margins of params.py (reverse futility, futility, delta pruning all bet
that the static evaluation is within a margin of what a search finds). For positions sampled
from a training file (FEN | score | result lines, e.g. datagen output), each evaluation's
static score and its own depth-D search score, both from the side to move's view; printed:
mean and spread of static - search and the quantiles of |static - search|.

    .venv/bin/python bench/margin_stats.py DATA.txt [--positions 600] [--depth 6] [--nets A.bnn]
"""
import argparse
import os
import random

import numpy as np

from common import use_checkout

use_checkout()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--positions", type=int, default=600)
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--nets", nargs="*", default=None, help="network files (default: shipped)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    from black_numba.evaluation import netfile, nnue
    from black_numba.search.driver import Searcher
    from black_numba.search.limits import Limits
    from black_numba.board.position import from_fen
    from black_numba.search.search import static_eval
    with open(args.data) as f:
        lines = f.readlines()
    rng = random.Random(args.seed)
    fens = [rng.choice(lines).split("|")[0].strip() for _ in range(args.positions)]
    nets = [("tapered", nnue.NO_NET)]
    for path in args.nets if args.nets is not None else [netfile.DEFAULT_NET]:
        nets.append((os.path.basename(path), netfile.load(path)[0]))
    print(f"{len(fens)} positions from {os.path.basename(args.data)}, depth {args.depth}")
    for name, NN in nets:
        s = Searcher(16)
        s.set_network(NN)
        diffs = []
        for fen in fens:
            pos = from_fen(fen)
            static = int(static_eval(s.T, s.EV, pos))
            s.clear()
            s.prepare()
            _, _, score = s.search(from_fen(fen), Limits(depth=args.depth))
            if abs(score) < 10000:
                diffs.append(static - score)
        d = np.array(diffs, dtype=float)
        q = np.quantile(np.abs(d), [0.5, 0.75, 0.9, 0.95])
        print(f"{name:>24}: static - search mean {d.mean():+6.1f} sd {d.std():6.1f}; "
              f"|static - search| quantiles 50% {q[0]:.0f} 75% {q[1]:.0f} 90% {q[2]:.0f} "
              f"95% {q[3]:.0f} ({len(d)} positions)")


if __name__ == "__main__":
    raise SystemExit(main())
