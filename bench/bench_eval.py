#!/usr/bin/env python3
"""Throughput of the batch evaluator: positions per second on the CPU (1 thread, all threads)
and, where a CUDA GPU exists, on the GPU with the speed-up.

    .venv/bin/python bench/bench_eval.py [--positions 100000] [--repeat 3]
"""
import argparse
import os
import random
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def random_boards(n, seed=7):
    """n positions from random playouts (our own move generator), packed for the batch path."""
    from black_numba.bitboard import TABLES
    from black_numba.movegen import legal_moves
    from black_numba.position import SIDE, from_fen, make_move
    rng = random.Random(seed)
    boards = np.zeros((n, 15), dtype=np.uint64)
    stm = np.zeros(n, dtype=np.int8)
    i = 0
    while i < n:
        pos = from_fen()
        for _ in range(rng.randrange(20, 160)):
            moves = legal_moves(pos)
            if not moves or i >= n:
                break
            make_move(TABLES, pos, np.int64(rng.choice(moves)))
            boards[i] = pos[:15]
            stm[i] = pos[SIDE]
            i += 1
    return boards, stm


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import numba
    from black_numba.batch import evaluate_cpu, import_cuda_eval
    boards, stm = random_boards(args.positions)
    n = len(boards)
    evaluate_cpu(boards[:10], stm[:10], parallel=False)
    evaluate_cpu(boards[:10], stm[:10])
    one = best_of(lambda: evaluate_cpu(boards, stm, parallel=False), args.repeat)
    allc = best_of(lambda: evaluate_cpu(boards, stm), args.repeat)
    print(f"positions            {n}")
    print(f"cpu, 1 thread        {n / one:12,.0f} positions/s")
    print(f"cpu, {numba.get_num_threads()} threads      {n / allc:12,.0f} positions/s")
    cuda_eval = import_cuda_eval()
    if cuda_eval.available():
        ev = cuda_eval.CudaEvaluator()
        ev.evaluate(boards[:256], stm[:256])
        gpu = best_of(lambda: ev.evaluate(boards, stm), args.repeat)
        ref = evaluate_cpu(boards, stm)
        assert (ev.evaluate(boards, stm) == ref).all(), "GPU and CPU disagree"
        print(f"cuda (with copies)   {n / gpu:12,.0f} positions/s, {allc / gpu:.1f}x the CPU")
    else:
        print("cuda                 no GPU here: the CUDA figure is measured only where one exists")


if __name__ == "__main__":
    main()
