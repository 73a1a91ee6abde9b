#!/usr/bin/env python3
"""Search speed beside Stockfish in the same run: `black-numba bench` nodes/s against
`stockfish bench 16 1 13` nodes/s (one thread each), and the Bratko-Kopec test at a fixed time
per position through the UCI protocol.

    .venv/bin/python bench/bench_search.py [--depth 13] [--bk-time 1.0] [--bk FILE]

--bk-time 0 leaves the test out; --bk names another EPD test suite (`bm` moves).
"""
import argparse
import os
import sys

import chess
import chess.engine

from common import BENCH, ENGINE, STOCKFISH, our_bench, stockfish_bench


BRATKO_KOPEC = os.path.join(BENCH, "bratko_kopec.epd")


def bratko_kopec(seconds, path=BRATKO_KOPEC):
    solved = 0
    total = 0
    with chess.engine.SimpleEngine.popen_uci(ENGINE) as eng:
        for line in open(path):
            if not line.strip():
                continue
            board, ops = chess.Board.from_epd(line)
            total += 1
            move = eng.play(board, chess.engine.Limit(time=seconds)).move
            ok = move in ops["bm"]
            solved += ok
            print(f"  {ops.get('id', total)}: {board.san(move):7} {'ok' if ok else 'want ' + ' '.join(board.san(m) for m in ops['bm'])}")
    return solved, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=13)
    ap.add_argument("--stockfish", default=STOCKFISH)
    ap.add_argument("--bk-time", type=float, default=1.0, help="seconds a position (0: none)")
    ap.add_argument("--bk", default=BRATKO_KOPEC, help="the EPD test suite")
    args = ap.parse_args()
    ours, sf = our_bench(depth=args.depth), stockfish_bench(binary=args.stockfish)
    bn_nodes, bn_nps, sf_nodes, sf_nps = ours["nodes"], ours["nps"], sf["nodes"], sf["nps"]
    print(f"black_numba bench {args.depth}: {bn_nodes} nodes, {bn_nps:,} nodes/s")
    print(f"stockfish bench 16 1 13: {sf_nodes} nodes, {sf_nps:,} nodes/s")
    print(f"nodes/s ratio black_numba/stockfish: {bn_nps / sf_nps:.2f}")
    if args.bk_time > 0:
        print(f"Bratko-Kopec at {args.bk_time:g} s per position:")
        solved, total = bratko_kopec(args.bk_time, args.bk)
        print(f"solved {solved}/{total}")


if __name__ == "__main__":
    sys.exit(main())
