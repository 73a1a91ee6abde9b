#!/usr/bin/env python3
"""Search speed in endgames with and without Syzygy tables: the same positions (6-8 pieces,
drawn with a seed from the project's own games in data/) searched to a fixed node count on
one thread, once without tables and once with SyzygyPath; prints nodes/s, tbhits and the
share of positions whose best move changed.

    .venv/bin/python bench/syzygy_nps.py [--path ../shared/data/syzygy] [--positions 40]
        [--nodes 200000] [--seed 1] [--fens FILE]

--fens takes the positions from a file (a FEN a line) instead of data/.
"""
import argparse
import time

import common

common.use_checkout()


def measure(fens, nodes, path):
    """(nodes, seconds, tbhits, best moves) of fixed-node searches, a fresh engine."""
    import chess
    import chess.engine
    import black_numba
    total = secs = hits = 0
    moves = []
    options = {"Threads": 1, "Hash": 16}
    if path:
        options["SyzygyPath"] = path
    with black_numba.Engine(options) as engine:
        engine.analyse(chess.Board(), chess.engine.Limit(nodes=1000))     # compiled and warm
        for fen in fens:
            engine.configure({"Clear Hash": None})
            t0 = time.perf_counter()
            info = engine.analyse(chess.Board(fen), chess.engine.Limit(nodes=nodes))
            secs += time.perf_counter() - t0
            total += info["nodes"]
            hits += info.get("tbhits", 0)
            moves.append(info["pv"][0])
    return total, secs, hits, moves


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", default=common.SYZYGY_PATH)
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--nodes", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fens", help="positions from this file (a FEN a line), not data/")
    args = ap.parse_args()
    if args.fens:
        with open(args.fens) as f:
            fens = [line.strip() for line in f if line.strip()][:args.positions]
        source = args.fens
    else:
        fens = common.endgame_fens(args.positions, args.seed)
        source = (f"{common.ENDGAME_PIECES[0]}-{common.ENDGAME_PIECES[1]} pieces from "
                  f"data/")
    print(f"{len(fens)} positions of {source}, {args.nodes:,} nodes each, one thread, "
          f"commit {common.commit_of()}")
    runs = {}
    for label, path in (("without tables", ""), ("with tables", args.path)):
        n, s, hits, moves = measure(fens, args.nodes, path)
        runs[label] = moves
        print(f"{label:15s} {n / s:12,.0f} nodes/s  ({n:,} nodes in {s:.1f} s, tbhits {hits:,})")
    changed = sum(a != b for a, b in zip(runs["without tables"], runs["with tables"]))
    print(f"best move changed in {changed} of {len(fens)} positions")


if __name__ == "__main__":
    main()
