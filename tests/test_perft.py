"""Perft counts on the standard suite and the Chess Programming Wiki positions."""
import os
import subprocess

import pytest

from black_numba.cli import _read_suite
from black_numba.perft import divide, perft
from black_numba.position import from_fen
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
