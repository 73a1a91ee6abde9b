"""SPSA of the search's numbers (black_numba/arena/spsa.py, `black-numba tune --spsa`): real
games between two engine processes whose `Tune` options differ; each iteration's step follows
the SPSA schedules, a stopped run goes on from its log, the held-out openings are never
drawn, and the log's result is written into a params.py."""
import json
import os
import subprocess
import sys

import pytest

from black_numba.arena import spsa
from black_numba.search.params import SWITCHES, TUNE
from conftest import ROOT

PARAMS_PY = os.path.join(ROOT, "black_numba", "search", "params.py")
OPENINGS = ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -",
            "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq -",
            "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq -"]


def _held_out(n):
    with open(spsa.HOLDOUT) as f:
        return [line for line in f if line.strip()][:n]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "black_numba.frontends.cli", "tune", *args],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_openings_leave_out_the_held_out_set(tmp_path):
    book = tmp_path / "book.epd"
    book.write_text("".join(_held_out(2)) + "".join(f"{fen} c0 \"x\";\n" for fen in OPENINGS))
    assert spsa.read_openings(str(book)) == [fen + " 0 1" for fen in OPENINGS]
    book.write_text("".join(_held_out(3)))
    with pytest.raises(spsa.SpsaError, match="no opening outside the held-out set"):
        spsa.read_openings(str(book))


def test_a_config_names_its_bad_setting():
    with pytest.raises(spsa.SpsaError, match="unknown numbers to tune: \\['NOPE'\\]"):
        spsa.SpsaConfig(names=("RFP_MARGIN", "NOPE")).check()
    with pytest.raises(spsa.SpsaError, match="below one iteration"):
        spsa.SpsaConfig(games=3, pairs=2).check()
    assert spsa.SpsaConfig(games=10, pairs=2).iterations == 2


def test_spsa_steps_follow_the_schedules_and_resume(tmp_path):
    log = tmp_path / "spsa.jsonl"
    openings = [fen + " 0 1" for fen in OPENINGS]

    def play(games):
        config = spsa.SpsaConfig(names=("RFP_MARGIN", "LMP_BASE"), games=games, pairs=1,
                                 nodes=200, concurrency=1)
        theta = spsa.run(config, openings, str(log))
        rows = spsa.read_log(str(log))
        assert theta == rows[-1]["theta"]
        return rows

    assert [r["k"] for r in play(4)] == [1, 2]
    rows = play(8)                            # resumed: two more iterations, four games in all
    assert [r["k"] for r in rows] == [1, 2, 3, 4]
    iterations, big_a = 4, 0.4                # the second run's schedule: 8 games, 1 pair each
    for r in rows[2:]:
        theta = rows[r["k"] - 2]["theta"]
        k = r["k"]
        assert r["result"] in (-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0)
        for name, value in theta.items():
            c_end = TUNE[name][2]
            ck = c_end * iterations ** 0.101 / k ** 0.101
            ak = 0.01 * c_end ** 2 * (big_a + iterations) ** 0.602 / (big_a + k) ** 0.602
            assert r["plus"][name] == round(value + ck * r["delta"][name])
            assert r["minus"][name] == round(value - ck * r["delta"][name])
            expected = value + ak / ck * r["result"] * r["delta"][name]
            assert abs(r["theta"][name] - expected) < 1e-9


def test_write_params_puts_the_last_theta_into_the_tuned_numbers(tmp_path):
    """The confirming build's params.py: each tuned number becomes the log's last theta,
    rounded; everything else stays as it was (through the command)."""
    params = tmp_path / "params.py"
    source = open(PARAMS_PY).read()
    params.write_text(source)
    log = tmp_path / "spsa.jsonl"
    theta = {"RFP_MARGIN": 71.6, "NMP_BASE_R": 3.5, "LMR_HISTORY_DIV": 5404.2}
    log.write_text(json.dumps({"k": 1, "theta": {"RFP_MARGIN": 1.0}}) + "\n"
                   + json.dumps({"k": 2, "theta": theta}) + "\n")
    r = _cli("--spsa", str(log), "--write-params", str(params))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith("RFP_MARGIN: ") and \
        r.stdout.splitlines()[0].endswith(" -> 72")
    namespace = {}
    exec(params.read_text(), namespace)
    assert (namespace["RFP_MARGIN"], namespace["NMP_BASE_R"]) == (72, 4)
    assert namespace["LMR_HISTORY_DIV"] == 5404
    changed = [line for a, line in zip(source.splitlines(), params.read_text().splitlines())
               if a != line]
    assert len(changed) == 3
    r = _cli("--spsa", str(tmp_path / "missing.jsonl"), "--write-params", str(params))
    assert r.returncode == 2 and "no such file" in r.stderr


def test_the_command_asks_for_what_it_lacks(tmp_path):
    r = _cli("--spsa", str(tmp_path / "log.jsonl"))
    assert r.returncode == 2 and "--openings" in r.stderr
    r = _cli("--spsa", str(tmp_path / "log.jsonl"), "--openings", PARAMS_PY, "--params", "NOPE")
    assert r.returncode == 2 and "unknown numbers to tune" in r.stderr
    r = _cli()
    assert r.returncode == 2 and "give games" in r.stderr


def test_spsa_leaves_the_items_off_at_zero_out_unless_named():
    """A step from 0 would switch a candidate item on: the default run tunes every other
    TUNE number, and an item is tuned only when named."""
    names = spsa.SpsaConfig().names
    assert set(names) == set(TUNE) - set(SWITCHES) and "RFP_MARGIN" in names
    assert "NMP_VERIFY_DEPTH" not in names and "SE_MIN_DEPTH" in names
    spsa.SpsaConfig(names=("NMP_VERIFY_DEPTH",)).check()
