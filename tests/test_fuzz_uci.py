"""Fuzzing the UCI protocol: seeded batches of random lines sent to a real engine process.

Each batch mixes go/stop/setoption storms, broken and random FENs, `position ... moves` with
junk and illegal moves, stray bytes (invalid UTF-8 too), lines beyond the engine's length
limit, unknown commands and `go` with junk parameters. Every search the fuzz starts is
bounded: a clean `go` carries small nodes, depth or movetime, and any other `go` is followed
by `stop`. After every batch the engine must still be alive and in step (a marker position
set and printed back, then `readyok`), must have answered each search `go` with one
`bestmove`, must have written nothing but protocol, and every refusal must be an
`info string error: ...` line naming the input it refuses. Every few batches, and at the end,
the options are set back to their defaults and a fixed-node search (Threads 1, after
`ucinewgame`) must give the same bestmove, score and node count as a fresh engine. Cases are
seeded (tests/fuzzing.py: FUZZ_SEED, FUZZ_SCALE); this harness replaces the hypothesis
protocol fuzz that test_uci_clients.py held.
"""
import itertools
import os
import queue
import re
import subprocess
import threading
import time

import chess
import pytest

from black_numba.core.engine import OPTIONS
from conftest import ENGINE, ROOT
from fuzzing import cases, mutate, rng, where

pytestmark = pytest.mark.slow        # a few hundred lines through a real process

BATCHES = 60                 # batches at the default scale (about 13 lines each)
CHECK_EVERY = 20             # batches between fixed-node checks
REPLY_TIMEOUT_S = 60         # a batch's marker and readyok must come back within this
COMPILE_TIMEOUT_S = 600      # the first search of a fresh engine, a compile included
CHECK_NODES = 3000
CHECK_FENS = (
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
)
FENS = CHECK_FENS + (
    chess.STARTING_FEN,
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",                 # stalemate
    "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",              # checkmate
    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",   # Chess960
)
FEN_CHARS = "rnbqkpRNBQKP12345678/ wb-KQkqAHah09e36x"
WORDS = ["uci", "isready", "ucinewgame", "position", "startpos", "fen", "moves", "stop",
         "ponderhit", "setoption", "name", "value", "Hash", "MultiPV", "Threads", "Ponder",
         "depth", "nodes", "movetime", "wtime", "btime", "winc", "binc", "movestogo",
         "infinite", "ponder", "mate", "searchmoves", "e2e4", "e7e5", "e2e5", "a7a8q", "0000",
         "-1", "0", "1", "3", "99999999999", "abc", "debug", "on", "off", "register", "d",
         "eval", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "w", "b", "KQkq", "-",
         "8/8/8", "Move", "Overhead", "Clear", "true", "false", "<empty>", "x" * 300]
GO_JUNK = ["nodes", "depth", "movetime", "wtime", "btime", "winc", "binc", "movestogo",
           "mate", "infinite", "ponder", "searchmoves", "-5", "0", "1", "abc", "1e3", "3.5",
           "99999999999999999999", "e2e4", "z9z9", "--", "nodes", "depth"]
SPIN_VALUES = {"Hash": [1, 2, 8, 16, 32], "Threads": [1, 2, 3]}   # valid values sent: kept small
OPTION_JUNK = ["", "abc", "-1", "0", "1", "100000", "99999999999999999999", "true", "false",
               "TRUE", "<empty>", "1.5", "/nonexistent/file.bnn", "tests", "x" * 200]
PROTOCOL = re.compile(r"(id |option |uciok$|readyok$|info |bestmove |\S+: \d+$|$|"
                      r"Nodes searched: \d+$|[1-8pnbrqkPNBRQK/]+ [wb] \S+ \S+ \d+ \d+$)")
SYNC = ("7k/8/8/8/8/8/8/K7 w - - 0 %d" % n for n in itertools.count(1))


