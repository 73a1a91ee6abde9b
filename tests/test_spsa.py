"""bench/spsa.py: real games between two engine processes whose `Tune` options differ; each
iteration's step follows the SPSA schedules, and a stopped run goes on from its log."""
import json
import os
import subprocess
import sys

from black_numba.params import TUNE

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPENINGS = os.path.join(ROOT, "bench", "openings_holdout.epd")


def _run(log, games):
    cmd = [sys.executable, os.path.join(ROOT, "bench", "spsa.py"), "--games", str(games),
           "--pairs", "1", "--nodes", "200", "--concurrency", "1", "--params",
           "RFP_MARGIN,LMP_BASE", "--openings", OPENINGS, "--log", str(log)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in open(log)]


def test_spsa_steps_follow_the_schedules_and_resume(tmp_path):
    log = tmp_path / "spsa.jsonl"
    rows = _run(log, 4)
    assert [r["k"] for r in rows] == [1, 2]
    rows = _run(log, 8)                       # resumed: two more iterations, four games in all
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
