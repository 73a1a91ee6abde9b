"""The gauntlet (`black-numba match --build ... --opponent ...`): its figures on numbers
worked by hand, and short real games of two black_numba builds against a real Stockfish
(Debian's, which `bootstrap test` installs), resumed and appended from its records."""
import json
import lzma
import math
import os
import re
import subprocess
import sys

import pytest

from conftest import ENGINE, ROOT
from black_numba.arena import gauntlet as gt
from black_numba.arena import gauntletstats as gs
from black_numba.arena import matchstats as ms

STOCKFISH = "/usr/games/stockfish"
OPENINGS = os.path.join(ROOT, "tests", "data", "match_openings.epd")


def _rec(k, o, b, p):
    return {"k": k, "o": o, "b": b, "p": p, "r": [], "n": [], "f": []}


def test_the_schedule_interleaves_builds_within_each_opening_and_opponent():
    assert gt.schedule(2, 2, 2) == [(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1),
                                    (1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1)]


def test_the_typed_conditions_give_the_records_first_line():
    """gauntlet.conditions, opponent_limits and header called with typed values: the
    records' first line as the records keep it (a resume compares it, so it must not move),
    and each opponent's own limits in its tasks and in words."""
    from black_numba.arena import runner
    spec = lambda name: runner.engine_spec("/bin/e", name, ["Hash=16"])    # noqa: E731
    conf = runner.settings(runner.Limits(nodes=300), (runner.Limits(), runner.Limits()))
    own = gt.opponent_limits(conf["limits"][1], clocks={"sf": (1.0, 0.02)}, nodes={"x": 200})
    gp = gt.conditions([spec("a"), spec("b")], [spec("sf"), spec("x")], conf, {"sf": 2600},
                       own)
    plan = gt.GauntletPlan(3, "/unused", runner.Openings("/books/o.epd", seed=5))
    engine = '{"cmd": "/bin/e", "name": "%s", "options": [["Hash", "16"]]}'
    limits = '{"tc": %s, "movetime": null, "nodes": %d, "depth": null}'
    assert json.dumps(gt.header(gp, plan)) == (
        '{"gauntlet": 1, '
        f'"builds": [{engine % "a"}, {engine % "b"}], '
        f'"opponents": [{engine % "sf"}, {engine % "x"}], '
        f'"limits": [{limits % ("null", 300)}, {limits % ("null", 300)}], '
        '"openings": "o.epd", "openings_count": 3, "seed": 5, "random_plies": null, '
        '"chess960": false, "resign": [1000, 8], "draw": null, "max_plies": 500, '
        f'"opponent_limits": {{"sf": {limits % ("[1.0, 0.02]", 300)}, '
        f'"x": {limits % ("null", 200)}}}}}')
    assert gt.task_conf(gp, 1, 1)["limits"][1]["nodes"] == 200
    assert gt.task_conf(gp, 0, 0)["limits"][1]["tc"] == (1.0, 0.02)
    assert gt.describe_pool_limits(gp) == \
        "300 nodes a move; sf 1+0.02, 300 nodes a move; x 200 nodes a move"


def test_the_paired_difference_by_hand():
    """Differences (new - base) over (opening, opponent): +1, 0, -0.5, +1.5 points a pair;
    a task only one build played is left out."""
    recs = [_rec(0, "x", "base", [0.5, 0.5]), _rec(0, "x", "new", [1, 1]),
            _rec(0, "y", "base", [0, 1]), _rec(0, "y", "new", [1, 0]),
            _rec(1, "x", "base", [1, 0.5]), _rec(1, "x", "new", [0.5, 0.5]),
            _rec(1, "y", "base", [0, 0]), _rec(1, "y", "new", [1, 0.5]),
            _rec(2, "x", "base", [1, 1])]
    n, mean, lo, hi, var = gs.paired(recs, "base", "new")
    d = [1, 0, -0.5, 1.5]
    m = sum(d) / 4
    v = sum((x - m) ** 2 for x in d) / 3
    assert (n, mean, var) == (4, pytest.approx(0.5), pytest.approx(v))
    assert hi - mean == pytest.approx(ms.Z95 * math.sqrt(v / 4)) == pytest.approx(mean - lo)
    # at a base score of 50%, +0.5 points a pair is a score of 75%: +190.8 Elo
    assert gs.elo_shift(0.5, 0.5) == pytest.approx(400 * math.log10(3))


