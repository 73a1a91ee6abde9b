"""The engine process answers the protocol basics (python-chess is the strict client)."""
import os
import re
import subprocess

import chess
import chess.engine

from black_numba.search.limits import Limits
from conftest import ENGINE, talk as _talk


def test_uci_handshake_and_go_perft_format():
    out = _talk(["uci", "isready", "position startpos moves e2e4", "go perft 3", "quit"])
    assert out[0].startswith("id name black_numba")
    assert "uciok" in out and "readyok" in out
    assert out.index("readyok") > out.index("uciok")
    i = out.index("readyok")
    rows = out[i + 1:]
    assert rows[-1] == "Nodes searched: 13160" and rows[-2] == ""
    assert len([r for r in rows if ": " in r and r[0] in "abcdefgh"]) == 20


def test_go_perft_with_threads_gives_the_same_lines():
    """go perft takes its threads from the Threads option; the lines are the same."""
    cmds = ["position startpos moves e2e4", "go perft 4"]
    one = _talk(["uci", "isready"] + cmds + ["quit"])
    two = _talk(["uci", "setoption name Threads value 2", "isready"] + cmds + ["quit"])
    rows = lambda out: out[out.index("readyok") + 1:]
    assert rows(two) == rows(one)
    assert rows(one)[-1] == "Nodes searched: 405385"


def test_bad_input_keeps_the_engine_alive():
    out = _talk(["uci", "bogus", "position fen not a fen", "position startpos moves e2e5",
                 "position startpos moves e2e4 zz", "", "isready", "position startpos moves e2e4",
                 "d", "quit"])
    errors = [l for l in out if l.startswith("info string error")]
    assert len(errors) == 4
    assert "readyok" in out
    assert out[-1].startswith("rnbqkbnr/pppppppp/8/8/4P3")


def test_position_sent_every_move_matches_python_chess():
    """GUIs resend the whole game each move and the engine plays only the new plies; the
    result must be the full replay's, also after a takeback, a different line, a new FEN with
    the same moves and an illegal move (which keeps the last position)."""
    import random
    rng = random.Random(7)
    board, lines, fens = chess.Board(), [], []
    while board.ply() < 160 and not board.is_game_over():
        board.push(rng.choice(list(board.legal_moves)))
        lines += ["position startpos moves " + " ".join(m.uci() for m in board.move_stack), "d"]
        fens.append(board.fen())
    game = [m.uci() for m in board.move_stack]
    lines += ["position startpos moves " + " ".join(game[:-3]), "d",          # takeback
              "position startpos moves " + " ".join(game + ["a1a1"]), "d",    # illegal tail
              "position startpos moves d2d4 d7d5", "d",                       # another game
              "position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1g1", "d",
              "position fen 4k3/8/8/8/8/8/8/R3K3 w Q - 0 1 moves e1c1", "d", "quit"]
    out = [l for l in _talk(lines) if "/" in l and not l.startswith("info")]
    back = chess.Board()
    for m in game[:-3]:
        back.push_uci(m)
    assert out[:len(fens)] == fens
    assert out[len(fens):] == [back.fen(), back.fen(),
                               "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2",
                               "4k3/8/8/8/8/8/8/5RK1 b - - 1 1", "4k3/8/8/8/8/8/8/2KR4 b - - 1 1"]


def test_python_chess_client_opens_engine():
    eng = chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=120)
    try:
        assert eng.id["name"].startswith("black_numba")
        eng.ping()
    finally:
        eng.quit()


def test_launcher_ignores_a_black_numba_folder_in_the_working_directory(tmp_path):
    """GUIs start the engine in folders of their own choosing: a decoy package there must not
    shadow ours (`python -m` puts the working directory first on sys.path)."""
    decoy = tmp_path / "black_numba"
    decoy.mkdir()
    (decoy / "__init__.py").write_text("raise ImportError('decoy package imported')\n")
    r = subprocess.run([ENGINE], input="uci\nquit\n", capture_output=True, text=True,
                       timeout=120, cwd=tmp_path)
    assert "uciok" in r.stdout.splitlines(), r.stderr
    assert "decoy" not in r.stderr


