"""bench/spsa.py: real games between two engine processes whose `Tune` options differ; each
iteration's step follows the SPSA schedules, and a stopped run goes on from its log."""
import json
import os
import subprocess
import sys

from black_numba.search.params import TUNE

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPENINGS = os.path.join(ROOT, "black_numba", "arena", "openings_holdout.epd")


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


def test_write_params_puts_the_last_theta_into_the_tuned_numbers(tmp_path):
    """The confirming build's params.py: each tuned number becomes the log's last theta,
    rounded; everything else stays as it was."""
    params = tmp_path / "params.py"
    source = open(os.path.join(ROOT, "black_numba", "search", "params.py")).read()
    params.write_text(source)
    log = tmp_path / "spsa.jsonl"
    theta = {"RFP_MARGIN": 71.6, "NMP_BASE_R": 3.5, "LMR_HISTORY_DIV": 5404.2}
    log.write_text(json.dumps({"k": 1, "theta": {"RFP_MARGIN": 1.0}}) + "\n"
                   + json.dumps({"k": 2, "theta": theta}) + "\n")
    cmd = [sys.executable, os.path.join(ROOT, "bench", "spsa.py"), "--log", str(log),
           "--write-params", str(params)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    namespace = {}
    exec(params.read_text(), namespace)
    assert (namespace["RFP_MARGIN"], namespace["NMP_BASE_R"]) == (72, 4)
    assert namespace["LMR_HISTORY_DIV"] == 5404
    changed = [line for a, line in zip(source.splitlines(), params.read_text().splitlines())
               if a != line]
    assert len(changed) == 3
    r = subprocess.run(cmd[:3] + [str(tmp_path / "missing.jsonl")] + cmd[4:],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "no such file" in r.stderr