def test_the_paired_sprt_decides_each_way():
    """The normal GSPRT: a mean difference at H1's own value gains LLR with the pairs, at
    H0's loses it, and halfway between stays at zero."""
    e = ms.elo(0.4)
    mu1 = 2 * (ms.expected_score(e + 25) - ms.expected_score(e))
    assert gs.paired_llr(mu1 / 2, 0.5, 1000, 0.4, 0, 25) == pytest.approx(0, abs=1e-12)
    up = gs.paired_llr(mu1, 0.5, 1000, 0.4, 0, 25)
    assert up == pytest.approx(1000 * mu1 * mu1 / 2 / 0.5) and up > ms.sprt_bounds()[1]
    assert gs.paired_llr(0.0, 0.5, 1000, 0.4, 0, 25) == pytest.approx(-up)


def test_the_paired_sprt_does_not_decide_on_a_few_pairs_that_agree():
    """Two pairs of pairs that both went -0.5 for the candidate have a sample variance of 0,
    which alone would give an LLR of about -5e7 and "H0" at once. Shrunk toward the prior,
    it is a small step; many such pairs still decide."""
    records = [{"k": k, "o": o, "b": b, "r": [], "p": p, "n": [], "f": []}
               for k, o, b, p in [(0, "sf2600", "base", [1, 0.5]), (0, "sf2600", "cand", [1, 0]),
                                  (0, "sf2850", "base", [1, 0.5]), (0, "sf2850", "cand", [1, 0])]]
    n, mean, _, _, var = gs.paired(records, "base", "cand")
    assert (n, mean, var) == (2, -0.5, 0.0)
    llr = gs.paired_llr(mean, var, n, 0.75, 0, 25)
    lo, hi = ms.sprt_bounds()
    assert lo < llr < 0 and llr > -1
    assert ms.sprt_state(llr, (lo, hi)) is None
    assert gs.paired_llr(mean, var, 200, 0.75, 0, 25) < lo


def test_the_rating_fit_by_hand():
    """A scores 3 of 4 against B: with one virtual draw the pairing is 3.5 of 5, so the fit
    puts A 400 log10(3.5 / 1.5) above B; a label places the pair, the offset stays."""
    games = [("A", "B", 1), ("A", "B", 1), ("A", "B", 1), ("A", "B", 0)]
    r = gs.fit_ratings(games, {"B": 2600})
    assert r["B"][0] == pytest.approx(2600)
    assert r["A"][0] - r["B"][0] == pytest.approx(400 * math.log10(3.5 / 1.5), abs=1e-6)
    # the information of 5 games at p = 0.7: (ln 10 / 400)^2 x 5 x 0.7 x 0.3
    info = (math.log(10) / 400) ** 2 * 5 * 0.7 * 0.3
    assert r["A"][1] == pytest.approx(ms.Z95 / math.sqrt(info), rel=1e-6)


def test_the_fit_takes_the_opponents_offsets_from_the_games_not_the_labels():
    """Two opponents labelled 250 apart that the games show 100 apart: the fit keeps the
    labels' mean and puts them where the games say (a build that scores the same against
    both says they are equal)."""
    games = [("us", "weak", p) for p in (1, 0, 1, 0, 1, 0)] + \
            [("us", "strong", p) for p in (1, 0, 1, 0, 1, 0)]
    r = gs.fit_ratings(games, {"weak": 2600, "strong": 2850})
    assert r["weak"][0] == pytest.approx(2725) == pytest.approx(r["strong"][0])
    assert r["us"][0] == pytest.approx(2725)


