"""Perft counts on the standard suite and the Chess Programming Wiki positions."""
import os
import subprocess

import pytest

from black_numba.frontends.cli import _read_suite
from black_numba.board.perft import divide, perft
from black_numba.board.position import from_fen
from conftest import ENGINE, PERFT_DIR

STANDARD = _read_suite(os.path.join(PERFT_DIR, "perft_standard.epd"), None)
CPW = _read_suite(os.path.join(PERFT_DIR, "cpw_perft_positions.epd"), None)
CHEAP = 3_000_000        # nodes: deeper depths are run up to this size


def _depths(counts, minimum):
    ds = [d for d, c in sorted(counts.items()) if d <= minimum or c <= CHEAP]
    return ds


@pytest.mark.parametrize("no,fen,counts", STANDARD, ids=[str(c[0]) for c in STANDARD])
def test_standard_suite(no, fen, counts):
    pos = from_fen(fen)
    for d in _depths(counts, 4):
        assert perft(pos, d) == counts[d], f"depth {d}"


@pytest.mark.slow
@pytest.mark.parametrize("no,fen,counts", CPW, ids=[str(c[0]) for c in CPW])
def test_cpw_positions_deep(no, fen, counts):
    pos = from_fen(fen)
    limit = 200_000_000
    d = max(d for d, c in counts.items() if c <= limit)
    assert d >= 5
    assert perft(pos, d) == counts[d]


def test_perft_zero_and_divide_sum():
    pos = from_fen()
    assert perft(pos, 0) == 1
    rows = divide(pos, 3)
    assert len(rows) == 20
    assert sum(c for _, c in rows) == 8902
    assert dict(rows)["e2e4"] == 600


def test_cli_perft_suite_and_failure_exit(tmp_path):
    good = tmp_path / "good.epd"
    good.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400 ;D3 8902\n")
    bad = tmp_path / "bad.epd"
    bad.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 401\n")
    r = subprocess.run([ENGINE, "perft", "--epd", str(good)], capture_output=True, text=True)
    assert r.returncode == 0 and "1/1 positions passed, 8902 nodes" in r.stdout
    r = subprocess.run([ENGINE, "perft", "--epd", str(bad)], capture_output=True, text=True)
    assert r.returncode == 1 and "FAIL" in r.stdout and "D2 400/401" in r.stdout


