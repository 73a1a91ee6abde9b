"""The compiled Syzygy reader (black_numba.tablebase.syzygy / tbprobe) against python-chess's chess.syzygy
on real tables: tests/data/syzygy (3-4 piece) and tests/data/syzygy_more (KRBvKR with cursed
wins, KPvKP with en passant, and what their captures and promotions reach)."""
import os
import random
import shutil
import time

import chess
import chess.syzygy
import numpy as np
import pytest

from black_numba.tablebase import positions, syzygy, tbprobe
from black_numba.board.bitboard import TABLES
from black_numba.board.movegen import legal_moves
from black_numba.board.position import POS_SIZE, SP, STACK, from_fen, make_move, move_to_uci
from conftest import ROOT

DATA = os.path.join(ROOT, "tests", "data")
DIRS = [os.path.join(DATA, "syzygy"), os.path.join(DATA, "syzygy_more")]
PATH = ":".join(DIRS)
CURSED = "8/3B4/8/1R6/5r2/8/3K4/5k2 w - - 0 1"      # KRBvKR, a cursed win in 117 plies
N_RANDOM = 20_000


@pytest.fixture(scope="module")
def tb():
    t = syzygy.Tablebase(PATH)
    yield t
    t.close()


@pytest.fixture(scope="module")
def ref():
    r = chess.syzygy.Tablebase()
    for d in DIRS:
        r.add_directory(d)
    yield r
    r.close()


def _ref_value(ref, board, kind):
    try:
        return ref.probe_wdl(board) if kind == "wdl" else ref.probe_dtz(board)
    except KeyError:
        return "missing"


def _our_values(tb, boards, kind):
    rows = tbprobe.rows_of([from_fen(b.fen()) for b in boards])
    out = np.zeros(len(boards), dtype=np.int64)
    tbprobe.probe_many(TABLES, rows, np.zeros(POS_SIZE, dtype=np.uint64), tb.meta,
                       tbprobe.new_buffer(), np.bool_(kind == "dtz"), out)
    res = []
    for v in out:
        v = int(v)
        if v <= tbprobe.TB_ERROR:
            assert tbprobe.error_kind(v) in (tbprobe.ERR_MISSING_WDL, tbprobe.ERR_MISSING_DTZ)
            res.append("missing")
        else:
            res.append(v)
    return res


def test_index_tables_equal_the_formats():
    assert syzygy.KK_IDX == chess.syzygy.KK_IDX
    assert syzygy.PAWNIDX == chess.syzygy.PAWNIDX
    assert syzygy.PFACTOR == chess.syzygy.PFACTOR
    assert list(syzygy.TRIANGLE) == chess.syzygy.TRIANGLE
    assert list(syzygy.PTWIST) == chess.syzygy.PTWIST


def test_discovery_by_path(tb, tmp_path):
    assert len(tb) == 22 and tb.num_files == 44 and tb.max_pieces == 5 and not tb.errors
    assert {"KRBvKR", "KPvKP", "KQvK", "KRvKR"} <= set(tb.names)
    # ';' works as a separator too; a missing folder is reported, the others still load
    t2 = syzygy.Tablebase(DIRS[0] + ";" + str(tmp_path / "nowhere"))
    assert len(t2) == 6 and len(t2.errors) == 1 and "nowhere" in str(t2.errors[0])
    assert t2.probe_wdl(chess.Board("8/8/8/8/8/8/1Q6/k1K5 b - - 0 1")) == -2
    t2.close()
    with pytest.raises(syzygy.TablebaseError):
        syzygy.Tablebase(str(tmp_path / "nowhere"), strict=True)


