"""Batch evaluation of many positions: the CPU path (parallel Numba, also the reference for
the CUDA kernel), FEN/EPD loading into packed arrays, and the `black-numba eval` command.

Kept out of the engine's start-up path: a cached ``parallel=True`` function is slow to load.
"""
import sys
import time

import numpy as np
from numba import njit, prange

from black_numba.evaluation import nnue
from black_numba.board.bitboard import TABLES
from black_numba.evaluation.evaluate import WEIGHTS, evaluate
from black_numba.evaluation.packing import WORDS, compact, features
from black_numba.board.position import SIDE, get_fen, new_position, set_fen


@njit(cache=True, parallel=True)
def eval_batch(T, W, boards, stm, out):
    """out[i] = evaluation of boards[i] (White's point of view), all cores."""
    for i in prange(boards.shape[0]):
        side = np.int64(stm[i])
        s = evaluate(T, W, boards[i], side)
        out[i] = s if side == 0 else -s


@njit(cache=True)
def eval_batch_serial(T, W, boards, stm, out):
    """The same on one thread (the reference and the 1-thread benchmark)."""
    for i in range(boards.shape[0]):
        side = np.int64(stm[i])
        s = evaluate(T, W, boards[i], side)
        out[i] = s if side == 0 else -s


@njit(cache=True, parallel=True)
def eval_batch_nnue(NN, recs, out):
    """out[i] = network evaluation of packed record recs[i] (White's view), all cores: the
    CUDA kernel's code path (nnue.evaluate_list), run on the CPU."""
    for i in prange(recs.shape[0]):
        feats = np.empty((2, 32), dtype=np.int32)
        count, side = features(recs[i], feats, NN)
        s = nnue.evaluate_list(NN, feats, count, side)
        out[i] = s if side == 0 else -s


def import_cuda_eval():
    """Import black_numba.evaluation.cuda_eval. numba-cuda's import redirector treats every module name
    containing "numba.cuda" as its own, and "black_numba.evaluation.cuda_eval" does: it recurses until
    RecursionError. So load numba.cuda first (it needs the redirector), then import our module
    with the redirector set aside."""
    mod = sys.modules.get("black_numba.evaluation.cuda_eval")
    if mod is not None:
        return mod
    import importlib
    import numba.cuda  # noqa: F401
    saved = [f for f in sys.meta_path if type(f).__name__ == "NumbaCudaFinder"]
    for f in saved:
        sys.meta_path.remove(f)
    try:
        return importlib.import_module("black_numba.evaluation.cuda_eval")
    finally:
        sys.meta_path[:0] = saved


def fen_of_line(line):
    """The FEN in an EPD/FEN line: 6 fields when the counters are there, else the 4 EPD
    fields (text after ';' and EPD operations are ignored)."""
    text = line.split(";")[0].strip()
    parts = text.split()
    if len(parts) >= 6 and parts[4].isdigit() and parts[5].isdigit():
        return " ".join(parts[:6])
    return " ".join(parts[:4])


def pack(fens):
    """(boards uint64[N, 15], stm int8[N], normalised FENs) for valid FENs; ValueError naming
    the first bad one."""
    n = len(fens)
    boards = np.zeros((n, 15), dtype=np.uint64)
    stm = np.zeros(n, dtype=np.int8)
    pos = new_position()
    out_fens = []
    for i, fen in enumerate(fens):
        try:
            set_fen(pos, fen)
        except ValueError as e:          # named, so that one bad FEN of many can be found
            raise ValueError(f"{fen!r}: {e}") from None
        boards[i] = pos[:15]
        stm[i] = pos[SIDE]
        out_fens.append(get_fen(pos))
    return boards, stm, out_fens


def read_positions(path, log=sys.stderr):
    """(boards, stm, fens) from a file; bad lines are reported with their number and skipped."""
    fens = []
    with open(path) as f:
        for no, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fen = fen_of_line(line)
            try:
                pack([fen])
            except ValueError as e:
                print(f"line {no}: skipped: {e}", file=log)
                continue
            fens.append(fen)
    return pack(fens)


def evaluate_cpu(boards, stm, W=WEIGHTS, parallel=True, NN=None):
    """Scores (White's view) of bitboards [n, 15] and sides [n]: the network NN's when given
    (not nnue.NO_NET), else the tapered evaluation's with weights W."""
    out = np.zeros(boards.shape[0], dtype=np.int32)
    if NN is not None and int(NN[nnue.H_HIDDEN]) != 0:
        recs = np.empty((boards.shape[0], WORDS), dtype=np.uint64)
        compact(boards, stm, recs)
        eval_batch_nnue(NN, recs, out)
        return out
    (eval_batch if parallel else eval_batch_serial)(TABLES, W, boards, stm, out)
    return out


def eval_command(path, device="auto", batch=65536, evaluation="nnue", evalfile=None):
    """`black-numba eval --epd FILE`: one '<fen> ; <score>' line per position (centipawns,
    White's view), a summary on stderr. Evaluates with the shipped network (or evalfile's) as
    the engine does with Use NNUE, or with the tapered evaluation. Returns the exit code."""
    from black_numba.evaluation import netfile
    log = sys.stderr
    if batch < 1:
        print("black-numba eval: --batch must be at least 1", file=log)
        return 2
    NN = None
    if evaluation == "nnue":
        try:
            NN = netfile.load(evalfile or netfile.DEFAULT_NET)[0]
        except netfile.NetError as e:
            print(f"black-numba eval: {e}", file=log)
            return 2
    use_cuda = False
    if device in ("auto", "cuda"):
        cuda_eval = import_cuda_eval()
        use_cuda = cuda_eval.available()
        if not use_cuda:
            if device == "cuda":
                print("black-numba eval: --device cuda: no CUDA GPU is available here "
                      "(use --device cpu or auto)", file=log)
                return 2
            print("black-numba eval: no CUDA GPU found, evaluating on the CPU", file=log)
    try:
        boards, stm, fens = read_positions(path, log)
    except OSError as e:
        print(f"black-numba eval: {e.filename}: {e.strerror}", file=log)
        return 2
    evaluator = cuda_eval.CudaEvaluator(NN=NN) if use_cuda else None
    t0 = time.perf_counter()
    scores = np.zeros(len(fens), dtype=np.int32)
    for s in range(0, len(fens), batch):
        b, m = boards[s:s + batch], stm[s:s + batch]
        scores[s:s + batch] = evaluator.evaluate(b, m) if use_cuda else evaluate_cpu(b, m, NN=NN)
    dt = time.perf_counter() - t0
    out = sys.stdout
    for fen, sc in zip(fens, scores):
        out.write(f"{fen} ; {int(sc)}\n")
    print(f"eval: {len(fens)} positions on {'cuda' if use_cuda else 'cpu'} with the "
          f"{'network' if NN is not None else 'tapered evaluation'} in {dt:.3f} s, "
          f"{len(fens) / max(dt, 1e-9):,.0f} positions/s", file=log)
    return 0