def test_go_parser_keeps_what_it_understands():
    """One tolerant parser: each bad parameter is skipped with its value and reported, the
    rest (searchmoves included) is obeyed."""
    from black_numba.frontends.uci import UciEngine
    eng = UciEngine(out=open(os.devnull, "w"))
    limits, searchmoves, ponder, errors = eng._parse_go(
        "wtime abc btime 1000 depth -3 movetime 500 frobnicate searchmoves e2e4 d2d4 ponder"
        .split())
    assert limits == Limits(btime=1000, movetime=500)
    assert searchmoves == ["e2e4", "d2d4"] and ponder
    assert len(errors) == 3 and "wtime" in errors[0] and "depth" in errors[1]
    assert "frobnicate" in errors[2]
    limits, _, _, errors = eng._parse_go(["wtime", "-50", "depth", "0", "nodes", "0", "winc"])
    assert limits == Limits(wtime=0, depth=1, nodes=1) and errors == ["go winc needs a number"]
    out = _talk(["uci", "position startpos", "go depth x depth 2", "isready", "quit"])
    assert any(l.startswith("info string error") and "depth" in l for l in out)
    assert any(l.startswith("bestmove ") for l in out) and "readyok" in out


def _readme_options():
    """{name: (type, min, max, default)} from the README's option table."""
    text = open(os.path.join(os.path.dirname(ENGINE), "..", "README.md")).read()
    rows = text.split("| option | type | default | meaning |")[1].split("\n\n")[0].splitlines()[2:]
    out = {}
    for row in rows:
        name, kind, default = [c.strip().strip("`") for c in row.strip("|").split("|")[:3]]
        lo = hi = None
        if kind.startswith("spin"):
            kind, span = kind.split()
            lo, hi = re.fullmatch(r"(-?\d+)-(-?\d+)", span).groups()
        elif kind.startswith("combo"):
            kind, choices = kind.split()
            lo = choices.split("/")             # a combo's choices stand in its min
        out[name] = (kind, lo, hi, {"empty": "<empty>", "-": None}.get(default, default))
    return out


def test_readme_option_table_matches_the_uci_answer():
    engine = {}
    for line in _talk(["uci", "quit"]):
        if not line.startswith("option name "):
            continue
        name, rest = line[12:].split(" type ")
        words = rest.split()
        kind = words[0]
        get = lambda key: words[words.index(key) + 1] if key in words else None  # noqa: E731
        default = " ".join(words[words.index("default") + 1:]) if "default" in words else None
        if kind == "spin":
            default = get("default")
        low = get("min")
        if kind == "combo":
            default = get("default")
            low = [words[i + 1] for i, w in enumerate(words) if w == "var"]
        engine[name] = (kind, low, get("max"), default)
    assert engine == _readme_options()
    assert len(engine) == 25


def test_tune_options_only_on_request():
    """With BLACK_NUMBA_TUNE=1 the engine offers SPSA's numbers as `Tune NAME` spins (the
    search's values as defaults) and takes them; without it they are unknown options."""
    from black_numba.search import params
    from black_numba.search.params import TUNE
    lines = ["uci", "setoption name Tune RFP_MARGIN value 120",
             "setoption name Tune RFP_MARGIN value 999", "isready",
             "position startpos", "go depth 5", "quit"]
    env = dict(os.environ, BLACK_NUMBA_TUNE="1")
    out = subprocess.run([ENGINE], input="".join(l + "\n" for l in lines), capture_output=True,
                         text=True, timeout=120, env=env).stdout.splitlines()
    declared = [l for l in out if l.startswith("option name Tune ")]
    assert len(declared) == len(TUNE)
    lo, hi, _ = TUNE["RFP_MARGIN"]
    assert (f"option name Tune RFP_MARGIN type spin default {params.RFP_MARGIN} min {lo} "
            f"max {hi}") in declared
    errors = [l for l in out if l.startswith("info string error")]
    assert len(errors) == 1 and "between" in errors[0]
    assert out[-1].startswith("bestmove ")
    env.pop("BLACK_NUMBA_TUNE")
    out = subprocess.run([ENGINE], input="".join(l + "\n" for l in lines), capture_output=True,
                         text=True, timeout=120, env=env).stdout.splitlines()
    assert not [l for l in out if l.startswith("option name Tune ")]
    errors = [l for l in out if l.startswith("info string error")]
    assert len(errors) == 2 and all("no such option" in e for e in errors)
    assert out[-1].startswith("bestmove ")
