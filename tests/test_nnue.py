"""The network evaluation: file format, incremental accumulators against a full refresh
(python-chess drives the games), colour symmetry, the search with the network, UCI options."""
import json
import os
import random
import struct

import chess
import numpy as np
import pytest
from numba import njit

from black_numba.evaluation import netfile, nnue, simd
from black_numba.board.bitboard import TABLES
from black_numba.search.limits import Limits
from black_numba.board.movegen import legal_moves, parse_uci_move
from black_numba.board.position import (
    from_fen, make_move, make_null, unmake_move, unmake_null,
)
from conftest import Raw

DEFAULT = netfile.DEFAULT_NET


def random_net(hidden, seed, scale=60, activation=nnue.CRELU, buckets=1, mirror=False,
               kings="none"):
    rng = np.random.default_rng(seed)
    kmap = nnue.KING_LAYOUTS[kings]
    rows = nnue.FEATURES * (max(kmap) + 1)
    return nnue.pack(rng.integers(-scale, scale, (rows, hidden)).astype(np.int16),
                     rng.integers(-scale, 4 * scale, hidden).astype(np.int16),
                     rng.integers(-127, 128, (buckets, 2 * hidden)).astype(np.int16),
                     rng.integers(-20000, 20000, buckets), activation, mirror,
                     None if kings == "none" else kmap)


def full(NN, pos, stm=None):
    acc = np.zeros((2, nnue.MAX_HIDDEN), dtype=np.int16)
    return int(nnue.evaluate_board(NN, pos, np.int64(pos[15] if stm is None else stm), acc))


@pytest.fixture(scope="module")
def shipped():
    return netfile.load(DEFAULT)[0]


# -- the file ------------------------------------------------------------------------------
def test_net_file_round_trip_and_header(tmp_path):
    NN = random_net(48, 1)
    path = str(tmp_path / "n.bnn")
    head = netfile.save(path, NN, trained={"seed": 5})
    NN2, head2 = netfile.load(path)
    assert np.array_equal(NN, NN2)
    assert head2["architecture"] == "768->48x2->1 crelu" and head2["hidden"] == 48
    assert head2["weights_sha256"] == head["weights_sha256"] == netfile.weights_hash(NN)
    assert head2["trained"] == {"seed": 5}
    assert list(nnue.unpack(NN2)[3]) == list(nnue.unpack(NN)[3])


def test_output_buckets_round_trip_and_follow_the_piece_count(tmp_path):
    NN = random_net(32, 12, scale=200, buckets=8)
    path = str(tmp_path / "b.bnn")
    netfile.save(path, NN)
    NN2, head = netfile.load(path)
    assert head["architecture"] == "768->32x2->1 crelu, 8 output buckets by piece count"
    assert head["output_buckets"] == 8 and np.array_equal(NN, NN2)
    ft_w, ft_b, out_w, out_b = nnue.unpack(NN2)
    assert out_w.shape == (8, 64) and out_b.shape == (8,)
    # 2-5 pieces: bucket 0, ..., 30-32: bucket 7 (4 piece counts a bucket)
    assert [nnue.bucket(NN, k) for k in (2, 5, 6, 9, 10, 29, 30, 32)] == [0, 0, 1, 1, 2, 6, 7, 7]
    assert [nnue.bucket(random_net(8, 1), k) for k in (2, 17, 32)] == [0, 0, 0]
    # the same weights except bucket 7's bias: only a 30-32-piece position changes score
    out_b7 = out_b.copy()
    out_b7[7] += 64 * 255
    NN7 = nnue.pack(ft_w, ft_b, out_w, out_b7)
    start = from_fen()
    ending = from_fen("8/5k2/8/3p4/3P4/8/5K2/8 w - - 0 1")
    assert full(NN7, start) == full(NN, start) + nnue.OUT_SCALE
    assert full(NN7, ending) == full(NN, ending)
    with pytest.raises(ValueError, match="output buckets"):
        nnue.pack(ft_w, ft_b, out_w, out_b[:7])
    with pytest.raises(ValueError, match="output buckets"):
        nnue.pack(ft_w, ft_b, np.zeros((9, 64), np.int16), np.zeros(9, np.int64))


