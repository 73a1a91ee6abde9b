#!/usr/bin/env python3
"""Search speed beside Stockfish in the same run: `black-numba bench` nodes/s against
`stockfish bench 16 1 13` nodes/s (one thread each), and the Bratko-Kopec test at a fixed time
per position through the UCI protocol.

    .venv/bin/python bench/bench_search.py [--depth 13] [--bk-time 1.0]
"""
import argparse
import os
import re
import subprocess
import sys

import chess
import chess.engine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE = os.path.join(ROOT, "bin", "black-numba")


def bench_nps(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    text = r.stdout + r.stderr
    nodes = int(re.search(r"Nodes searched\s*:\s*(\d+)", text).group(1))
    nps = int(re.search(r"Nodes/second\s*:\s*(\d+)", text).group(1))
    return nodes, nps


def bratko_kopec(seconds):
    path = os.path.join(ROOT, "bench", "bratko_kopec.epd")
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
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", type=int, default=13)
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--bk-time", type=float, default=1.0)
    args = ap.parse_args()
    bn_nodes, bn_nps = bench_nps([ENGINE, "bench", str(args.depth)])
    sf_nodes, sf_nps = bench_nps([args.stockfish, "bench", "16", "1", "13"])
    print(f"black_numba bench {args.depth}: {bn_nodes} nodes, {bn_nps:,} nodes/s")
    print(f"stockfish bench 16 1 13: {sf_nodes} nodes, {sf_nps:,} nodes/s")
    print(f"nodes/s ratio black_numba/stockfish: {bn_nps / sf_nps:.2f}")
    if args.bk_time > 0:
        print(f"Bratko-Kopec at {args.bk_time:g} s per position:")
        solved, total = bratko_kopec(args.bk_time)
        print(f"solved {solved}/{total}")


if __name__ == "__main__":
    sys.exit(main())
