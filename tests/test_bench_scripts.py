"""bench/ and perft/: every measuring script run on a tiny input (a few nodes, a tiny depth, a
file written here) and checked on a figure of its output; their shared module's opening
split and PGN reading; bench/matches.py's command for `black-numba match`. Nothing here reads
bench/'s data (networks, EPD files, results)."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

BENCH = os.path.join(ROOT, "bench")
PERFT = os.path.join(ROOT, "perft")
DATA = os.path.join(ROOT, "tests", "data")
sys.path.insert(0, BENCH)
import clock_use  # noqa: E402  (bench/clock_use.py)
import common  # noqa: E402  (bench/common.py)

# bench/'s modules that are not scripts: the scripts' shared code, the browser board's client
SHARED = ("common.py", "board_client.py")
SCRIPTS = sorted(f for f in os.listdir(BENCH) if f.endswith(".py") and f not in SHARED)
PERFT_SCRIPTS = sorted(f for f in os.listdir(PERFT) if f.endswith(".py"))
STOCKFISH = "/usr/games/stockfish"
NET = os.path.join(ROOT, "black_numba", "nets", "default.bnn")
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def run(script, *args, folder=BENCH, timeout=600, rc=0):
    """The stdout of a bench/ (or perft/) script run with args; asserts its exit status."""
    r = subprocess.run([sys.executable, os.path.join(folder, script), *map(str, args)],
                       capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    assert r.returncode == rc, r.stdout + r.stderr
    return r.stdout


def number(pattern, text):
    """The number the pattern's group catches in text (commas dropped)."""
    found = re.search(pattern, text)
    assert found, f"{pattern!r} not in:\n{text}"
    return float(found.group(1).replace(",", ""))


@pytest.fixture(scope="module")
def stockfish():
    if not os.path.exists(STOCKFISH):
        pytest.fail(f"{STOCKFISH} is missing: `python3 bin/bootstrap test` installs it")
    return STOCKFISH


def test_every_script_is_run_here():
    """Each script of bench/ and perft/ is run by a test of this file (not just --help)."""
    source = open(__file__).read()
    missing = [s for s in SCRIPTS + PERFT_SCRIPTS
               if f'"{s}"' not in source and f"import {s[:-3]}" not in source]
    assert SCRIPTS and missing == []


def test_no_bench_script_needs_the_reference_runner():
    files = [f for f in os.listdir(BENCH) if f.endswith((".py", ".sh"))]
    users = [f for f in files if "shared/tools" in open(os.path.join(BENCH, f)).read()]
    assert files and users == []


def test_no_script_imports_the_tests():
    users = [f for folder in (BENCH, PERFT, os.path.join(ROOT, "tools"))
             for f in os.listdir(folder) if f.endswith(".py")
             and re.search(r"""sys\.path\.\w+\(.*["']tests["']|import (gui_client|test_\w+|"""
                           r"""conftest)\b""", open(os.path.join(folder, f)).read())]
    assert users == []


# -- common.py --------------------------------------------------------------------------------

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


# -- reading games ----------------------------------------------------------------------------

CLOCK_PGN = ('[White "bn"]\n[Black "sf"]\n[Result "*"]\n[Termination "normal"]\n\n'
             "1. e4 { +0.30/12 0.250s } 1... e5 { -0.20/14 0.500s } "
             "2. Nf3 { +0.35/0.75s } *\n\n")


def test_clock_use_reads_the_runners_move_comments(tmp_path):
    pgn = tmp_path / "g.pgn"
    pgn.write_text(CLOCK_PGN)
    assert [g.headers["White"] for g in common.read_pgn(str(pgn))] == ["bn"]
    times, ends, low, games = clock_use.clock_use([str(pgn)], "bn", 10.0, 0.1)
    assert games == 1
    assert times[(True, 0)] == [0.25, 0.75] and times[(False, 0)] == [0.5]
    assert ends == [(pytest.approx(10.0 + 0.2 - 1.0), pytest.approx(10.0 + 0.1 - 0.5))]
    assert low == [0, 0]
    # an uneven match: the opponent's own clock (2.5+0.025 here)
    _, ends, low, _ = clock_use.clock_use([str(pgn)], "bn", 10.0, 0.1, 2.5, 0.025)
    assert ends == [(pytest.approx(10.0 + 0.2 - 1.0), pytest.approx(2.5 + 0.025 - 0.5))]


def test_clock_use_prints_the_table(tmp_path):
    pgn = tmp_path / "g.pgn"
    pgn.write_text(CLOCK_PGN)
    out = run("clock_use.py", pgn, "--engine", "bn", "--tc", "10+0.1")
    assert "1 games, bn against its opponents, 10+0.1" in out
    assert re.search(r"1-10\s+\| 0\.500 \(\s+2\)\s+\| 0\.500", out), out
    assert "median 9.20 s (opponent 9.60 s)" in out
    assert "under 1 s on the clock: 0 (opponent 0)" in out