def test_screlu_net_round_trip_and_output_weight_bound(tmp_path):
    NN = random_net(64, 8, activation=nnue.SCRELU)
    path = str(tmp_path / "s.bnn")
    netfile.save(path, NN)
    NN2, head = netfile.load(path)
    assert head["architecture"] == "768->64x2->1 screlu" and NN2[nnue.H_ACT] == nnue.SCRELU
    assert np.array_equal(NN, NN2)
    # SCReLU's int32 sum: N * QA^2 * |w| < 2^31, and QA * |w| within int16
    assert nnue.out_weight_max(512, nnue.SCRELU) == 64
    assert nnue.out_weight_max(256, nnue.SCRELU) == 128
    ft_w, ft_b, out_w, out_b = nnue.unpack(random_net(512, 9))
    with pytest.raises(ValueError, match="output weights beyond"):
        nnue.pack(ft_w, ft_b, np.full_like(out_w, 65), out_b, nnue.SCRELU)
    nnue.pack(ft_w, ft_b, np.full_like(out_w, 65), out_b, nnue.CRELU)


def reference_score(NN, board):
    """The network's centipawns for the side to move, by the formulas of nnue.py's docstring in
    numpy int64 (an oracle beside the engine's incremental int16/int32 code)."""
    ft_w, ft_b, out_w, out_b = (np.asarray(x, dtype=np.int64) for x in nnue.unpack(NN))
    n = len(ft_b)
    # output bucket: piece count 2..32 in B equal ranges of ceil(32 / B)
    pieces = len(board.piece_map())
    b = min(len(out_b) - 1, (pieces - 2) // -(-32 // len(out_b)))
    out_w, out_b = out_w[b], int(out_b[b])
    stm = 0 if board.turn == chess.WHITE else 1
    acc = []
    for p in (stm, stm ^ 1):
        a = ft_b.copy()
        # input mirroring: the view of a side whose king is on files e-h is mirrored a-h
        king = board.king(chess.WHITE if p == 0 else chess.BLACK)
        flip = 7 if NN[nnue.H_MIRROR] and chess.square_file(king) >= 4 else 0
        for sq, piece in board.piece_map().items():
            c = 0 if piece.color == chess.WHITE else 1
            a += ft_w[(c ^ p) * 384 + (piece.piece_type - 1) * 64 + (sq ^ flip ^ (56 * p))]
        acc.append(np.clip((a + 32768) % 65536 - 32768, 0, nnue.QA))
    if NN[nnue.H_ACT] == nnue.SCRELU:
        total = int((acc[0] ** 2) @ out_w[:n] + (acc[1] ** 2) @ out_w[n:])
        score = (total + out_b * nnue.QA) * nnue.OUT_SCALE // (nnue.QA ** 2 * nnue.QB)
    else:
        total = int(acc[0] @ out_w[:n] + acc[1] @ out_w[n:])
        score = (total + out_b) * nnue.OUT_SCALE // (nnue.QA * nnue.QB)
    return max(-nnue.EVAL_LIMIT, min(nnue.EVAL_LIMIT, score))


def test_network_scores_equal_the_formula(shipped, positions):
    nets = [shipped, random_net(128, 10, scale=200),
            random_net(256, 11, scale=200, activation=nnue.SCRELU),
            random_net(64, 13, scale=200, activation=nnue.SCRELU, buckets=8),
            random_net(64, 14, scale=200, buckets=3),
            random_net(64, 15, scale=200, mirror=True),
            random_net(64, 16, scale=200, activation=nnue.SCRELU, buckets=8, mirror=True)]
    for NN in nets:
        for board in positions[::5]:
            assert full(NN, from_fen(board.fen())) == reference_score(NN, board), board.fen()


@njit
def _screlu_dot(a, w, blocks):
    return simd.screlu_dot(a, w, blocks, nnue.QA)


def test_screlu_vector_code_equals_the_sum_written_out():
    """output's SCReLU layer runs whole 16-unit blocks in explicit vector code (simd.py) and
    the rest in a loop: both equal the int64 sum, for hidden sizes with and without a tail,
    accumulators beyond both ends of the clamp and output weights at their bound; the int32
    sum wraps as the scalar loop's does."""
    rng = np.random.default_rng(77)
    for hidden in (8, 16, 40, 255, 384, 512, 768, 1024):
        limit = nnue.out_weight_max(hidden, nnue.SCRELU)
        out_w = rng.integers(-limit, limit + 1, (1, 2 * hidden)).astype(np.int16)
        out_w[0, :4] = (limit, -limit, limit, -limit)
        NN = nnue.pack(np.zeros((nnue.FEATURES, hidden), np.int16), np.zeros(hidden, np.int16),
                       out_w, [12345], nnue.SCRELU)
        for trial in range(4):
            acc = rng.integers(-400, 700, (2, nnue.MAX_HIDDEN)).astype(np.int16)
            v = np.clip(acc[:, :hidden].astype(np.int64), 0, nnue.QA)
            w = out_w.astype(np.int64).reshape(2, hidden)
            blocks = hidden // simd.LANES
            for half in range(2):
                whole = blocks * simd.LANES
                expected = int((v[half, :whole] ** 2) @ w[half, :whole])
                assert _screlu_dot(acc[half], out_w[0, half * hidden:(half + 1) * hidden],
                                   np.int64(blocks)) == expected
            for stm in (0, 1):
                total = int((v[stm] ** 2) @ w[0] + (v[stm ^ 1] ** 2) @ w[1])
                score = (total + 12345 * nnue.QA) * nnue.OUT_SCALE // (nnue.QA ** 2 * nnue.QB)
                assert nnue.output(NN, acc, np.int64(stm), np.int64(20)) == \
                    max(-nnue.EVAL_LIMIT, min(nnue.EVAL_LIMIT, score))
    # beyond the bound the int32 sum wraps, as the scalar loop's does: 1024 * 255^2 * 128
    a = np.full(1024, 300, np.int16)
    w = np.full(1024, 128, np.int16)
    big = 1024 * 255 * 255 * 128
    assert big > 2 ** 31
    assert _screlu_dot(a, w, np.int64(64)) == (big + 2 ** 31) % 2 ** 32 - 2 ** 31


_PURE = """
import json, sys
import numpy as np
from black_numba.evaluation import nnue
NN, acc = np.load(sys.argv[1]), np.load(sys.argv[2])
print(json.dumps([int(nnue.output(NN, acc, np.int64(s), np.int64(20))) for s in (0, 1)]))
"""


def test_the_output_layer_runs_in_numbas_pure_python_mode(tmp_path):
    """Under NUMBA_DISABLE_JIT=1 (the CUDA simulator's mode) the vector code's numpy twin
    gives the same scores."""
    import json
    import subprocess
    import sys
    NN = random_net(40, 21, scale=200, activation=nnue.SCRELU)
    acc = np.random.default_rng(3).integers(-300, 600, (2, nnue.MAX_HIDDEN)).astype(np.int16)
    np.save(tmp_path / "nn.npy", NN)
    np.save(tmp_path / "acc.npy", acc)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, "-c", _PURE, str(tmp_path / "nn.npy"),
                        str(tmp_path / "acc.npy")], env=env, capture_output=True, text=True,
                       timeout=300, cwd=root)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [int(nnue.output(NN, acc, np.int64(s), np.int64(20)))
                                    for s in (0, 1)]