def test_known_values(tb, ref):
    cursed = chess.Board(CURSED)
    assert tb.probe_wdl(cursed) == ref.probe_wdl(cursed) == 1
    assert tb.probe_dtz(cursed) == ref.probe_dtz(cursed) > 100
    for fen in ("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1",        # no KBNvK here: missing
                "4k3/8/8/8/8/8/8/4K2R w K - 0 1"):             # castling rights
        board = chess.Board(fen)
        with pytest.raises(KeyError):
            tb.probe_wdl(board)
        with pytest.raises(KeyError):
            ref.probe_wdl(board)
    with pytest.raises(syzygy.MissingTableError, match="KBNvK"):
        tb.probe_dtz(chess.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1"))
    # en passant decides: black's only move is e.p., and it draws
    board = chess.Board("8/8/8/8/3pP3/8/8/k1K5 b - e3 0 1")
    assert tb.probe_wdl(board) == ref.probe_wdl(board)
    assert tb.probe_dtz(board) == ref.probe_dtz(board)


def _sample(rng, n):
    """n boards: random placements of every table's material (KRBvKR and KPvKP most, KPvKP's
    with en-passant squares in a third), and cursed wins and blessed losses walked from the
    known KRBvKR one."""
    tb = syzygy.Tablebase(PATH)
    weights = {"KRBvKR": 6, "KPvKP": 6}
    names = [name for name in tb.names for _ in range(weights.get(name, 1))]
    walked = positions.walk_boards(tb.probe_wdl, chess.Board(CURSED), rng, 40, max_steps=400)
    boards = [s for b in walked for s in positions.symmetric_boards(b)]
    while len(boards) < n:
        name = rng.choice(names)
        b = positions.random_board(name, rng, en_passant=name == "KPvKP" and rng.random() < 0.35)
        if b is not None:
            boards.append(b)
    tb.close()
    return boards


def test_wdl_and_dtz_equal_python_chess_on_random_positions(tb, ref):
    rng = random.Random(51)
    t0 = time.perf_counter()
    boards = _sample(rng, N_RANDOM)
    assert len(boards) == N_RANDOM
    t1 = time.perf_counter()
    mine = {k: _our_values(tb, boards, k) for k in ("wdl", "dtz")}
    t2 = time.perf_counter()
    wdl = [_ref_value(ref, b, "wdl") for b in boards]
    dtz = [_ref_value(ref, b, "dtz") for b in boards]
    t3 = time.perf_counter()
    print(f"sample {t1 - t0:.1f} s, compiled {t2 - t1:.1f} s, python-chess {t3 - t2:.1f} s")
    bad = [(b.fen(), mine["wdl"][i], wdl[i], mine["dtz"][i], dtz[i])
           for i, b in enumerate(boards) if mine["wdl"][i] != wdl[i] or mine["dtz"][i] != dtz[i]]
    assert bad == []
    # the sample covers what it should
    assert {-2, -1, 0, 1, 2} <= set(wdl)
    assert sum(1 for b in boards if any(b.generate_legal_ep())) > 300
    assert sum(1 for b in boards if any(b.generate_legal_captures())) > 3000
    assert sum(1 for v in wdl if v in (-1, 1)) >= 80          # 100 with seed 51


def _copy(tmp_path, names):
    d = tmp_path / "tables"
    d.mkdir(exist_ok=True)
    for n in names:
        src = next(os.path.join(x, n) for x in DIRS if os.path.exists(os.path.join(x, n)))
        shutil.copy(src, d / n)
        os.chmod(d / n, 0o644)
    return d


def test_corrupt_files_give_clear_errors_and_the_rest_still_works(tmp_path, ref):
    d = _copy(tmp_path, ["KQvK.rtbw", "KQvK.rtbz", "KRvK.rtbw", "KRvK.rtbz", "KPvK.rtbw",
                         "KPvK.rtbz", "KRvKR.rtbw", "KRvKR.rtbz", "KRvKP.rtbw"])
    good = syzygy.Tablebase(str(d), strict=True)
    assert len(good) == 5
    good.close()

    def damage(name, fn):
        p = d / name
        data = bytearray(p.read_bytes())
        p.write_bytes(bytes(fn(data)))
        return str(p)

    def flip(at):
        def fn(data):
            data[at] ^= 0xFF
            return data
        return fn

    cases = {
        damage("KRvKP.rtbw", lambda b: b[:-100]): "invalid file size",           # truncated
        damage("KRvK.rtbz", flip(0)): "bad magic",                              # flipped magic
        damage("KPvK.rtbw", flip(6)): "",                                       # a piece code
    }
    # a file named for other material: KRvK's WDL under KQvK's name
    shutil.copy(d / "KRvK.rtbw", d / "KQvK.rtbw")
    cases[str(d / "KQvK.rtbw")] = "not the KQvK"
    # a DTZ file named as WDL
    shutil.copy(d / "KRvKR.rtbz", d / "KQvKR.rtbw")
    cases[str(d / "KQvKR.rtbw")] = "WDL file named as DTZ"
    for path, words in cases.items():
        with pytest.raises(syzygy.TablebaseError) as e:
            syzygy.Tablebase(path=None).add_file(path)
        assert path in str(e.value) and words in str(e.value)
    tb = syzygy.Tablebase(str(d))
    assert sorted(e.path for e in tb.errors) == sorted(cases)
    # the other tables still work and agree with python-chess
    rng = random.Random(7)
    for name in ("KRvKR", "KQvK"):
        boards = [positions.random_board(name, rng) for _ in range(200)]
        for b in boards:
            if name == "KQvK":
                assert tb.get_wdl(b) is None             # its WDL file was the bad one
            else:
                assert tb.probe_wdl(b) == ref.probe_wdl(b)
                assert tb.probe_dtz(b) == ref.probe_dtz(b)
    tb.close()


def test_damaged_blocks_never_crash_or_hang(tmp_path):
    """Bytes flipped in the compressed blocks (beyond what loading checks) give values or a
    TablebaseError naming the file, never a crash or a hang."""
    d = _copy(tmp_path, ["KRvKR.rtbw", "KRvKR.rtbz", "KRvK.rtbw", "KRvK.rtbz"])
    p = d / "KRvKR.rtbw"
    data = bytearray(p.read_bytes())
    rng = random.Random(3)
    tf = syzygy._TableFile(str(p), "KRvKR", False)
    start = min(s.data for s in tf.subs if not s.const and not s.missing)
    tf.close()
    for at in rng.sample(range(start, len(data) - 16), 400):
        data[at] = rng.randrange(256)
    p.write_bytes(bytes(data))
    tb = syzygy.Tablebase(str(d), strict=True)
    errors = values = 0
    t0 = time.perf_counter()
    for _ in range(2000):
        b = positions.random_board("KRvKR", rng)
        try:
            assert -2 <= tb.probe_wdl(b) <= 2
            values += 1
        except syzygy.TablebaseError as e:
            assert "KRvKR.rtbw" in str(e)
            errors += 1
    assert values + errors == 2000
    assert time.perf_counter() - t0 < 60
    tb.close()


def test_closed_tablebase_answers_missing(tmp_path):
    d = _copy(tmp_path, ["KQvK.rtbw", "KQvK.rtbz"])
    tb = syzygy.Tablebase(str(d))
    meta = tb.meta
    pos = from_fen("8/8/8/8/8/8/1Q6/k1K5 b - - 0 1")
    assert tbprobe.probe_wdl(TABLES, pos, meta, tbprobe.new_buffer()) == -2
    tb.close()
    v = tbprobe.probe_wdl(TABLES, pos, meta, tbprobe.new_buffer())
    assert tbprobe.error_kind(v) == tbprobe.ERR_MISSING_WDL


def test_compiled_probes_leave_the_position_unchanged(tb):
    """A search calls the probes with its own position array: make/unmake inside the probe
    must restore it word for word (the undo stack's live entries included; the words above
    its top are scratch), captures and en passant too."""
    rng = random.Random(11)
    boards = [chess.Board(CURSED), chess.Board("8/8/8/8/3pP3/8/8/k1K5 b - e3 0 1")]
    boards += [positions.random_board("KPvKP", rng, en_passant=True) for _ in range(30)]
    boards += [positions.random_board("KRBvKR", rng) for _ in range(30)]
    buf = tbprobe.new_buffer()
    for b in boards:
        pos = from_fen(b.fen())
        # one move played first, as in a search: the undo stack holds a live entry
        quiet = [m for m in legal_moves(pos) if (m >> 12) in (0, 1)]
        if quiet:
            m = rng.choice(quiet)
            b = b.copy()
            b.push_uci(move_to_uci(m))
            make_move(TABLES, pos, m)
        before = pos.copy()
        w = tbprobe.probe_wdl(TABLES, pos, tb.meta, buf)
        d = tbprobe.probe_dtz(TABLES, pos, tb.meta, buf)
        live = STACK + 2 * int(before[SP])
        assert np.array_equal(pos[:live], before[:live])
        assert (int(w), int(d)) == (tb.probe_wdl(b), tb.probe_dtz(b))
