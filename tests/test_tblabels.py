"""Exact endgame labels for the trainer (tblabels.py, `train --syzygy`): python-chess's own
Syzygy prober on the same tables is the oracle."""
import io
import os
import random
import subprocess

import chess
import chess.syzygy
import pytest

from black_numba.evaluation import netfile
from black_numba.tablebase.positions import random_board
from black_numba.training import dataset, reproduce, tblabels, train
from black_numba.training.train import TrainConfig
from conftest import ENGINE, ROOT

TABLES = os.path.join(ROOT, "tests", "data", "syzygy")      # KQvK KRvK KPvK KBvK KNvK KRvKR
SAMPLE = os.path.join(ROOT, "tests", "data", "train_sample.txt")
FLOOR = tblabels.TB_WIN_FLOOR


def expected(board, score, oracle):
    """The rule, from python-chess's WDL: a win at least FLOOR, a loss at most -FLOOR, a
    draw (cursed and blessed too) 0, White's view."""
    wdl = oracle.probe_wdl(board)
    if board.turn == chess.BLACK:
        wdl = -wdl
    return max(score, FLOOR) if wdl == 2 else min(score, -FLOOR) if wdl == -2 else 0


def write_data(path):
    """A text data file of random table positions (and KBvKN's, with no table here) followed
    by 40 positions with more pieces; returns the labels the rule gives them."""
    rng = random.Random(7)
    rows, want = [], []
    with chess.syzygy.open_tablebase(TABLES) as oracle:
        for name in ("KQvK", "KRvK", "KPvK", "KBvK", "KNvK", "KRvKR", "KvKQ", "KvKR", "KBvKN"):
            w, b = name.split("v")
            for _ in range(25):
                board = random_board(name, rng)
                score = rng.choice((-1200, -300, -40, 0, 35, 250, 900))
                result = rng.choice((0.0, 0.5, 1.0))
                rows.append(f"{board.fen()} | {score} | {result}")
                if name == "KBvKN":   # no table here (its captures only draw): the label stays
                    want.append(score)
                else:
                    want.append(expected(board, score, oracle))
    sample = open(SAMPLE).read().splitlines()[:40]               # more pieces: unchanged
    rows += sample
    want += [int(line.split("|")[1]) for line in sample]
    path.write_text("\n".join(rows) + "\n")
    return want


def test_positions_the_tables_hold_take_their_verdict(tmp_path):
    data = tmp_path / "tb.txt"
    want = write_data(data)
    log = io.StringIO()
    st = dataset.Stored(str(data), log)
    stores, summary = tblabels.relabel_stores([st], TABLES, log)
    pieces, stm, score, result = stores[0].read(0, st.n)
    assert score.tolist() == want
    plain = st.read(0, st.n)
    assert (stm == plain[1]).all() and (result == plain[3]).all() and (pieces == plain[0]).all()
    assert summary["labelled"] == 8 * 25 and summary["no_table"] == 25
    assert summary["wins_white"] + summary["draws"] + summary["wins_black"] == 200
    assert summary["wins_white"] > 20 and summary["wins_black"] > 20 and summary["draws"] > 20
    assert summary["max_pieces"] == 4 and summary["tables"] == 6
    # the labels are stored: read back by position, and not computed again
    idx = [3, 77, 199, 230, 240]
    assert stores[0].take(idx)[2].tolist() == [want[i] for i in idx]
    again, _ = tblabels.relabel_stores([st], TABLES, log)
    assert again[0].counts.tolist() == stores[0].counts.tolist()
    assert log.getvalue().count("positions labelled by the tables") == 1


def test_train_with_syzygy_records_the_tables_and_trains_again_alike(tmp_path):
    data = tmp_path / "tb.txt"
    write_data(data)
    net, again = str(tmp_path / "a.bnn"), str(tmp_path / "b.bnn")
    kw = dict(hidden=16, epochs=2, batch=64, lr=3e-3, holdout=0.1, seed=3)
    head = train.train(TrainConfig([str(data)], net, syzygy=TABLES, **kw), quiet=True)
    t = head["trained"]["syzygy"]
    assert t["path"] == TABLES and t["tables"] == 6 and t["rule"] == tblabels.RULE
    assert (t["labelled"], t["no_table"]) == (200, 25)
    plain = train.train(TrainConfig([str(data)], str(tmp_path / "c.bnn"), **kw), quiet=True)
    assert "syzygy" not in plain["trained"]
    assert plain["weights_sha256"] != head["weights_sha256"]
    assert reproduce.like(net, [str(data)], again, log=io.StringIO())
    assert netfile.load(again)[1]["trained"]["syzygy"]["tag"] == t["tag"]


def test_bad_tables_give_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no Syzygy WDL table"):
        tblabels.open_tables(str(tmp_path))
    bad = tmp_path / "KQvK.rtbw"
    bad.write_bytes(b"not a table")
    with pytest.raises(ValueError, match="KQvK.rtbw"):
        tblabels.open_tables(str(tmp_path))
    r = subprocess.run([ENGINE, "train", SAMPLE, "--out", str(tmp_path / "n.bnn"),
                        "--hidden", "8", "--epochs", "1", "--syzygy", str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "--syzygy" in r.stderr and "Traceback" not in r.stderr