_PORTABLE = """
import json, sys
import numpy as np
from numba import njit
from black_numba.evaluation import nnue, simd

@njit
def dot(a, w, blocks):
    return simd.screlu_dot(a, w, blocks, nnue.QA)

rng = np.random.default_rng(5)
a = rng.integers(-400, 700, 512).astype(np.int16)
w = rng.integers(-60, 61, 512).astype(np.int16)
print(json.dumps([int(dot(a, w, np.int64(b))) for b in (1, 16, 24, 32)]))
"""


def test_screlu_vector_code_without_avx2_gives_the_same_sums(tmp_path):
    """Compiled for a CPU without AVX2 (NUMBA_CPU_NAME=generic: no features), screlu_dot runs
    the generic vector IR in place of vpmaddwd: the same int32 sums as the formula."""
    import json
    import subprocess
    import sys
    env = dict(os.environ, NUMBA_CPU_NAME="generic", NUMBA_CACHE_DIR=str(tmp_path))
    env.pop("NUMBA_CPU_FEATURES", None)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, "-c", _PORTABLE], env=env, capture_output=True,
                       text=True, timeout=300, cwd=root)
    assert r.returncode == 0, r.stderr
    rng = np.random.default_rng(5)
    a = rng.integers(-400, 700, 512).astype(np.int16)
    w = rng.integers(-60, 61, 512).astype(np.int16)
    v = np.clip(a.astype(np.int64), 0, nnue.QA)
    expected = [int((v[:16 * b] ** 2) @ w[:16 * b].astype(np.int64)) for b in (1, 16, 24, 32)]
    assert json.loads(r.stdout) == expected