def _gauntlet(*args, timeout=900):
    return subprocess.run([ENGINE, "match", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def _conditions(out, rounds):
    return ["--build", f"net={ENGINE}", "--build", f"hce={ENGINE}",
            "--engine-option", "hce:Use NNUE=false",
            "--opponent", f"sf={STOCKFISH}", "--engine-option", "sf:UCI_LimitStrength=true",
            "--engine-option", "sf:UCI_Elo=1350", "--label", "sf=1350",
            "--option", "Threads=1", "--option", "Hash=16", "--nodes", "300",
            "--openings", OPENINGS, "--seed", "5", "--rounds", str(rounds),
            "--concurrency", "1", "--startup-timeout", "600", "--out", str(out)]


@pytest.fixture(scope="module")
def stockfish():
    if not os.path.exists(STOCKFISH):
        pytest.fail(f"{STOCKFISH} is missing: `python3 bin/bootstrap test` installs Debian's "
                    "stockfish (apt-get install stockfish)")
    return STOCKFISH


@pytest.mark.slow
def test_a_gauntlet_against_stockfish_resumes_and_appends(stockfish, tmp_path):
    r = _gauntlet(*_conditions(tmp_path, 2))
    assert r.returncode == 0, r.stderr[-3000:]
    head, recs = gt.read_records(str(tmp_path / gt.RECORDS_NAME))
    assert [e["name"] for e in head["builds"]] == ["net", "hce"] and head["seed"] == 5
    # opening by opening, each build in turn: both builds have played opening 1 before 2
    assert [(x["k"], x["b"]) for x in recs] == [(0, "net"), (0, "hce"), (1, "net"),
                                                (1, "hce")]
    assert all(len(x["r"]) == 2 and set(x["r"]) <= {"1-0", "0-1", "1/2-1/2"} for x in recs)
    assert "paired hce - net:" in r.stdout and "ratings (Bradley-Terry" in r.stdout
    assert "sf: none" in r.stdout.split("faults: ")[-1]

    # the same conditions with one more opening: only the third opening's tasks are played
    r = _gauntlet(*_conditions(tmp_path, 3))
    assert r.returncode == 0, r.stderr[-3000:]
    assert "4 tasks in" in r.stdout and "2 to play" in r.stdout
    _, recs2 = gt.read_records(str(tmp_path / gt.RECORDS_NAME))
    assert recs2[:4] == recs and [(x["k"], x["b"]) for x in recs2[4:]] == [(2, "net"),
                                                                          (2, "hce")]
    summary = json.loads((tmp_path / "summary.json").read_text())
    cells = {(c["build"], c["opponent"]): c for c in summary["figures"]["cells"]}
    assert cells[("net", "sf")]["games"] == 6 == cells[("hce", "sf")]["games"]
    assert summary["figures"]["paired"][0]["pairs"] == 3
    assert set(summary["figures"]["ratings"]) == {"net", "hce", "sf"}
    assert summary["figures"]["ratings"]["sf"][0] == pytest.approx(1350)

    # other conditions on the same records are refused, not mixed in
    other = _conditions(tmp_path, 3)
    other[other.index("300")] = "400"
    r = _gauntlet(*other)
    assert r.returncode == 2 and "other conditions" in r.stderr and "limits" in r.stderr


@pytest.mark.slow
def test_each_opponent_plays_on_its_own_time_control(stockfish, tmp_path):
    """--opponent-tc and --opponent-nodes: the build plays on the shared clock, one full-strength
    Stockfish on a clock of its own (time odds), another at a node limit; the games' PGN
    headers give each side's clock, the records keep each opponent's limits, and the same
    command with another opponent clock will not resume them."""
    def args(odds):
        return ["--build", f"net={ENGINE}", "--opponent", f"odds={stockfish}",
                "--opponent", f"nodes={stockfish}", "--option", "Threads=1",
                "--option", "Hash=16", "--tc", "4+0.05", "--opponent-tc", f"odds={odds}",
                "--opponent-nodes", "nodes=200", "--openings", OPENINGS, "--seed", "3",
                "--rounds", "1", "--concurrency", "1", "--startup-timeout", "600",
                "--max-plies", "24", "--out", str(tmp_path)]
    r = _gauntlet(*args("1+0.02"))
    assert r.returncode == 0, r.stderr[-3000:]
    assert "4+0.05; odds 1+0.02; nodes 4+0.05, 200 nodes a move" in r.stdout
    head, recs = gt.read_records(str(tmp_path / gt.RECORDS_NAME))
    assert head["opponent_limits"]["odds"]["tc"] == [1, 0.02]
    assert head["opponent_limits"]["nodes"]["nodes"] == 200
    assert [(x["o"], len(x["r"])) for x in recs] == [("odds", 2), ("nodes", 2)]
    games = (tmp_path / "games.pgn").read_text().split("[Event ")[1:]
    assert len(games) == 4
    for game in games:
        sides = {side: re.search(rf'\[{side} "(\w+)"\]', game).group(1)
                 for side in ("White", "Black")}
        clocks = {side: re.search(rf'\[{side}TimeControl "([^"]+)"\]', game)
                  for side in ("White", "Black")}
        want = {"net": "4+0.05", "odds": "1+0.02"}
        if "odds" in sides.values():
            assert {side: m.group(1) for side, m in clocks.items()} == \
                {side: want[sides[side]] for side in sides}
        else:       # the same clock on both sides; the node limit in each side's limits
            assert clocks == {"White": None, "Black": None}
            assert '[TimeControl "4+0.05"]' in game and "200 nodes a move" in game
    assert "time loss" not in r.stdout.split("faults: ")[-1]
    # another clock for an opponent is other conditions: refused, not mixed in
    r = _gauntlet(*args("2+0.02"))
    assert r.returncode == 2 and "opponent_limits" in r.stderr, r.stderr[-2000:]


def test_time_losses_are_reported_as_a_share_of_the_engines_games():
    gp = {"builds": [{"name": "us", "cmd": "a"}], "opponents": [{"name": "sf", "cmd": "b"}],
          "labels": {}, "limits": [{"tc": [10, 0.1], "movetime": None, "nodes": None,
                                    "depth": None}] * 2, "opponent_limits": {}}
    recs = [dict(_rec(k, "sf", "us", [1, 0.5]), f=[["sf", "time loss"]] if k == 0 else [])
            for k in range(20)]
    lines = gs.report_lines(gp, gs.figures(gp, recs))
    assert lines[-1] == "faults: us: none; sf: time loss 1 (2.5%)"


def test_bad_opponent_limits_are_one_clear_error(tmp_path):
    base = ["--build", f"a={ENGINE}", "--opponent", f"sf={STOCKFISH}", "--out",
            str(tmp_path / "bad")]
    for extra, words in ((["--opponent-tc", "zz=1+0.01"], "for an opponent (sf)"),
                         (["--opponent-tc", "sf=fast"], "--opponent-tc"),
                         (["--opponent-nodes", "sf=many"], "not a whole number"),
                         (["--opponent-nodes", "sf=0"], "at least 1")):
        r = _gauntlet(*base, *extra, timeout=60)
        assert r.returncode == 2, (extra, r.stderr[-2000:])
        assert "Traceback" not in r.stderr and words in r.stderr, (extra, r.stderr)


def test_bad_gauntlet_arguments_are_one_clear_error(tmp_path):
    for args, words in (
            (["--build", "a", "--opponent", f"sf={STOCKFISH}"], "NAME=COMMAND"),
            (["--build", f"a={ENGINE}"], "at least one --build and one --opponent"),
            (["--build", f"a={ENGINE}", "--opponent", f"a={STOCKFISH}"], "must differ"),
            (["--build", f"a={ENGINE}", "--opponent", f"sf={STOCKFISH}",
              "--engine-option", "zz:Hash=1"], "NAME:OPTION=VALUE"),
            (["--build", f"a={ENGINE}", "--opponent", f"sf={STOCKFISH}", "--sprt", "0", "5"],
             "two builds"),
            (["--build", f"a={ENGINE}", "--opponent", f"sf={STOCKFISH}", "--label", "sf=x"],
             "not a number")):
        r = _gauntlet(*args, "--out", str(tmp_path / "bad"), timeout=60)
        assert r.returncode == 2, (args, r.stderr[-2000:])
        assert "Traceback" not in r.stderr and words in r.stderr, (args, r.stderr)


def test_a_report_reads_a_running_gauntlets_records(tmp_path):
    """`match --report RECORDS` prints the figures of the records without playing: the
    paired difference worked by hand above (+0.5 points a pair over 4 pairs of pairs), the
    tasks done of those planned; a last line being written is left out."""
    limits = {"tc": None, "movetime": None, "nodes": 300, "depth": None}
    head = {"gauntlet": 1, "builds": [{"name": "base", "cmd": "a"}, {"name": "new", "cmd": "b"}],
            "opponents": [{"name": "x", "cmd": "c"}, {"name": "y", "cmd": "d"}],
            "limits": [limits, limits], "openings": "o.epd", "openings_count": 3, "seed": 7}
    recs = [_rec(0, "x", "base", [0.5, 0.5]), _rec(0, "x", "new", [1, 1]),
            _rec(0, "y", "base", [0, 1]), _rec(0, "y", "new", [1, 0]),
            _rec(1, "x", "base", [1, 0.5]), _rec(1, "x", "new", [0.5, 0.5]),
            _rec(1, "y", "base", [0, 0]), _rec(1, "y", "new", [1, 0.5]),
            _rec(2, "x", "base", [1, 1])]
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in [head] + recs) + '\n{"k": 2, "o"')
    r = _gauntlet("--report", str(path), "--label", "x=2600", "--sprt", "0", "25", timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "9 of 12 tasks" in r.stdout and "300 nodes a move" in r.stdout
    assert "paired new - base: +0.500 points a pair" in r.stdout
    assert "over 4 pairs of pairs" in r.stdout and "SPRT 0 .. 25: LLR" in r.stdout
    assert "label 2600" in r.stdout
    for args, words in ((["--report", str(tmp_path / "none.jsonl")], "no such records"),
                        (["--report", os.path.join(ROOT, "README.md")], "not JSON"),
                        (["--report", str(path), "--label", "zz=1"], "NAME=ELO")):
        r = _gauntlet(*args, timeout=120)
        assert r.returncode == 2 and "Traceback" not in r.stderr and words in r.stderr, args


def test_a_finished_gauntlets_compressed_records_read_alike(tmp_path):
    """Finished records kept as FILE.jsonl.xz: --report gives the same figures as from the
    plain file; a run does not append to them; a corrupt one is a clear error."""
    limits = {"tc": None, "movetime": None, "nodes": 300, "depth": None}
    head = {"gauntlet": 1, "builds": [{"name": "base", "cmd": "a"}, {"name": "new", "cmd": "b"}],
            "opponents": [{"name": "x", "cmd": "c"}], "limits": [limits],
            "openings": "o.epd", "openings_count": 2, "seed": 7}
    recs = [_rec(0, "x", "base", [0.5, 0.5]), _rec(0, "x", "new", [1, 1]),
            _rec(1, "x", "base", [0, 0.5]), _rec(1, "x", "new", [1, 0.5])]
    text = "\n".join(json.dumps(x) for x in [head] + recs) + "\n"
    plain, packed = tmp_path / "g.jsonl", tmp_path / "g.jsonl.xz"
    plain.write_text(text)
    packed.write_bytes(lzma.compress(text.encode()))
    assert gt.read_records(str(packed)) == gt.read_records(str(plain))
    a, b = (_gauntlet("--report", str(p), "--label", "x=2600", timeout=120)
            for p in (plain, packed))
    assert a.returncode == 0 == b.returncode, b.stderr[-2000:]
    assert "4 of 4 tasks" in b.stdout and "paired new - base: +1.000 points a pair" in b.stdout
    assert a.stdout.replace("g.jsonl", "g.jsonl.xz") == b.stdout
    r = _gauntlet("--build", f"a={ENGINE}", "--build", f"b={ENGINE}", "--opponent",
                  f"sf={STOCKFISH}", "--records", str(packed), "--out", str(tmp_path / "o"),
                  timeout=60)
    assert r.returncode == 2 and "decompress them" in r.stderr and "Traceback" not in r.stderr
    bad = tmp_path / "bad.jsonl.xz"
    bad.write_bytes(lzma.compress(text.encode())[:40])
    r = _gauntlet("--report", str(bad), timeout=120)
    assert r.returncode == 2 and "unreadable records" in r.stderr and "Traceback" not in r.stderr
