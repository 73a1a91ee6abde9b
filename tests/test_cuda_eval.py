"""The CUDA batch evaluator, proven without a GPU: bit-exact under Numba's CUDA simulator,
real PTX for sm_80 and sm_90, and the `eval` command on both devices."""
import json
import os
import subprocess
import sys

import chess
import numpy as np
import pytest

from black_numba.evaluation import netfile
from black_numba.evaluation.batch import evaluate_cpu, import_cuda_eval, pack
from black_numba.board.bitboard import TABLES
from black_numba.evaluation.evaluate import WEIGHTS
from black_numba.evaluation.nnue import NO_NET
from black_numba.board.position import SIDE, WHITE, from_fen
from black_numba.search.search import static_eval
from conftest import ENGINE, ROOT, random_positions

SPECIAL = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",   # promotions pending
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "8/8/4k3/8/8/3K4/4P3/8 b - - 0 1",
    "8/8/8/8/8/8/6k1/4K2R w K - 0 1",
    "rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 0 4",
    "8/P7/8/8/8/8/7p/K6k w - - 0 1",
    # Chess960, Shredder-FEN castling
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "1rk1r3/pppq1ppp/2np1n2/4p3/4P3/2NP1N2/PPPQ1PPP/1RK1R3 w EBeb - 0 1",
    "qrkn1rbb/pp2pppp/2p5/3p4/P2Qn1P1/1P6/2PPPP1P/1RKNNRBB w FBfb - 0 9",
]