def test_bad_net_files_are_refused_with_a_reason(tmp_path):
    NN = random_net(16, 2)
    good = str(tmp_path / "good.bnn")
    netfile.save(good, NN)
    data = open(good, "rb").read()
    cases = {
        "missing": (None, "cannot read"),
        "truncated": (data[:-100], "truncated"),
        "header_cut": (data[:30], "truncated header"),
        "magic": (b"XXXXXXXX" + data[8:], "bad magic"),
        "version": (data[:8] + struct.pack("<I", 7) + data[12:], "format version 7"),
        "corrupt": (data[:-10] + bytes(10 * [0x55]), "corrupt"),
        "empty": (b"", "bad magic"),
    }
    for name, (blob, reason) in cases.items():
        path = str(tmp_path / f"{name}.bnn")
        if blob is not None:
            open(path, "wb").write(blob)
        with pytest.raises(netfile.NetError, match=reason):
            netfile.load(path)
    # headers naming another architecture or quantisation, weights intact
    import json
    hlen = struct.unpack("<I", data[12:16])[0]
    head = json.loads(data[16:16 + hlen])
    for change, reason in (({"architecture": "768->16x2->1 sigmoid"}, "architecture"),
                           ({"qa": 127}, "quantisation"), ({"hidden": 17}, "architecture")):
        text = json.dumps(dict(head, **change)).encode()
        path = str(tmp_path / "arch.bnn")
        open(path, "wb").write(data[:12] + struct.pack("<I", len(text)) + text
                               + data[16 + hlen:])
        with pytest.raises(netfile.NetError, match=reason):
            netfile.load(path)


def test_shipped_net_loads_and_names_its_training():
    NN, head = netfile.load(DEFAULT)
    assert 128 <= head["hidden"] <= nnue.MAX_HIDDEN
    t = head["trained"]
    assert t["quantised_held_out_loss"] < t["tapered_held_out_loss"]
    assert os.path.getsize(DEFAULT) < 1_000_000