def test_cli_perft_divide_format():
    r = subprocess.run([ENGINE, "perft", "2", "--divide", "--fen",
                        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"],
                       capture_output=True, text=True)
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert lines[-1] == "Nodes searched: 2039"
    assert lines[-2] == ""
    assert "e1g1: 43" in lines and len(lines) == 48 + 2


# -- threads and the hash table --------------------------------------------------------------

import numpy as np  # noqa: E402

from black_numba.board import perft as perft_mod  # noqa: E402
from black_numba.board.bitboard import TABLES  # noqa: E402
from black_numba.frontends.cli import MAX_PERFT_HASH_MB  # noqa: E402
from black_numba.board.movegen import new_move_buffer  # noqa: E402

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
# Same pieces, same rights bit, same Polyglot key; the queen-side right names another rook.
TWIN_A = "4k3/8/8/8/8/8/8/RR2K3 w A - 0 1"
TWIN_B = "4k3/8/8/8/8/8/8/RR2K3 w B - 0 1"


@pytest.mark.parametrize("threads,mb", [(1, 0), (2, 0), (3, 0), (2, 1), (1, 4)])
def test_threads_and_hash_exact_on_suite_sample(threads, mb):
    for no, fen, counts in STANDARD[::9]:
        d = max(d for d in _depths(counts, 3) if d <= 4)
        assert perft(from_fen(fen), d, threads, mb) == counts[d], (no, threads, mb)


def test_divide_order_is_legal_move_order_whatever_the_threads():
    pos = from_fen(KIWIPETE)
    one = divide(pos, 4)
    assert divide(pos, 4, threads=2) == one
    assert divide(pos, 4, threads=3, hash_mb=2) == one
    assert sum(c for _, c in one) == 4085603


def test_one_bucket_table_stays_exact():
    """A deliberately tiny table: every subtree fights for one bucket."""
    table = (np.zeros(perft_mod.BUCKET_WORDS, dtype=np.uint64), np.uint64(0))
    run = perft_mod.Perft(from_fen(KIWIPETE), 4, threads=2, table=table)
    assert sum(run.run(lambda r: None)) == 4085603
    assert table[0].any()                      # it was used


def test_chess960_rook_files_are_part_of_the_key():
    a, b = from_fen(TWIN_A), from_fen(TWIN_B)
    assert a[perft_mod.KEY] == b[perft_mod.KEY]          # Polyglot cannot tell them apart
    assert perft_mod.hash_key(a) != perft_mod.hash_key(b)
    assert perft_mod.check_word(a) != perft_mod.check_word(b)
    want = [perft(from_fen(TWIN_A), 4), perft(from_fen(TWIN_B), 4)]
    assert want[0] != want[1]
    table = perft_mod.new_table(1)
    got = [sum(perft_mod.Perft(from_fen(f), 4, table=table).run()) for f in (TWIN_A, TWIN_B)]
    assert got == want


def _planted(pos, depth, count, tear=False, check=None):
    """A one-bucket table holding an entry for (pos, depth) that says `count`."""
    table = np.zeros(perft_mod.BUCKET_WORDS, dtype=np.uint64)
    mask = np.uint64(0)
    key = perft_mod.hash_key(pos)
    perft_mod.store(table, mask, key, pos, depth, count)
    if tear:      # word 1 from another write of the same slot: a torn entry
        other = (np.uint64(count + 1) << perft_mod.DEPTH_BITS) | np.uint64(depth)
        table[1] = np.uint64(perft_mod.check_word(pos)) ^ other
    if check is not None:
        data = table[2]
        table[1] = np.uint64(check) ^ data
    return table, mask, key


def test_probe_trusts_only_whole_entries():
    pos = from_fen(KIWIPETE)
    table, mask, key = _planted(pos, 3, 97862)
    assert perft_mod.probe(table, mask, key, pos, 3) == 97862
    assert perft_mod.probe(table, mask, key, pos, 2) == -1          # another depth
    table, mask, key = _planted(pos, 3, 12345, tear=True)
    assert perft_mod.probe(table, mask, key, pos, 3) == -1          # torn
    table, mask, key = _planted(pos, 3, 12345, check=0xDEADBEEF)
    assert perft_mod.probe(table, mask, key, pos, 3) == -1          # key alike, check not


@pytest.mark.parametrize("how", ["torn", "check"])
def test_perft_exact_with_a_planted_bad_entry(how):
    """A wrong count planted under the position's own key, torn or with another position's
    check word, is never used: the perft stays exact."""
    pos = from_fen(KIWIPETE)
    table, mask, _ = _planted(pos, 3, 1, tear=how == "torn",
                              check=None if how == "torn" else 0x1234)
    got = perft_mod.perft_nodes(TABLES, pos, np.int64(3), new_move_buffer(), np.int64(0),
                                table, mask, True, pos.copy())
    assert got == 97862


def test_cli_perft_threads_hash_and_bad_arguments():
    r = subprocess.run([ENGINE, "perft", "4", "--threads", "2", "--hash", "8", "--divide",
                        "--fen", KIWIPETE], capture_output=True, text=True)
    assert r.returncode == 0
    assert r.stdout.splitlines()[-1] == "Nodes searched: 4085603"
    assert "\r" not in r.stderr and "nodes/s" in r.stderr    # no progress line off a terminal
    plain = subprocess.run([ENGINE, "perft", "4", "--divide", "--fen", KIWIPETE, "--quiet"],
                           capture_output=True, text=True)
    assert plain.stdout == r.stdout
    for args, msg in ((["--threads", "0"], "--threads: 0 is not between 1 and 512"),
                      (["--threads", "-1"], "--threads: -1 is not between"),
                      (["--hash", "-5"], "--hash: -5 is not between 0 and"),
                      (["--hash", str(MAX_PERFT_HASH_MB + 1)], "--hash:")):
        bad = subprocess.run([ENGINE, "perft", "3"] + args, capture_output=True, text=True)
        assert bad.returncode == 2 and msg in bad.stderr and bad.stdout == ""
        assert len(bad.stderr.strip().splitlines()) == 1


def test_cli_hash_limit_matches_the_module():
    assert MAX_PERFT_HASH_MB == perft_mod.MAX_HASH_MB


def test_perft_class_refuses_bad_values():
    for kw in ({"threads": 0}, {"hash_mb": -1}, {"hash_mb": perft_mod.MAX_HASH_MB + 1}):
        with pytest.raises(ValueError):
            perft_mod.Perft(from_fen(), 3, **kw)
    with pytest.raises(ValueError):
        perft_mod.Perft(from_fen(), -1)
    with pytest.raises(ValueError, match="between 0 and 128, got 129"):
        perft_mod.Perft(from_fen(), 129)      # past the move buffer's plies: it overran it


def test_progress_reports_nodes_while_threads_work():
    seen = []
    run = perft_mod.Perft(from_fen(), 6, threads=2)
    counts = run.run(lambda r: seen.append((r.nodes_done(), r.share_done())), every=0.02)
    assert sum(counts) == 119060324
    assert seen and all(0 <= n <= 119060324 and 0 <= s <= 1 for n, s in seen)
    assert run.nodes_done() == 119060324 and run.share_done() == 1.0


def test_a_hash_move_is_legal_exactly_when_generate_lists_it():
    """hash_move_legal (the search's first stage, a hash move tried before generation) says
    yes to every ordinary legal move and no to everything else: the moves of nearby positions
    (a key collision), random codes, and castling, en passant and promotions (which it leaves
    to generation), on the perft suites' positions and random walks from them (checks, pins,
    double checks, en-passant squares)."""
    import random
    import numpy as np
    from black_numba.board.bitboard import TABLES
    from black_numba.board.move import CAPTURE, DOUBLE_PUSH, QUIET, make_move_code, move_flag
    from black_numba.board.movegen import hash_move_legal, legal_moves
    from black_numba.board.position import OCC_W, SIDE, get_fen, in_check, make_move
    rng = random.Random(7)
    checked = {"yes": 0, "no": 0, "check": 0}
    # double checks whose one checker could be taken (Rxd3) or blocked (Re3), and a pinned
    # rook that may only slide along its pin
    extra = ["4r2k/8/8/8/8/R2n4/8/4K3 w - - 0 1", "4r2k/8/8/8/8/R2n4/4R3/4K3 w - - 0 1",
             "k7/8/8/8/4q3/8/4R3/4K3 w - - 0 1"]
    for _, fen, _ in STANDARD + CPW + [(None, f, None) for f in extra]:
        pos = from_fen(fen)
        recent = []
        for ply in range(24):
            legal = set(legal_moves(pos))
            if not legal:
                break
            checked["check"] += bool(in_check(TABLES, pos))
            codes = set(legal) | {m for r in recent for m in r}
            if ply == 0:
                # every ordinary code from each square of the side to move's pieces
                own = int(pos[OCC_W + pos[SIDE]])
                codes |= {make_move_code(a, b, f) for a in range(64) if own >> a & 1
                          for b in range(64) for f in (QUIET, DOUBLE_PUSH, CAPTURE)}
            codes |= {make_move_code(rng.randrange(64), rng.randrange(64), rng.randrange(16))
                      for _ in range(40)}
            for m in codes:
                want = m in legal and move_flag(m) in (QUIET, DOUBLE_PUSH, CAPTURE)
                assert hash_move_legal(TABLES, pos, np.int64(m)) == want, (get_fen(pos), m)
                checked["yes" if want else "no"] += 1
            recent = (recent + [legal])[-3:]
            make_move(TABLES, pos, rng.choice(sorted(legal)))
    assert checked["yes"] > 10_000 and checked["no"] > 10_000 and checked["check"] > 20, checked