class Engine:
    """A real engine process: bytes in (stray bytes too), text lines out on a reader thread.
    stdin is decoded strictly (PYTHONIOENCODING=utf-8), as under most desktop locales."""

    def __init__(self):
        env = dict(os.environ, PYTHONIOENCODING="utf-8")
        self.p = subprocess.Popen([ENGINE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=env, cwd=ROOT)
        self.q = queue.Queue()
        self.err = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.err.extend(self.p.stderr), daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.q.put(line.decode("utf-8", "replace").rstrip("\n"))
        self.q.put(None)

    def send(self, *lines):
        for line in lines:
            self.p.stdin.write((line if isinstance(line, bytes) else line.encode()) + b"\n")
        self.p.stdin.flush()

    def until(self, predicate, timeout=REPLY_TIMEOUT_S):
        """Lines up to and including the first one predicate accepts."""
        out, end = [], time.monotonic() + timeout
        while True:
            try:
                line = self.q.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                raise TimeoutError("no answer; last lines: " + repr(out[-5:])) from None
            if line is None:
                raise EOFError(f"engine exited ({self.p.poll()}): {out[-5:]} "
                               f"{b''.join(self.err[-5:]).decode(errors='replace')}")
            out.append(line)
            if predicate(line):
                return out

    def close(self):
        try:
            self.send("quit")
            self.p.wait(timeout=10)
        except (BrokenPipeError, subprocess.TimeoutExpired):
            self.p.kill()


def _defaults():
    """setoption lines putting every option back to its default, EvalFile before Use NNUE
    (a file set while the network was off is only read when it is turned on)."""
    out = []
    for o in sorted(OPTIONS, key=lambda o: o.name != "EvalFile"):
        if o.kind != "button":
            value = str(o.default).lower() if o.kind == "check" else (o.default or "<empty>")
            out.append(f"setoption name {o.name} value {value}")
    return out


def fixed_search(eng, fen, timeout=REPLY_TIMEOUT_S):
    """(bestmove, last info's depth, score, nodes and pv) of a fixed-node search of fen on
    default options, after ucinewgame."""
    eng.send(*_defaults(), "ucinewgame", f"position fen {fen}", f"go nodes {CHECK_NODES}")
    out = eng.until(lambda l: l.startswith("bestmove"), timeout)
    infos = [l for l in out if l.startswith("info depth")]
    last = re.sub(r" (nps|time|hashfull) \d+", "", infos[-1]) if infos else None
    return out[-1], last


@pytest.fixture(scope="module")
def fresh():
    """The fixed-node searches of a fresh engine."""
    eng = Engine()
    eng.send("uci")
    eng.until(lambda l: l == "uciok")
    try:
        # the first search may wait for a compile (a new cache after an edit)
        return {fen: fixed_search(eng, fen, COMPILE_TIMEOUT_S) for fen in CHECK_FENS}
    finally:
        eng.close()


# -- line makers: each returns (lines, needs_stop) ---------------------------------------------
def _random_game(r, fen=chess.STARTING_FEN, plies=None):
    board = chess.Board(fen, chess960="HF" in fen)
    moves = []
    for _ in range(r.randrange(0, 40) if plies is None else plies):
        legal = list(board.legal_moves)
        if not legal:
            break
        m = r.choice(legal)
        moves.append(board.uci(m, chess960=board.chess960))
        board.push(m)
    return moves


def junk_fen(r):
    fen = r.choice(FENS)
    how = r.randrange(6)
    if how == 0:
        return fen
    if how == 1:
        fields = fen.split()
        i = r.randrange(len(fields))
        fields[i] = r.choice(["", "x", "-", "9", "w", "KQkq", "e9", "-1", "99999", fields[i] * 2])
        return " ".join(fields)
    if how == 2:
        return " ".join(fen.split()[:r.randrange(0, 6)])
    if how == 3:
        chars = list(fen)
        for _ in range(r.randint(1, 4)):
            chars[r.randrange(len(chars))] = r.choice(FEN_CHARS)
        return "".join(chars)
    if how == 4:
        return "".join(r.choice(FEN_CHARS) for _ in range(r.randrange(0, 80)))
    return mutate(fen.encode(), r)[1].decode("latin-1").replace("\n", " ").replace("\r", " ")


def line_position(r):
    moves = _random_game(r)
    junk = ["e2e5", "a1a8", "e1g1", "0000", "zz", "e7e8k", "a7a8q", "h2h1", "e2e4e4", "E2E4",
            "", "moves", "fen", "startpos", "\x7f"]
    for _ in range(r.choice((0, 0, 1, 2))):
        moves.insert(r.randint(0, len(moves)), r.choice(junk))
    head = r.choice(["position startpos", "position fen " + junk_fen(r), "position",
                     "position fen", "position foo", "position startpos junk",
                     "position fen " + r.choice(FENS)])
    tail = " moves " + " ".join(moves) if r.random() < 0.8 else ""
    return [head + tail], False


def line_long_game(r):
    """A long legal game (the engine trims its undo stack) and perhaps an illegal move."""
    fen = r.choice(FENS[:4])
    moves = _random_game(r, fen, plies=r.randrange(100, 400))
    if r.random() < 0.5:
        moves.append("a1a1")
    return [f"position fen {fen} moves " + " ".join(moves), f"go nodes {r.randint(1, 500)}"], False


def line_go(r):
    bound = r.choice([f"nodes {r.randint(0, 2000)}", f"depth {r.randint(0, 3)}",
                      f"movetime {r.randint(0, 30)}"])
    extra = ""
    if r.random() < 0.3:
        extra = "searchmoves " + " ".join(r.choice(["e2e4", "d2d4", "g1f3", "e7e5", "a1a8",
                                                   "zz", "0000"]) for _ in range(3)) + " "
    return [f"go {extra}{bound}"], False


def line_go_junk(r):
    return ["go " + " ".join(r.choice(GO_JUNK) for _ in range(r.randrange(0, 7)))], True


def line_perft(r):
    """Counts, or refusals; a refused depth searches with the rest (none), so `stop`."""
    return [f"go perft {r.choice([0, 1, 2, 3, -1, 13, 99999999999, 'abc', ''])}"], True


def line_storm(r):
    out = []
    for _ in range(r.randint(3, 10)):
        out.append(r.choice([f"go nodes {r.randint(1, 3000)}", f"go depth {r.randint(1, 4)}",
                             "go infinite", "go ponder", "stop", "ponderhit", "isready",
                             "setoption name MultiPV value %d" % r.randint(1, 4),
                             "setoption name Clear Hash", "ucinewgame", "go mate 2"]))
    return out, True


def line_setoption(r):
    o = r.choice(OPTIONS)
    name = o.name
    how = r.randrange(6)
    if how == 0:
        name = name.upper() if r.random() < 0.5 else name.lower()
    elif how == 1:
        name = r.choice(["Hashh", "", "Threads Threads", "value", "Use", "x" * 100,
                         "Syzygy Path", "name"])
    if o.kind == "spin" and r.random() < 0.5:
        value = str(r.choice(SPIN_VALUES.get(o.name, [o.min, o.max, o.default])))
    else:
        value = r.choice(OPTION_JUNK)
    form = r.randrange(5)
    if form == 0:
        return [f"setoption name {name}"], False
    if form == 1:
        return [f"setoption {name} value {value}"], False
    return [f"setoption name {name} value {value}"], False


def line_words(r):
    return [" ".join(r.choice(WORDS) for _ in range(r.randrange(1, 9)))], True


def line_bytes(r):
    data = bytes(r.randrange(256) for _ in range(r.randrange(1, 60)))
    data = data.replace(b"\n", b" ").replace(b"\r", b" ")
    if data.split()[:1] in ([b"quit"], [b"go"]):
        data = b"x" + data
    return [data], False


def line_long(r):
    n = r.choice([70_000, 1 << 16, (1 << 16) + 1, 200_000, 5000])
    return [r.choice(["position startpos moves ", "setoption name ", "go ", ""]) +
            "e2e4 " * (n // 5)], True


def line_simple(r):
    return [r.choice(["uci", "isready", "ucinewgame", "stop", "ponderhit", "debug on",
                      "debug off", "debug", "debug maybe", "d", "eval", "register later",
                      "quitx", "GO", "Position startpos", "   ", "\t", ""])], False


MAKERS = [(line_position, 5), (line_long_game, 1), (line_go, 5), (line_go_junk, 3),
          (line_perft, 1), (line_storm, 1), (line_setoption, 4), (line_words, 3),
          (line_bytes, 2), (line_long, 1), (line_simple, 3)]


def batch(r):
    """About a dozen lines; a `stop` follows any line that could start an unbounded search."""
    lines = []
    makers, weights = zip(*MAKERS)
    while len(lines) < 12:
        made, needs_stop = r.choices(makers, weights)[0](r)
        lines += made + (["stop"] if needs_stop else [])
    return lines


# -- the properties --------------------------------------------------------------------------
def _text(line):
    """A line as the engine reads it (invalid UTF-8 replaced)."""
    return line.decode("utf-8", "replace") if isinstance(line, bytes) else line


def _tokens(line):
    return _text(line).split()


def _names_input(error, sent):
    """Does an error line name what it refuses: the command and a word of a line sent (as
    written, or escaped as repr writes it), or the length of a line too long?"""
    m = re.match(r"line of (\d+) characters ignored", error)
    if m:
        return any(len(_text(l).strip()) == int(m.group(1)) for l in sent)
    for line in sent:
        for t in _tokens(line):
            if t in error or repr(t)[1:-1] in error:
                return True
    return False


def _searches(sent):
    """The `go` lines that start a search (not perft) and so owe one bestmove each; None
    where that cannot be told from the line alone (perft next to other words)."""
    n = 0
    for line in sent:
        t = _tokens(line)
        if t[:1] == ["go"] and len(_text(line).strip()) <= 1 << 16:
            if "perft" in t:
                if len(t) != 3:
                    return None
                n += not t[2].isdigit()          # `go perft abc` searches
            else:
                n += 1
    return n


def test_random_uci_lines_leave_the_engine_alive_and_unchanged(fresh):
    r = rng("uci lines")
    eng = Engine()
    eng.send("uci")
    eng.until(lambda l: l == "uciok")
    sent_total = errors = searches = 0
    try:
        for i in range(cases(BATCHES)):
            lines = batch(r)
            sync = next(SYNC)
            eng.send(*lines, "stop", "position fen " + sync, "d", "isready")
            sent_total += len(lines)
            note = (where("uci lines", i), lines)
            out = eng.until(lambda l: l == sync)
            assert eng.until(lambda l: True) == ["readyok"], note
            bad = [l for l in out if not PROTOCOL.match(l)]
            assert not bad, (note, bad)
            expected = _searches(lines)
            bestmoves = [l for l in out if l.startswith("bestmove ")]
            searches += len(bestmoves)
            if expected is not None:
                assert len(bestmoves) == expected, (note, bestmoves)
            for line in bestmoves:
                parts = line.split()
                assert len(parts) in (2, 4) and len(parts[1]) in (4, 5), (note, line)
            for line in out:
                if line.startswith("info string error"):
                    errors += 1
                    assert line.startswith("info string error: "), (note, line)
                    assert _names_input(line[len("info string error: "):], lines), (note, line)
            if (i + 1) % CHECK_EVERY == 0 or i + 1 == cases(BATCHES):
                for fen in CHECK_FENS:
                    assert fixed_search(eng, fen) == fresh[fen], (note, fen)
        assert sent_total >= 10 * cases(BATCHES)
        print(f"\nuci lines: {sent_total} lines in {cases(BATCHES)} batches, "
              f"{errors} refusals, {searches} bestmoves, {where('uci lines', cases(BATCHES))}")
    finally:
        eng.close()
