"""numba-cuda batch evaluator: one GPU thread per position, running the very `evaluate` the
search uses (one source, no copy). Weights arrive as a device array, so a tuner can score
many weight vectors without recompiling.

Positions are packed as a 2-D uint64 array ``boards[N, 15]`` (12 piece and 3 occupancy
bitboards) and a side-to-move array ``stm[N]``; scores are int32 centipawns from White's view.
Importing this module does not need a GPU; ``available()`` says whether one is there.
"""
import contextlib
import types as pytypes

import numpy as np
from numba import cuda

from black_numba.bitboard import TABLES
from black_numba.evaluate import WEIGHTS, evaluate

KERNEL_SIGNATURE = "void(uint64[::1], int32[::1], uint64[:, ::1], int8[::1], int32[::1])"
THREADS_PER_BLOCK = 128


@cuda.jit
def eval_kernel(T, W, boards, stm, out):
    """out[i] = evaluation of boards[i] from White's point of view."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        side = np.int64(stm[i])
        s = evaluate(T, W, boards[i], side)
        out[i] = s if side == 0 else -s


def available():
    """True when a CUDA GPU and driver are usable (the simulator counts as one)."""
    try:
        return bool(cuda.is_available())
    except Exception:
        return False


class CudaEvaluator:
    """Keeps the tables and weights on the device between batches."""

    def __init__(self, W=None):
        self.T = cuda.to_device(TABLES)
        self.set_weights(WEIGHTS if W is None else W)

    def set_weights(self, W):
        self.W = cuda.to_device(np.ascontiguousarray(W, dtype=np.int32))

    def evaluate(self, boards, stm):
        n = boards.shape[0]
        out = cuda.device_array(n, dtype=np.int32)
        if n:
            blocks = (n + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
            eval_kernel[blocks, THREADS_PER_BLOCK](self.T, self.W, cuda.to_device(boards),
                                                    cuda.to_device(stm), out)
        return out.copy_to_host()


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


def compile_ptx(cc=(9, 0)):
    """PTX of the kernel and everything it calls for compute capability cc (no GPU needed;
    needs libNVVM, e.g. the nvidia-nvvm wheel)."""
    with _stub_device(cc):
        ptx, _ = cuda.compile_ptx(eval_kernel.py_func, KERNEL_SIGNATURE, cc=cc)
    return ptx
