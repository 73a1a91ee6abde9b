"""The bench signature: the node count of `black-numba bench` pins the search's behaviour.

A change to search, move ordering or evaluation that should not change what the engine
plays must leave this number alone; one that changes it says the new number in its commit
message and updates BENCH_SIGNATURE here (and in the README)."""
import io
import subprocess

from black_numba.frontends.bench import BENCH_DEPTH, BENCH_FENS, run_bench
from conftest import ENGINE

BENCH_SIGNATURE = 1_123_168           # with the shipped network (the default evaluation)
BENCH_SIGNATURE_TAPERED = 1_334_663   # --eval tapered
# --style Aggressive and --style Hustler (style.py; Normal is the two above), network, tapered
BENCH_SIGNATURE_AGGRESSIVE = (1_100_921, 1_309_604)
BENCH_SIGNATURE_HUSTLER = (1_151_735, 1_328_727)


def _bench_nodes(**kw):
    out = io.StringIO()
    assert run_bench(out=out, **kw) == 0
    lines = dict(l.split(":", 1) for l in out.getvalue().splitlines() if ":" in l)
    return int(lines["Nodes searched  "])


def test_bench_signature():
    assert _bench_nodes() == BENCH_SIGNATURE
    assert _bench_nodes(evaluation="tapered") == BENCH_SIGNATURE_TAPERED
    assert BENCH_DEPTH == 11 and len(BENCH_FENS) == 40


def test_bench_signatures_of_the_styles():
    for name, (nnue, tapered) in (("Aggressive", BENCH_SIGNATURE_AGGRESSIVE),
                                  ("Hustler", BENCH_SIGNATURE_HUSTLER)):
        assert _bench_nodes(style=name) == nnue
        assert _bench_nodes(style=name, evaluation="tapered") == tapered


def test_bad_command_lines_get_one_line_and_a_nonzero_exit(tmp_path, capsys):
    """Every subcommand answers bad arguments and missing or unreadable files with one
    clear line on stderr, nothing on stdout and exit code 2 (no traceback)."""
    from black_numba.frontends.cli import main
    pgn = tmp_path / "empty.pgn"
    pgn.write_text("")
    binary = tmp_path / "binary.epd"
    binary.write_bytes(b"\xff\xfe\x00garbage\n")
    cases = [
        (["perft", "--epd", str(tmp_path / "missing.epd")], "missing.epd: No such file"),
        (["perft", "--epd", str(tmp_path)], "Is a directory"),
        (["perft", "--epd", str(binary)], "perft:"),
        (["perft", "-3"], "not between 0 and 20"),
        (["perft", "5", "--fen", "not a fen"], "bad FEN"),
        (["perft"], "give a DEPTH"),
        (["bench", "-5"], "-5 is not between 1 and 64"),
        (["bench", "x"], "'x' is not an integer"),
        (["bench", "--hash", "0"], "not between 1 and 4096"),
        (["eval", "--epd", str(tmp_path / "missing.epd"), "--device", "cpu"], "No such file"),
        (["eval", "--epd", str(tmp_path), "--device", "cpu"], "Is a directory"),
        (["eval", "--epd", str(binary), "--batch", "0"], "not between 1"),
        (["eval"], "--epd"),
        (["tune", str(tmp_path / "missing.pgn")], "missing.pgn: No such file"),
        (["tune", str(pgn)], "too few positions"),
        (["label", str(pgn), "--out", str(tmp_path / "o"), "--engine", "/nonexistent"],
         "not an executable file"),
        (["frobnicate"], "invalid choice"),
    ]
    for argv, expected in cases:
        try:
            code = main(argv)
        except SystemExit as e:             # argparse's own exit
            code = e.code
        out, err = capsys.readouterr()
        assert code == 2, (argv, code, err)
        assert out == "", (argv, out)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0], (argv, err)
    # and as a real process: one line, exit 2, no traceback
    for argv, expected in cases[:1] + cases[6:7]:
        r = subprocess.run([ENGINE] + argv, capture_output=True, text=True, timeout=300)
        assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr
        assert r.stderr.strip().splitlines() == [l for l in r.stderr.strip().splitlines()
                                                 if expected in l]