def test_foreign_games_finds_a_loss_and_a_bad_draw(tmp_path):
    """A loss that turns at bn's last move scored above -0.50, a draw bn scored a pawn up for
    four moves (a bad one, by repetition), and a win."""
    pgn = tmp_path / "g.pgn"
    up = "{ +1.20/10 0.1s }"
    pgn.write_text(
        '[White "bn"]\n[Black "sf"]\n[Result "0-1"]\n\n'
        "1. f3 { +0.10/10 0.1s } e5 2. g4 { -0.40/10 0.1s } Qh4# 0-1\n\n"
        '[White "sf"]\n[Black "bn"]\n[Result "1/2-1/2"]\n\n'
        f"1. Nf3 Nf6 {up} 2. Ng1 Ng8 {up} 3. Nf3 Nf6 {up} 4. Ng1 Ng8 {up} 1/2-1/2\n\n"
        '[White "bn"]\n[Black "sf"]\n[Result "1-0"]\n\n'
        "1. e4 { +0.20/10 0.1s } e5 1-0\n\n")
    out = run("foreign_games.py", pgn, "--ours", "bn")
    assert "== bn: 3 games: 1 wins, 1 losses, 1 draws of which 1 bad" in out
    assert "against sf: 3 games, 1 W 1 L 1 D (1 bad)" in out
    assert "losses by phase: opening 1, middlegame 0, endgame 0" in out
    assert "our score at the turn: median -0.40" in out
    assert "bad draws ended by: repetition 1" in out


def test_eval_quality_scores_each_evaluation_against_stockfish(tmp_path, stockfish):
    with open(os.path.join(DATA, "bratko_kopec.epd")) as f:
        fens = [" ".join(line.split()[:4]) + " 0 1" for line in f if line.strip()][:8]
    path = tmp_path / "positions.fen"
    path.write_text("\n".join(fens) + "\n")
    out = run("eval_quality.py", "--fens", path, "--nodes", 300, "--sample", 8, "--nets", NET)
    kept = number(r"foreign games: (\d+) positions", out)
    assert 5 <= kept <= 8
    for name in ("tapered", "default.bnn", "default.bnn as searched"):
        line = next(l for l in out.splitlines() if l.strip().startswith(name + " "))
        assert -1 <= number(r"corr (-?[\d.]+)", line) <= 1
        assert f"all {kept:.0f}: mse" in line


# -- matches.py -------------------------------------------------------------------------------