# -- accumulators ----------------------------------------------------------------------------
def _walk(NN, fen, seed, plies, chess960=False, cached=False):
    """Play a random game; after every move (and a null move now and then) the incrementally
    updated accumulators must equal a refresh, and so must the score. cached: a perspective
    is rebuilt through the refresh cache, as the search does, else from the board."""
    rng = random.Random(seed)
    cache = (np.zeros((2, nnue.CACHE_SLOTS, nnue.MAX_HIDDEN), np.int16),
             np.zeros((2, nnue.CACHE_SLOTS, 12), np.uint64),
             np.zeros((2, nnue.CACHE_SLOTS), np.int64))
    board = chess.Board(fen, chess960=chess960)
    pos = from_fen(fen)
    stack = np.zeros((plies + 2, 2, nnue.MAX_HIDDEN), dtype=np.int16)
    nnue.refresh(NN, pos, stack[0])
    n = int(NN[0])
    kinds = set()
    for ply in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        caps = [m for m in moves if board.is_capture(m) or m.promotion or board.is_castling(m)]
        mv = rng.choice(caps if caps and rng.random() < 0.5 else moves)
        kinds.add("castle" if board.is_castling(mv) else "ep" if board.is_en_passant(mv)
                  else "promo" if mv.promotion else "capture" if board.is_capture(mv) else "quiet")
        m = parse_uci_move(pos, mv.uci(), chess960)
        assert m in set(legal_moves(pos))
        redo = nnue.update(NN, pos, np.int64(m), stack[ply], stack[ply + 1])
        make_move(TABLES, pos, m)
        if redo != nnue.NO_REFRESH:
            # input mirroring or king buckets: the king changed its view (search.do_move)
            kinds.add("king crossed")
            if cached:
                nnue.refresh_cached(NN, pos, stack[ply + 1], redo, *cache)
            else:
                nnue.refresh_side(NN, pos, stack[ply + 1], redo)
        board.push(mv)
        ref = np.zeros((2, nnue.MAX_HIDDEN), dtype=np.int16)
        nnue.refresh(NN, pos, ref)
        assert np.array_equal(stack[ply + 1, :, :n], ref[:, :n]), (board.fen(), mv)
        assert nnue.output(NN, stack[ply + 1], np.int64(pos[15]),
                           len(board.piece_map())) == full(NN, pos)
        if rng.random() < 0.1 and not board.is_check():
            nnue.copy(NN, stack[ply + 1], stack[ply + 2])
            make_null(TABLES, pos)
            assert nnue.output(NN, stack[ply + 2], np.int64(pos[15]),
                               len(board.piece_map())) == full(NN, pos)
            unmake_null(TABLES, pos)
    for _ in range(len(board.move_stack)):
        unmake_move(TABLES, pos)
    assert nnue.output(NN, stack[0], np.int64(pos[15]),
                       len(chess.Board(fen, chess960=chess960).piece_map())) == full(NN, pos)
    return kinds


def test_incremental_update_equals_refresh_in_random_games(shipped):
    kinds = set()
    nets = [shipped, random_net(64, 3), random_net(512, 4, scale=3000),   # this one overflows
            random_net(256, 5, scale=200, activation=nnue.SCRELU),
            random_net(64, 6, scale=200, buckets=8)]
    for g in range(25):
        kinds |= _walk(nets[g % 5], chess.STARTING_FEN, g, 160)
    kinds |= _walk(shipped, "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1", 99, 40)
    assert kinds == {"quiet", "capture", "castle", "ep", "promo"}
    mirrored = [random_net(64, 7, scale=200, mirror=True),
                random_net(128, 8, scale=200, activation=nnue.SCRELU, buckets=8, mirror=True)]
    for g in range(12):
        kinds |= _walk(mirrored[g % 2], chess.STARTING_FEN, 200 + g, 160)
    kinds |= _walk(mirrored[0], "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1", 98, 40)
    assert "king crossed" in kinds


def test_king_bucketed_accumulators_follow_the_king_through_the_refresh_cache():
    """King buckets (with and without input mirroring): every king move into another bucket
    rebuilds its side from the refresh cache, and the accumulators equal a refresh."""
    nets = [random_net(64, 41, scale=200, mirror=True, kings="k4"),
            random_net(128, 42, scale=200, activation=nnue.SCRELU, buckets=8, kings="k8"),
            random_net(32, 43, scale=3000, mirror=True, kings="k8")]    # this one overflows
    kinds = set()
    for g in range(12):
        kinds |= _walk(nets[g % 3], chess.STARTING_FEN, 300 + g, 160, cached=g % 2 == 0)
    kinds |= _walk(nets[0], "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1", 97, 40, True)
    for g, idx in enumerate((0, 518, 959)):
        fen = chess.Board.from_chess960_pos(idx).fen()
        kinds |= _walk(nets[g % 3], fen, 400 + g, 120, chess960=True, cached=True)
    assert {"king crossed", "castle", "promo", "ep"} <= kinds


