#!/usr/bin/env python3
"""Throughput of the batch evaluator: positions per second on the CPU (1 thread, all threads)
and, where a CUDA GPU exists, on the GPU: end to end (host bitboards in, scores out; and host
records in, scores out) and the kernel alone (records already on the device, scores left
there), on --gpu-positions (the CPU's positions repeated); for the tapered evaluation and the
shipped network (--eval both, the default).

    .venv/bin/python bench/bench_eval.py [--positions 100000] [--gpu-positions 4000000]
                                         [--repeat 3] [--eval both]
"""
import argparse
import random
import time

import numpy as np

from common import use_checkout

use_checkout()


def random_boards(n, seed=7):
    """n positions from random playouts (our own move generator), packed for the batch path."""
    from black_numba.board.bitboard import TABLES
    from black_numba.board.movegen import legal_moves
    from black_numba.board.position import SIDE, from_fen, make_move
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
    ap.add_argument("--gpu-positions", type=int, default=4_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--eval", choices=("both", "tapered", "nnue"), default="both")
    args = ap.parse_args()
    import numba
    from black_numba.evaluation import netfile
    from black_numba.evaluation.batch import evaluate_cpu, import_cuda_eval
    from black_numba.evaluation.packing import WORDS, compact
    boards, stm = random_boards(args.positions)
    n = len(boards)
    print(f"positions            {n}")
    cuda_eval = import_cuda_eval()
    kinds = ("tapered", "nnue") if args.eval == "both" else (args.eval,)
    for kind in kinds:
        NN = netfile.load(netfile.DEFAULT_NET)[0] if kind == "nnue" else None
        evaluate_cpu(boards[:10], stm[:10], parallel=False, NN=NN)
        evaluate_cpu(boards[:10], stm[:10], NN=NN)
        allc = best_of(lambda: evaluate_cpu(boards, stm, NN=NN), args.repeat)
        if NN is None:      # the network's batch path is parallel only
            one = best_of(lambda: evaluate_cpu(boards, stm, parallel=False), args.repeat)
            print(f"{kind:8} cpu, 1 thread   {n / one:12,.0f} positions/s")
        print(f"{kind:8} cpu, {numba.get_num_threads()} threads  {n / allc:12,.0f} positions/s")
        if cuda_eval.available():
            from numba import cuda
            ev = cuda_eval.CudaEvaluator(NN=NN)
            recs = np.empty((n, WORDS), dtype=np.uint64)
            compact(boards, stm, recs)
            ref = evaluate_cpu(boards, stm, NN=NN)
            assert (ev.evaluate(boards, stm) == ref).all(), "GPU and CPU disagree"
            reps = max(1, args.gpu_positions // n)
            g = n * reps
            gboards, gstm = np.tile(boards, (reps, 1)), np.tile(stm, reps)
            grecs = np.tile(recs, (reps, 1))
            ev.evaluate_records(grecs[:256])
            e2e = best_of(lambda: ev.evaluate(gboards, gstm), args.repeat)
            rec = best_of(lambda: ev.evaluate_records(grecs), args.repeat)
            d_recs, d_out = cuda.to_device(grecs), cuda.device_array(g, dtype=np.int32)

            def kernel_alone():
                ev.launch(d_recs, d_out)
                cuda.synchronize()
            kernel_alone()
            alone = best_of(kernel_alone, args.repeat)
            assert (d_out.copy_to_host()[:n] == ref).all(), "GPU and CPU disagree"
            print(f"{kind:8} cuda, {g:,} positions, bit-exact with the CPU:")
            print(f"{kind:8} cuda end to end, bitboards in {g / e2e:12,.0f} positions/s, "
                  f"{allc / n * g / e2e:.1f}x the CPU's {numba.get_num_threads()} threads")
            print(f"{kind:8} cuda end to end, records in   {g / rec:12,.0f} positions/s")
            print(f"{kind:8} cuda kernel alone            {g / alone:12,.0f} positions/s")
        else:
            print(f"{kind:8} cuda: no GPU here, the CUDA figure is measured only where one exists")


if __name__ == "__main__":
    main()