def test_matches_builds_the_runners_command(tmp_path):
    out = tmp_path / "m"
    r = subprocess.run([sys.executable, os.path.join(BENCH, "matches.py"), "net", NET, "cand",
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
                 ["--option-a", f"EvalFile={NET}"], ["--out", str(out)],
                 ["--scheduler", "tcp://127.0.0.1:1"]):
        k = words.index(pair[0])
        assert words[k:k + 2] == pair
    assert "--sprt" not in words
    assert f"# cand: {common.describe_net(NET)}" in r.stdout
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


def test_matches_counts_castles_by_wing(tmp_path):
    """The line a Chess960 strength match adds to its conditions."""
    import matches  # bench/matches.py
    pgn = tmp_path / "g.pgn"
    pgn.write_text('[White "bn"]\n[Black "sf"]\n[Result "*"]\n\n'
                   "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 *\n\n"
                   '[White "sf"]\n[Black "bn"]\n[Result "*"]\n\n1. d4 d5 *\n\n')
    assert matches.count_castles(str(pgn), "bn") == \
        "castles by bn: 1 of 2 games castled (1 king-side, 0 queen-side)\n"


# -- speed ------------------------------------------------------------------------------------

def test_bench_search_beside_stockfish(tmp_path, stockfish):
    suite = tmp_path / "bk.epd"
    suite.write_text('1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id "BK.01";\n')
    out = run("bench_search.py", "--depth", 3, "--bk-time", 0.1, "--bk", suite)
    assert number(r"black_numba bench 3: (\d+) nodes", out) > 0
    assert number(r"stockfish bench 16 1 13: (\d+) nodes", out) > 0
    assert number(r"nodes/s ratio black_numba/stockfish: ([\d.]+)", out) > 0
    assert re.search(r"BK\.01: \S+", out) and re.search(r"solved [01]/1", out)


def test_bench_threads_beside_stockfish(stockfish):
    out = run("bench_threads.py", "--threads", 1, "--rounds", 1, "--depth", 2)
    rows = {l.split()[0]: l.split() for l in out.splitlines()
            if l.split() and l.split()[0] in ("black_numba", "stockfish")}
    assert set(rows) == {"black_numba", "stockfish"}
    for row in rows.values():
        assert row[1] == "1" and float(row[3]) > 0 and row[5:] == ["1.00", "1.00"]


def test_bench_startup_times_uciok_and_readyok():
    out = run("bench_startup.py", "--repeat", 1)
    uciok = number(r"warm: uciok ([\d.]+) s", out)
    readyok = number(r"readyok ([\d.]+) s \(median of 1\)", out)
    assert 0 < uciok <= readyok < 60


def test_stop_latency_beside_stockfish(stockfish):
    out = run("stop_latency.py", "--threads", 1, "--stops", 2)
    for name in ("black_numba", "stockfish"):
        row = next(l.split() for l in out.splitlines() if l.startswith(name))
        assert row[1] == "1" and 0 <= float(row[2]) <= float(row[4]) < 30_000


def test_bench_eval_counts_positions_a_second():
    out = run("bench_eval.py", "--positions", 300, "--repeat", 1, "--eval", "tapered")
    assert number(r"positions\s+(\d+)", out) == 300
    assert number(r"tapered\s+cpu, 1 thread\s+([\d,]+) positions/s", out) > 0
    assert "tapered  cuda" in out                 # the GPU's figure, or why there is none


@pytest.mark.skipif((os.cpu_count() or 1) < 2 or not shutil.which("taskset"),
                    reason="pinned pairs need two cores and taskset")
def test_nps_pairs_runs_pinned_pairs():
    out = run("nps_pairs.py", NET, NET, "--rounds", 1, "--depth", 2)
    ratio = number(r"A / B: median of rounds ([\d.]+)", out)
    assert 0.2 < ratio < 5
    assert re.search(r"round 1: A cpu0 \d+ B cpu1 \d+ \| B cpu0 \d+ A cpu1 \d+", out)


def test_nps_pairs_interval_holds_the_median_and_is_seeded():
    import nps_pairs  # bench/nps_pairs.py
    assert nps_pairs.median_interval([0.9] * 7) == (0.9, 0.9)
    values = [0.80, 0.85, 0.90, 0.92, 0.95, 0.97, 1.10]
    lo, hi = nps_pairs.median_interval(values)
    assert 0.80 <= lo <= 0.92 <= hi <= 1.10 and lo < hi
    assert nps_pairs.median_interval(values) == (lo, hi)


@pytest.mark.slow
@pytest.mark.skipif(not shutil.which("perf"), reason="needs perf (linux-perf)")
def test_profile_search_names_the_compiled_functions():
    """A fresh compile of the move generator into a temporary cache, then `perf` on perft(5)
    (the search's compile, the same code path, takes minutes)."""
    out = run("profile_search.py", "--perft", 5, "--top", 3)
    rows = [l for l in out.splitlines() if re.match(r"\s*[\d.]+%\s+\S", l)]
    assert 1 <= len(rows) <= 3
    assert 0 < number(r"([\d.]+)%", rows[0]) <= 100
    assert any("movegen" in r or "perft" in r for r in rows), rows


def test_profile_datagen_splits_a_workers_cpu():
    out = run("profile_datagen.py", "--games", 1, "--nodes", 50)
    assert number(r"1 games, ([\d,]+) kept positions", out) > 0
    assert number(r"([\d,]+) positions per CPU-hour", out) > 0
    assert number(r"\(([\d,]+) search\.deepen calls\)", out) > 0
    assert "our compiled search" in out and "labelling engine" in out


@pytest.mark.slow
def test_bench_datagen_counts_positions_per_cpu_hour():
    out = run("bench_datagen.py", ROOT, "--rounds", 1, "--positions", 20, "--", "--jobs", 1,
              "--nodes", 100, "--eval", "tapered", "--seed", 5)
    assert number(r"round 1 \S+: ([\d,]+) positions", out) >= 20
    assert number(r"median ([\d,]+) positions per CPU-hour", out) > 0
    assert f"files equal to {ROOT}'s" in out


@pytest.mark.slow
def test_bench_gui_times_the_browser_board():
    chromium = shutil.which("chromium")
    try:
        import playwright  # noqa: F401
    except ImportError:
        chromium = None
    if chromium is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("bench_gui needs Chromium and Playwright in CI")
        pytest.skip("needs Chromium and Playwright (python3 bin/bootstrap test)")
    out = run("bench_gui.py", "--no-cold", "--loads", 1, "--positions", 1, "--answers", 5,
              "--chromium", chromium)
    assert number(r"page usable \(warm\): median (\d+) ms", out) > 0
    assert "(1 loads)" in out and "(1 positions)" in out and "(5 requests)" in out


# -- Syzygy -----------------------------------------------------------------------------------

TABLES = os.path.join(DATA, "syzygy")


def test_syzygy_check_agrees_with_python_chess():
    out = run("syzygy_check.py", "--path", TABLES, "--positions", 60, "--cursed", 0)
    assert number(r"(\d+) tables in", out) == 6
    assert number(r"\npositions (\d+), with en passant", out) == 60
    assert "differences: WDL 0, DTZ 0" in out


def test_syzygy_speed_times_both_readers():
    out = run("syzygy_speed.py", "--path", TABLES, "--min-pieces", 3, "--positions", 50,
              "--seconds", 0.1)
    assert "50 random positions of 6 tables" in out
    for kind in ("WDL", "DTZ"):
        line = next(l for l in out.splitlines() if l.startswith(kind + ":"))
        assert number(r"compiled ([\d,]+) probes/s", line) > 0
        assert number(r"python-chess ([\d,]+) probes/s", line) > 0
        assert "errors 0)" in line


def test_syzygy_nps_searches_with_and_without_tables(tmp_path):
    fens = tmp_path / "endgames.fen"
    fens.write_text("8/8/8/4k3/8/8/3KP3/8 w - - 0 1\n8/8/3k3r/8/8/8/1R6/4K3 w - - 0 1\n")
    out = run("syzygy_nps.py", "--path", TABLES, "--fens", fens, "--positions", 2, "--nodes",
              2000)
    assert number(r"without tables\s+([\d,]+) nodes/s", out) > 0
    assert number(r"with tables\s+([\d,]+) nodes/s", out) > 0
    assert number(r"with tables .*tbhits ([\d,]+)\)", out) > 0
    assert re.search(r"best move changed in [0-2] of 2 positions", out)


# -- perft/ -----------------------------------------------------------------------------------

def test_bench_perft_beside_stockfish(stockfish):
    out = run("bench_perft.py", "--repeat", 1, "--depth", 3, "--stockfish", stockfish,
              folder=PERFT)
    assert re.search(r"startpos\s+3\s+8902\s", out) and re.search(r"kiwipete\s+3\s+97862\s", out)


def test_bench_perft_times_a_suite(tmp_path, stockfish):
    suite = tmp_path / "suite.epd"
    suite.write_text(f"{KIWIPETE} ;D1 48 ;D2 2039\n"
                     "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9 "
                     ";D1 21 ;D2 528\n")
    out = run("bench_perft.py", "--epd", suite, "--depth", 2, "--stockfish", stockfish,
              folder=PERFT)
    assert "black_numba: 2,567 nodes" in out and "2/2 exact" in out
    assert "Stockfish:   2,567 nodes" in out
    suite.write_text(f"{KIWIPETE} ;D1 48 ;D2 2040\n")          # a wrong count fails
    out = run("bench_perft.py", "--epd", suite, "--depth", 2, "--stockfish", stockfish,
              folder=PERFT, rc=1)
    assert "WRONG" in out and "0/1 exact" in out


def test_bench_perft_against_another_program(tmp_path):
    """--other: a perft program that prints `Result: N` and `Time taken: S seconds` (here
    python-chess's), one thread and every core."""
    other = tmp_path / "other_perft"
    other.write_text(f"#!{sys.executable}\n" + """import sys, time
import chess

def perft(board, depth):
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total

t0 = time.perf_counter()
n = perft(chess.Board(sys.argv[1]), int(sys.argv[2]))
print(f"Result: {n}")
print(f"Time taken: {time.perf_counter() - t0:.4f} seconds")
""")
    other.chmod(0o755)
    out = run("bench_perft.py", "--other", other, "--rounds", 1, "--depth", 2, "--cases",
              "start,Kiwipete", folder=PERFT)
    rows = [l.split() for l in out.splitlines() if l.startswith(("start ", "Kiwipete "))]
    assert [(r[0], r[1], r[2], r[3]) for r in rows[:2]] == [("start", "1", "2", "400"),
                                                           ("Kiwipete", "1", "2", "2,039")]
    # [name, threads, depth, nodes, ours best, (median), other's best, (median), ratios]
    assert len(rows) == 4 and all(float(r[6]) > 0 and float(r[-2]) >= 0 for r in rows)


def test_random_positions_agree_with_stockfish(stockfish):
    out = run("check_random_vs_stockfish.py", "--positions", 3, "--depth", 2, "--stockfish",
              stockfish, folder=PERFT)
    assert "3 random positions, perft(2)" in out and "all equal to Stockfish" in out

