"""numba-cuda batch evaluator: one GPU thread per position, running the very evaluation code
the search uses (one source, no copy): the network (``nnue.evaluate_list``, the same integer
arithmetic as the search's accumulators) or the tapered ``evaluate``. Weights arrive as
device arrays, so a tuner can score many weight vectors without recompiling.

Positions travel as 32-byte records (``packing.py``; the 15-bitboard form was 120 bytes and
its copies were 97% of the time on an H100). ``CudaEvaluator`` keeps pinned host buffers and
device arrays between calls and streams a large batch in chunks over two CUDA streams, so the
copies of one chunk overlap the kernel of the other. Kernels are compiled with
``cache=True``: numba-cuda keeps them on disk beside Numba's CPU cache, so only the first
process pays the compile. Importing this module needs no GPU; ``available()`` says whether
one is there. Scores are int32 centipawns from White's view.
"""
import contextlib
import types as pytypes

import numpy as np
from numba import cuda, int32, uint64

from black_numba.evaluation import nnue
from black_numba.board.bitboard import TABLES
from black_numba.evaluation.evaluate import WEIGHTS, evaluate
from black_numba.evaluation.packing import WORDS, compact, expand, features

KERNEL_SIGNATURE = "void(uint64[::1], int32[::1], uint64[:, ::1], int32[::1])"
NNUE_KERNEL_SIGNATURE = "void(int16[::1], uint64[:, ::1], int32[::1])"
THREADS_PER_BLOCK = 128
CHUNK = 1 << 20                  # positions a stream copies and evaluates at a time


@cuda.jit(cache=True)
def eval_kernel(T, W, recs, out):
    """out[i] = tapered evaluation of record recs[i] from White's point of view."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        bb = cuda.local.array(15, uint64)
        side = expand(recs[i], bb)
        s = evaluate(T, W, bb, side)
        out[i] = s if side == 0 else -s


@cuda.jit(cache=True)
def nnue_kernel(NN, recs, out):
    """out[i] = network evaluation of record recs[i] from White's point of view."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        feats = cuda.local.array((2, 32), int32)
        count, side = features(recs[i], feats, NN)
        s = nnue.evaluate_list(NN, feats, count, side)
        out[i] = s if side == 0 else -s


def available():
    """True when a CUDA GPU and driver are usable (the simulator counts as one)."""
    try:
        return bool(cuda.is_available())
    except Exception:
        return False


class CudaEvaluator:
    """Tables, weights and buffers stay on the device between batches.

    NN: a network array (nnue.py) to evaluate with; None or nnue.NO_NET for the tapered
    evaluation with weights W."""

    def __init__(self, W=None, NN=None, chunk=CHUNK):
        self.T = cuda.to_device(TABLES)
        self.set_weights(WEIGHTS if W is None else W)
        self.set_network(NN)
        self.chunk = chunk
        self.streams = [cuda.stream(), cuda.stream()]
        self._buffers = [None, None]

    def set_weights(self, W):
        self.W = cuda.to_device(np.ascontiguousarray(W, dtype=np.int32))

    def set_network(self, NN):
        use = NN is not None and int(NN[nnue.H_HIDDEN]) != 0
        self.NN = cuda.to_device(np.ascontiguousarray(NN, dtype=np.int16)) if use else None

    def _buffer(self, k):
        """Pinned host input/output and device input/output of stream k (made once)."""
        if self._buffers[k] is None:
            c = self.chunk
            self._buffers[k] = (cuda.pinned_array((c, WORDS), dtype=np.uint64),
                                cuda.pinned_array(c, dtype=np.int32),
                                cuda.device_array((c, WORDS), dtype=np.uint64),
                                cuda.device_array(c, dtype=np.int32))
        return self._buffers[k]

    def evaluate(self, boards, stm):
        """Scores of positions given as bitboards [n, 15] and sides [n]."""
        recs = np.empty((boards.shape[0], WORDS), dtype=np.uint64)
        compact(boards, stm, recs)
        return self.evaluate_records(recs)

    def launch(self, d_recs, d_out, stream=0):
        """Evaluate records already on the device into d_out (no copies, no synchronisation)."""
        m = d_recs.shape[0]
        blocks = (m + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
        if self.NN is not None:
            nnue_kernel[blocks, THREADS_PER_BLOCK, stream](self.NN, d_recs, d_out)
        else:
            eval_kernel[blocks, THREADS_PER_BLOCK, stream](self.T, self.W, d_recs, d_out)

    def evaluate_records(self, recs):
        """Scores of packed records [n, 4] (packing.py)."""
        n = recs.shape[0]
        out = np.empty(n, dtype=np.int32)
        pending = [None, None]

        def finish(k):
            start, m = pending[k]
            self.streams[k].synchronize()
            out[start:start + m] = self._buffers[k][1][:m]
            pending[k] = None

        for j, start in enumerate(range(0, n, self.chunk)):
            k = j & 1
            if pending[k] is not None:
                finish(k)
            stream = self.streams[k]
            h_in, h_out, d_in, d_out = self._buffer(k)
            m = min(self.chunk, n - start)
            h_in[:m] = recs[start:start + m]
            d_in[:m].copy_to_device(h_in[:m], stream=stream)
            self.launch(d_in[:m], d_out[:m], stream)
            d_out[:m].copy_to_host(h_out[:m], stream=stream)
            pending[k] = (start, m)
        for k in (0, 1):
            if pending[k] is not None:
                finish(k)
        return out


@contextlib.contextmanager
def _stub_device(cc):
    """compile_ptx compiles the Numba CPU callees as device functions, and numba-cuda asks the
    current device for its compute capability there; without a GPU, answer for it."""
    import numba.cuda.dispatcher as dispatcher
    original = dispatcher.get_current_device
    dispatcher.get_current_device = lambda: pytypes.SimpleNamespace(compute_capability=cc)
    try:
        yield
    finally:
        dispatcher.get_current_device = original


def compile_ptx(cc=(9, 0), kernel="tapered"):
    """PTX of a kernel ("tapered" or "nnue") and everything it calls for compute capability
    cc (no GPU needed; needs libNVVM, e.g. the nvidia-nvvm wheel)."""
    fn, sig = ((eval_kernel, KERNEL_SIGNATURE) if kernel == "tapered"
               else (nnue_kernel, NNUE_KERNEL_SIGNATURE))
    with _stub_device(cc):
        ptx, _ = cuda.compile_ptx(fn.py_func, sig, cc=cc)
    return ptx