def test_king_buckets_give_each_bucket_its_own_inputs():
    """The same pieces with the king in another bucket read another set of weights: the
    network array has K sets, and a position's refresh reads its king's set."""
    NN = random_net(32, 44, scale=200, mirror=True, kings="k4")
    assert nnue.kbuckets_of(NN) == 4 and nnue.unpack(NN)[0].shape == (4 * nnue.FEATURES, 32)
    assert nnue.king_map(NN) == nnue.KING_LAYOUTS["k4"]
    castled = full(NN, from_fen("4k3/8/8/8/8/8/8/6K1 w - - 0 1"))      # g1: bucket 0
    central = full(NN, from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1"))      # e1: bucket 1
    mirrored = full(NN, from_fen("3k4/8/8/8/8/8/8/1K6 w - - 0 1"))     # the a-h mirror image
    assert castled != central and castled == mirrored
    plain = random_net(32, 44, scale=200, mirror=True)
    assert nnue.kbuckets_of(plain) == 1 and nnue.king_map(plain) is None
    with pytest.raises(ValueError, match="every bucket"):
        nnue.pack(np.zeros((3 * nnue.FEATURES, 4), np.int16), np.zeros(4, np.int16),
                  np.zeros(8, np.int16), 0, king_map=[0] * 63 + [2])
    with pytest.raises(ValueError, match="feature weights"):
        nnue.pack(np.zeros((nnue.FEATURES, 4), np.int16), np.zeros(4, np.int16),
                  np.zeros(8, np.int16), 0, king_map=nnue.KING_LAYOUTS["k4"])


def test_king_bucketed_net_file_is_version_2_and_older_files_still_load(tmp_path, shipped):
    NN = random_net(32, 45, scale=200, activation=nnue.SCRELU, buckets=8, mirror=True,
                    kings="k8")
    path = str(tmp_path / "k.bnn")
    head = netfile.save(path, NN)
    assert head["king_buckets"] == list(nnue.KING_LAYOUTS["k8"])
    assert head["architecture"] == "8x768->32x2->1 screlu, 8 output buckets by piece count"
    data = open(path, "rb").read()
    assert struct.unpack("<I", data[8:12])[0] == netfile.KING_BUCKETS_VERSION
    NN2, _ = netfile.load(path)
    assert np.array_equal(NN, NN2)
    # version 1 with a king map, or version 2 without one, is not a file this engine wrote
    bad = tmp_path / "bad.bnn"
    bad.write_bytes(data[:8] + struct.pack("<I", 1) + data[12:])
    with pytest.raises(netfile.NetError, match="unreadable header"):
        netfile.load(str(bad))
    plain = random_net(32, 46)
    netfile.save(path, plain)
    data = open(path, "rb").read()
    assert struct.unpack("<I", data[8:12])[0] == netfile.FORMAT_VERSION == 1
    bad.write_bytes(data[:8] + struct.pack("<I", 2) + data[12:])
    with pytest.raises(netfile.NetError, match="unreadable header"):
        netfile.load(str(bad))
    bad.write_bytes(data[:8] + struct.pack("<I", 3) + data[12:])
    with pytest.raises(netfile.NetError, match="versions 1 and 2"):
        netfile.load(str(bad))
    # a crafted map: not whole numbers, out of range, no second bucket, another K than the
    # architecture's: refused with a reason, never a traceback
    body = data[16 + struct.unpack("<I", data[12:16])[0]:]
    head_text = json.dumps(head)
    for old, new, words in (
            (json.dumps(head["king_buckets"]), "[Infinity" + ", 0" * 63 + "]", "unreadable"),
            (json.dumps(head["king_buckets"]), "[0.5" + ", 1" * 63 + "]", "unreadable"),
            (json.dumps(head["king_buckets"]), "[0" + ", 0" * 63 + "]", "unreadable"),
            (json.dumps(head["king_buckets"]), "[16" + ", 1" * 63 + "]", "unreadable"),
            (json.dumps(head["king_buckets"]), json.dumps([min(x, 3) for x in
                                                           head["king_buckets"]]), "says 8")):
        text = head_text.replace(old, new).encode()
        bad.write_bytes(data[:8] + struct.pack("<II", 2, len(text)) + text + body)
        with pytest.raises(netfile.NetError, match=words):
            netfile.load(str(bad))
    # the shipped net and the one before it are version 1 files and load as they did
    assert open(DEFAULT, "rb").read()[8:12] == struct.pack("<I", 1)
    assert nnue.kbuckets_of(shipped) == 1


def test_mirrored_inputs_score_a_position_and_its_a_h_mirror_alike(positions):
    """Under input mirroring a position and its mirror image between the a- and h-files
    (castling rights dropped) have the same inputs, so the same score; the plain inputs do not."""
    nets = [random_net(64, 31, scale=200, mirror=True), random_net(64, 31, scale=200)]
    differ = 0
    for board in positions[::3]:
        board = board.copy()
        board.castling_rights = chess.BB_EMPTY
        board.ep_square = None
        flipped = board.transform(chess.flip_horizontal)
        a, b = (full(nets[0], from_fen(x.fen())) for x in (board, flipped))
        assert a == b, board.fen()
        differ += full(nets[1], from_fen(board.fen())) != full(nets[1], from_fen(flipped.fen()))
    assert differ > 5


def test_mirrored_net_file_round_trip(tmp_path):
    NN = random_net(32, 17, mirror=True)
    path = str(tmp_path / "m.bnn")
    head = netfile.save(path, NN)
    assert head["inputs"] == netfile.INPUTS_MIRRORED
    NN2, _ = netfile.load(path)
    assert np.array_equal(NN, NN2) and NN2[nnue.H_MIRROR] == 1
    assert netfile.load(DEFAULT)[0][nnue.H_MIRROR] == 0      # earlier nets: plain inputs


def test_incremental_update_in_chess960_games(shipped):
    kinds = set()
    for g, idx in enumerate((0, 518, 959, 100, 333, 777)):
        fen = chess.Board.from_chess960_pos(idx).fen()
        kinds |= _walk(shipped, fen, 1000 + g, 200, chess960=True)
    kinds |= _walk(shipped, "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w AHah - 0 1", 7, 30, True)
    assert "castle" in kinds


def test_colour_mirror_scores_the_same_for_the_side_to_move(shipped, positions):
    for board in positions[::7]:
        mirror = board.mirror()
        a = full(shipped, from_fen(board.fen()))
        b = full(shipped, from_fen(mirror.fen()))
        assert a == b, board.fen()


def test_scores_are_sane_on_the_shipped_net(shipped):
    assert abs(full(shipped, from_fen())) < 100
    up_queen = full(shipped, from_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"))
    assert up_queen > 500
    # the same position with Black to move: a queen down
    down = full(shipped, from_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"))
    assert down < -500


# -- the engine --------------------------------------------------------------------------------
def test_search_with_the_network_finds_mates_and_is_deterministic(shipped):
    from black_numba.search.driver import Searcher
    s = Searcher(16)
    s.set_network(shipped)
    s.prepare()
    move, _, score = s.search(from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), Limits(depth=6))
    assert score > 31000
    nodes = []
    for _ in range(2):
        s = Searcher(16)
        s.set_network(shipped)
        s.prepare()
        s.search(from_fen("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"),
                 Limits(depth=8))
        nodes.append(s.nodes())
    assert nodes[0] == nodes[1]


def test_both_evaluations_search_with_the_same_numbers(shipped):
    """One value per tuned number (params.TUNE), read by its M_* index, whichever evaluation
    searches."""
    from black_numba.search import params
    from black_numba.search.driver import Searcher
    values = params.margins()
    assert len(values) == len(params.TUNE)
    assert values[params.M_RFP] == params.RFP_MARGIN == 80
    assert values[params.M_FUTILITY_PER_DEPTH] == params.FUTILITY_PER_DEPTH == 90
    assert values[params.M_PROBCUT] == params.PROBCUT_MARGIN == 100
    assert list(values) == [getattr(params, name) for name in params.TUNE]
    s = Searcher(16)
    assert list(s.EV[2]) == list(values)
    s.set_network(shipped)
    assert list(s.EV[2]) == list(values)
    s.set_network(nnue.NO_NET)
    assert list(s.EV[2]) == list(values)


def _static(eng, fen):
    eng.send(f"position fen {fen}", "eval")
    line = eng.wait_for("info string static eval")[-1]
    return int(line.split()[4])


def test_uci_eval_options_and_bad_net_files(tmp_path, shipped):
    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
    from black_numba.evaluation.batch import evaluate_cpu, pack
    boards, stm, _ = pack([fen])
    tapered = int(evaluate_cpu(boards, stm)[0])
    net = full(shipped, from_fen(fen))
    assert net != tapered
    bad = tmp_path / "bad.bnn"
    bad.write_bytes(open(DEFAULT, "rb").read()[:5000])
    other = tmp_path / "other.bnn"
    netfile.save(str(other), random_net(32, 9))
    eng = Raw()
    try:
        eng.send("uci")
        out = eng.wait_for("uciok")
        assert "option name Use NNUE type check default true" in out
        assert "option name EvalFile type string default <shipped>" in out
        eng.send("isready")
        eng.wait_for("readyok")
        assert _static(eng, fen) == net
        for value in (str(bad), str(tmp_path / "missing.bnn")):
            eng.send(f"setoption name EvalFile value {value}", "isready")
            out = eng.wait_for("readyok")
            assert any(l.startswith("info string error") and "keeping the network" in l
                       for l in out), out
            assert _static(eng, fen) == net
        eng.send("setoption name Use NNUE value false")
        assert _static(eng, fen) == tapered
        eng.send(f"setoption name EvalFile value {bad}", "isready")
        out = eng.wait_for("readyok")      # no network in use: nothing to load
        assert _static(eng, fen) == tapered
        eng.send("setoption name Use NNUE value true", "isready")
        out = eng.wait_for("readyok")
        assert any("keeping the tapered evaluation" in l for l in out), out
        assert _static(eng, fen) == tapered
        eng.send(f"setoption name EvalFile value {other}", "isready")
        out = eng.wait_for("readyok")
        assert out[0].startswith(f"info string NNUE evaluation using {other} (768->32x2->1 crelu")
        assert _static(eng, fen) == full(random_net(32, 9), from_fen(fen))
        eng.send("setoption name EvalFile value default.bnn")       # the old default's name
        assert _static(eng, fen) == net
        eng.send(f"setoption name EvalFile value {other}",
                 "setoption name EvalFile value <shipped>")
        assert _static(eng, fen) == net
        eng.send("position startpos", "go depth 6")
        best = eng.wait_for("bestmove")[-1].split()[1]
        assert chess.Move.from_uci(best) in chess.Board().legal_moves
    finally:
        eng.close()


def test_tuned_numbers_change_the_search(shipped):
    """SPSA's values replace the search's numbers, with either evaluation: a default value
    searches exactly as before, another value searches differently, an unknown name is refused."""
    import pytest
    from black_numba.search import params
    from black_numba.search.driver import Searcher
    from black_numba.search.limits import Limits
    from black_numba.board.position import from_fen
    tuned = params.margins({"RFP_MARGIN": 120, "LMP_BASE": 5})
    plain = params.margins()
    assert tuned[params.M_RFP] == 120 and tuned[params.M_LMP_BASE] == 5
    assert [i for i in range(len(plain)) if tuned[i] != plain[i]] == [params.M_RFP,
                                                                       params.M_LMP_BASE]
    for name, (lo, hi, c) in params.TUNE.items():
        assert lo <= getattr(params, name) <= hi and 0 < c < hi - lo

    def nodes(s):
        s.clear()
        s.prepare()
        s.search(from_fen("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"),
                 Limits(depth=9))
        return s.nodes()

    s = Searcher(16)
    s.set_network(shipped)
    before = nodes(s)
    s.tune("FUTILITY_BASE", params.FUTILITY_BASE)
    assert nodes(s) == before
    s.tune("FUTILITY_BASE", 30)
    s.tune("SEE_PRUNE_PER_DEPTH", 30)
    assert nodes(s) != before
    s.set_network(nnue.NO_NET)          # the tapered evaluation searches with them too
    assert list(s.EV[2]) == list(params.margins({"FUTILITY_BASE": 30, "SEE_PRUNE_PER_DEPTH": 30}))
    assert nodes(s) != nodes(Searcher(16))
    with pytest.raises(ValueError):
        s.tune("MAX_DEPTH", 3)
