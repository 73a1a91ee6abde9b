"""bench/: the scripts run from a clone (nothing reads ../shared/tools), their shared module's
opening split and PGN reading, bench/matches.py's command for `black-numba match`."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT

BENCH = os.path.join(ROOT, "bench")
sys.path.insert(0, BENCH)
import clock_use  # noqa: E402  (bench/clock_use.py)
import common  # noqa: E402  (bench/common.py)

SCRIPTS = sorted(f for f in os.listdir(BENCH) if f.endswith(".py") and f != "common.py")


def test_no_bench_script_needs_the_reference_runner():
    files = [f for f in os.listdir(BENCH) if f.endswith((".py", ".sh"))]
    users = [f for f in files if "shared/tools" in open(os.path.join(BENCH, f)).read()]
    assert files and users == []


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS)
def test_every_script_parses_its_command_line(script):
    r = subprocess.run([sys.executable, os.path.join(BENCH, script), "--help"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "usage" in (r.stdout + r.stderr).lower()


def test_opening_split_is_seeded_and_disjoint(tmp_path):
    src = tmp_path / "book.epd"
    src.write_text("".join(f"position {i}\n" for i in range(40)) + "\n")
    held, rest = common.split_openings(str(src), holdout=10, seed=23)
    assert len(held) == 10 and len(rest) == 30
    assert sorted(held + rest, key=lambda s: int(s.split()[1])) == \
        [f"position {i}\n" for i in range(40)]
    assert common.split_openings(str(src), holdout=10, seed=23) == (held, rest)
    assert common.split_openings(str(src), holdout=10, seed=24)[0] != held


def test_write_rest_leaves_out_the_held_out_sample(tmp_path):
    src = tmp_path / "book.epd"
    src.write_text("".join(f"position {i}\n" for i in range(600)))
    out = tmp_path / "rest.epd"
    assert common.write_rest(str(out), str(src)) == 100
    held = common.split_openings(str(src))[0]
    assert not set(held) & set(out.read_text().splitlines(keepends=True))


def test_clock_use_reads_the_runners_move_comments(tmp_path):
    pgn = tmp_path / "g.pgn"
    pgn.write_text('[White "bn"]\n[Black "sf"]\n[Result "*"]\n[Termination "normal"]\n\n'
                   "1. e4 { +0.30/12 0.250s } 1... e5 { -0.20/14 0.500s } "
                   "2. Nf3 { +0.35/0.75s } *\n\n")
    assert [g.headers["White"] for g in common.read_pgn(str(pgn))] == ["bn"]
    times, ends, low, games = clock_use.clock_use([str(pgn)], "bn", 10.0, 0.1)
    assert games == 1
    assert times[(True, 0)] == [0.25, 0.75] and times[(False, 0)] == [0.5]
    assert ends == [(pytest.approx(10.0 + 0.2 - 1.0), pytest.approx(10.0 + 0.1 - 0.5))]
    assert low == [0, 0]
    # an uneven match: the opponent's own clock (2.5+0.025 here)
    _, ends, low, _ = clock_use.clock_use([str(pgn)], "bn", 10.0, 0.1, 2.5, 0.025)
    assert ends == [(pytest.approx(10.0 + 0.2 - 1.0), pytest.approx(2.5 + 0.025 - 0.5))]


def test_matches_builds_the_runners_command(tmp_path):
    out = tmp_path / "m"
    net = os.path.join(ROOT, "black_numba", "nets", "default.bnn")
    r = subprocess.run([sys.executable, os.path.join(BENCH, "matches.py"), "net", net, "cand",
                        "--limit", "500", "--elo1", "0", "--games", "2", "--openings",
                        "random", "--out", str(out), "--dry-run", "--", "--scheduler",
                        "tcp://127.0.0.1:1"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    command = [l for l in r.stdout.splitlines() if l.startswith("# command: ")]
    assert len(command) == 1
    words = command[0].split()[2:]
    engine = os.path.join(ROOT, "bin", "black-numba")
    assert words[:4] == [engine, "match", engine, engine]
    for pair in (["--nodes", "500"], ["--games", "2"], ["--random-plies", "8"],
                 ["--option-a", f"EvalFile={net}"], ["--out", str(out)],
                 ["--scheduler", "tcp://127.0.0.1:1"]):
        k = words.index(pair[0])
        assert words[k:k + 2] == pair
    assert "--sprt" not in words
    assert f"# cand: {common.describe_net(net)}" in r.stdout
    assert not out.exists()           # a dry run plays nothing and writes nothing


def test_matches_style_runs_fix_their_declared_conditions():
    """bench/matches.py style: each declared run of the playing styles plays the conditions
    docs/style.md states (limits, the opponent told its rating, the held-out openings)."""
    import shlex

    def command(*args):
        r = subprocess.run([sys.executable, os.path.join(BENCH, "matches.py"), "style", *args,
                            "--dry-run"], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        line = [l for l in r.stdout.splitlines() if l.startswith("# command: ")][0]
        return shlex.split(line[len("# command: "):]), r.stdout

    def pairs(words):
        return {(w, words[k + 1]) for k, w in enumerate(words[:-1]) if w.startswith("--")}

    words, text = command("screen", "--style", "Hustler", "--sf-nodes", "3000", "--rating",
                          "2550")
    have = pairs(words)
    assert {("--nodes-a", "20000"), ("--nodes-b", "3000"), ("--games", "1000"),
            ("--option-a", "Style=Hustler"), ("--option-a", "Rating=2550"),
            ("--option-a", "UCI_Opponent=none 2300 computer Stockfish"),
            ("--option-b", "UCI_Elo=2300"), ("--option-b", "UCI_LimitStrength=true")} <= have
    assert ("--openings", os.path.join(ROOT, "black_numba", "arena", "openings_holdout.epd")) in have
    words, _ = command("clock")
    assert {("--tc-a", "10+0.1"), ("--tc-b", "2.5+0.025"), ("--games", "100"),
            ("--option-a", "Style=Hustler")} <= pairs(words)
    words, _ = command("cost")
    assert {("--option-a", "Style=Aggressive"), ("--option-b", "Style=Normal"),
            ("--tc-a", "10+0.1"), ("--tc-b", "10+0.1"), ("--games", "400")} <= pairs(words)
    assert words.count(os.path.join(ROOT, "bin", "black-numba")) == 3   # one build both sides
    words, _ = command("level", "--style", "Aggressive")
    assert {("--option-a", "UCI_Elo=1600"), ("--option-b", "UCI_Elo=1600"),
            ("--option-a", "Style=Aggressive")} <= pairs(words)
    r = subprocess.run([sys.executable, os.path.join(BENCH, "matches.py"), "style", "screen",
                        "--dry-run"], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "--sf-nodes" in r.stderr


def test_nps_pairs_interval_holds_the_median_and_is_seeded():
    import nps_pairs  # bench/nps_pairs.py
    assert nps_pairs.median_interval([0.9] * 7) == (0.9, 0.9)
    values = [0.80, 0.85, 0.90, 0.92, 0.95, 0.97, 1.10]
    lo, hi = nps_pairs.median_interval(values)
    assert 0.80 <= lo <= 0.92 <= hi <= 1.10 and lo < hi
    assert nps_pairs.median_interval(values) == (lo, hi)


def test_style_pairs_compares_two_arms_game_for_game(tmp_path):
    """bench/style_pairs.py: the same Round in both files is the same opening and colour;
    each opening pair gives one difference (here 0.5 and 1.0 points, draws -1 and 0)."""
    import style_pairs

    def pgn(name, games):
        text = "".join(f'[Round "{rnd}"]\n[White "{w}"]\n[Black "{b}"]\n[Result "{r}"]\n\n{r}\n\n'
                       for rnd, w, b, r in games)
        path = tmp_path / name
        path.write_text(text)
        return str(path)
    a = pgn("a.pgn", [("1.1", "x", "sf", "1-0"), ("1.2", "sf", "x", "1/2-1/2"),
                      ("2.1", "x", "sf", "0-1"), ("2.2", "sf", "x", "0-1")])
    b = pgn("b.pgn", [("1.1", "y", "sf", "1/2-1/2"), ("1.2", "sf", "y", "1/2-1/2"),
                      ("2.1", "y", "sf", "0-1"), ("2.2", "sf", "y", "1-0")])
    r = style_pairs.compare(style_pairs.results(a, "x"), style_pairs.results(b, "y"))
    assert (r["games"], r["pairs"], r["score"]) == (4, 2, (0.625, 0.25))
    diff, lo, hi = r["score_diff"]
    assert diff == pytest.approx(0.375) and (lo, hi) == pytest.approx((0.375 - 0.245,
                                                                        0.375 + 0.245), abs=1e-4)
    assert r["draws"] == (0.25, 0.5) and r["draw_diff"][0] == pytest.approx(-0.25)


def test_validation_records_turn_a_validation_into_a_match_at_its_level(tmp_path):
    """bench/validation_records.py: our points a game, whichever colour we had, as one
    records match at the level played, which calibrate's fit then reads."""
    import json
    import validation_records
    from black_numba.arena.calibration import games_of, read_records
    records = tmp_path / "r.games.json"
    records.write_text(json.dumps({"format": 1, "matches": [
        {"label": 1350, "level": 5.06, "opponent_elo": 1350, "network": "ab", "bench": 7,
         "results": "10="}]}))
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps({"names": ["black_numba", "sf1350"], "games_played": [
        {"white": "black_numba", "result": "1-0"}, {"white": "sf1350", "result": "1-0"},
        {"white": "sf1350", "result": "0-1"}, {"white": "black_numba", "result": "1/2-1/2"}]}))
    out = tmp_path / "out.games.json"
    validation_records.main([str(records), str(out), "--match", str(summary), "6.93"])
    added = read_records(str(out))[-1]
    assert (added["label"], added["level"], added["results"]) == (1350, 6.93, "101=")
    assert (added["network"], added["bench"]) == ("ab", 7)
    assert games_of([added])[:2] == [(6.93, 1350, 1.0), (6.93, 1350, 0.0)]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"names": ["top", "full"], "games_played": []}))
    with pytest.raises(ValueError, match="not a strength validation"):
        validation_records.main([str(records), str(out), "--match", str(bad), "19"])