@pytest.fixture(scope="module")
def fens():
    boards = random_positions(40, seed=55, max_plies=160)
    picked = [b.fen() for b in boards[::max(1, len(boards) // 240)]]
    return SPECIAL + picked[:240]


_SIM = """
import json, sys, warnings
warnings.simplefilter("ignore")
from black_numba.evaluation import netfile
from black_numba.evaluation.batch import import_cuda_eval, pack
cuda_eval = import_cuda_eval()
assert type(cuda_eval.eval_kernel).__name__ == "FakeCUDAKernel"     # the simulator runs it
fens = json.load(open(sys.argv[1]))
boards, stm, _ = pack(fens)
net = netfile.DEFAULT_NET if sys.argv[2] == "nnue" else sys.argv[2]
NN = netfile.load(net)[0] if sys.argv[2] != "tapered" else None
# a small chunk: several chunks alternate over the two streams and their buffers
ev = cuda_eval.CudaEvaluator(NN=NN, chunk=64)
print(json.dumps([int(x) for x in ev.evaluate(boards, stm)]))
"""


def _simulate(fens, tmp_path, evaluation):
    path = tmp_path / "fens.json"
    path.write_text(json.dumps(fens))
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", NUMBA_DISABLE_JIT="1")
    r = subprocess.run([sys.executable, "-c", _SIM, str(path), evaluation], env=env, cwd=ROOT,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def _search_eval(fens, EV):
    out = []
    for fen in fens:
        pos = from_fen(fen)
        s = int(static_eval(TABLES, EV, pos))
        out.append(s if pos[SIDE] == WHITE else -s)
    return out


@pytest.mark.slow
def test_kernel_under_simulator_is_bit_exact_with_cpu_and_search(fens, tmp_path):
    assert len(fens) >= 200
    gpu = _simulate(fens, tmp_path, "tapered")
    boards, stm, _ = pack(fens)
    cpu = evaluate_cpu(boards, stm).tolist()
    serial = evaluate_cpu(boards, stm, parallel=False).tolist()
    assert gpu == cpu == serial == _search_eval(fens, (WEIGHTS, NO_NET))
    assert len(set(cpu)) > 100


@pytest.mark.slow
def test_network_kernel_under_simulator_equals_the_search_and_mirrors(fens, tmp_path):
    """The kernel's network path (hidden unit by hidden unit, one thread a position) gives the
    compiled search's scores (accumulators built and updated move by move) on every position,
    and a colour-mirrored position scores the negation."""
    NN = netfile.load(netfile.DEFAULT_NET)[0]
    mirrored = [chess.Board(f).mirror().fen() for f in fens[:60]]
    gpu = _simulate(fens + mirrored, tmp_path, "nnue")
    boards, stm, _ = pack(fens)
    cpu = evaluate_cpu(boards, stm, NN=NN).tolist()
    search = _search_eval(fens, (WEIGHTS, NN))
    assert gpu[:len(fens)] == cpu == search
    assert gpu[len(fens):] == [-x for x in gpu[:60]]
    assert len(set(cpu)) > 100
    # the search's own path: accumulators updated along the game, not rebuilt
    from black_numba.evaluation import nnue
    from black_numba.board.movegen import parse_uci_move
    from black_numba.board.position import make_move
    board = chess.Board()
    pos = from_fen()
    stack = np.zeros((2, 2, nnue.MAX_HIDDEN), dtype=np.int16)
    nnue.refresh(NN, pos, stack[0])
    for uci in ("e2e4", "d7d5", "e4d5", "g8f6", "f1b5", "c7c6", "d5c6", "d8d2", "b1d2",
                "b7c6", "b5c6", "c8d7", "c6a8", "e7e5", "g1f3", "f8d6", "e1g1"):
        m = parse_uci_move(pos, uci)
        nnue.update(NN, pos, np.int64(m), stack[0], stack[1])
        make_move(TABLES, pos, m)
        board.push_uci(uci)
        stack[0] = stack[1]
        s = int(nnue.output(NN, stack[0], np.int64(pos[SIDE]), len(board.piece_map())))
        white = s if pos[SIDE] == WHITE else -s
        assert white == int(evaluate_cpu(*pack([board.fen()])[:2], NN=NN)[0])

@pytest.mark.slow
@pytest.mark.parametrize("seed, shape", [
    (21, {}),                                   # SCReLU with 8 output buckets
    (23, {"mirror": True}),                     # input mirroring (nnue.py)
    (25, {"mirror": True, "kings": "k8"}),      # king buckets with input mirroring
], ids=["screlu-bucketed", "mirrored", "king-buckets"])
def test_random_network_kernel_under_simulator_equals_the_search(fens, tmp_path, seed, shape):
    """Each input layout on the GPU path: the kernel equals the CPU batch and the search's
    evaluation, bit for bit."""
    from black_numba.evaluation import nnue
    from test_nnue import random_net
    NN = random_net(64, seed, scale=200, activation=nnue.SCRELU, buckets=8, **shape)
    path = str(tmp_path / "net.bnn")
    netfile.save(path, NN)
    gpu = _simulate(fens, tmp_path, path)
    boards, stm, _ = pack(fens)
    cpu = evaluate_cpu(boards, stm, NN=NN).tolist()
    assert gpu == cpu == _search_eval(fens, (WEIGHTS, NN))
    assert len(set(cpu)) > 100


@pytest.mark.slow
@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
@pytest.mark.parametrize("kernel", ["tapered", "nnue"])
def test_kernel_compiles_to_ptx(cc, kernel):
    cuda_eval = import_cuda_eval()
    ptx = cuda_eval.compile_ptx(cc, kernel)
    assert f".target sm_{cc[0]}{cc[1]}" in ptx
    name = "eval_kernel" if kernel == "tapered" else "nnue_kernel"
    assert ".entry" in ptx and name in ptx
    assert "popc" in ptx           # the SWAR popcount (lsb) became the hardware instruction


def test_weights_are_an_input_of_the_batch_path():
    boards, stm, _ = pack(SPECIAL)
    base = evaluate_cpu(boards, stm)
    from black_numba.evaluation.evaluate import T_TEMPO
    W = WEIGHTS.copy()
    W[T_TEMPO] += 24          # middlegame tempo: + for white to move, - for black
    W[T_TEMPO + 1] += 24
    changed = evaluate_cpu(boards, stm, W)
    assert ((changed - base) == np.where(stm == 0, 24, -24)).all()


def test_eval_command_cpu_and_bad_lines(tmp_path):
    epd = tmp_path / "p.epd"
    epd.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n"
                   "garbage line\n"
                   "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id \"BK.01\";\n"
                   "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20\n")
    r = subprocess.run([ENGINE, "eval", "--epd", str(epd), "--device", "cpu", "--batch", "2"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 3
    fen, score = lines[1].rsplit(" ; ", 1)
    assert fen == "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1"
    pos = from_fen(fen)
    NN = netfile.load(netfile.DEFAULT_NET)[0]
    assert int(score) == -int(static_eval(TABLES, (WEIGHTS, NN), pos))
    assert "line 2" in r.stderr and "positions/s" in r.stderr


def test_eval_command_without_gpu():
    from numba import cuda
    if cuda.is_available():
        pytest.skip("a GPU is present: the no-GPU path cannot be shown here")
    epd = os.path.join(ROOT, "tests", "data", "bratko_kopec.epd")
    r = subprocess.run([ENGINE, "eval", "--epd", epd, "--device", "cuda"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode != 0 and "no CUDA GPU" in r.stderr and r.stdout == ""
    r = subprocess.run([ENGINE, "eval", "--epd", epd], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "evaluating on the CPU" in r.stderr
    assert len(r.stdout.splitlines()) == 24
    r = subprocess.run([ENGINE, "eval", "--epd", "/nonexistent.epd", "--device", "cpu"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "No such file" in r.stderr


@pytest.mark.slow
def test_eval_command_on_the_cuda_device_under_the_simulator():
    """`--device cuda` runs the kernel (here in Numba's simulator) and prints exactly what the
    CPU path prints."""
    epd = os.path.join(ROOT, "tests", "data", "bratko_kopec.epd")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", NUMBA_DISABLE_JIT="1")
    gpu = subprocess.run([ENGINE, "eval", "--epd", epd, "--device", "cuda"], env=env,
                         capture_output=True, text=True, timeout=600)
    assert gpu.returncode == 0, gpu.stderr[-2000:]
    assert "on cuda" in gpu.stderr
    cpu = subprocess.run([ENGINE, "eval", "--epd", epd, "--device", "cpu"],
                         capture_output=True, text=True, timeout=600)
    assert gpu.stdout == cpu.stdout and len(cpu.stdout.splitlines()) == 24


def test_kernels_are_cached_on_disk_beside_the_cpu_cache():
    """Both kernels compile with cache=True into the package's Numba cache folder, so only the
    first process on a machine pays the kernel compile (a hit needs a GPU to show)."""
    from black_numba import cache
    cuda_eval = import_cuda_eval()
    for kernel in (cuda_eval.eval_kernel, cuda_eval.nnue_kernel):
        assert type(kernel._cache).__name__ == "CUDACache"
        assert kernel._cache._cache_path.startswith(cache.cache_dir())


def test_compact_records_round_trip(fens):
    from black_numba.evaluation.packing import WORDS, compact, expand
    boards, stm, _ = pack(fens)
    recs = np.empty((len(fens), WORDS), dtype=np.uint64)
    compact(boards, stm, recs)
    bb = np.zeros(15, dtype=np.uint64)
    for i in range(len(fens)):
        assert expand(recs[i], bb) == stm[i]
        assert np.array_equal(bb, boards[i])
    assert recs.nbytes == 32 * len(fens)

