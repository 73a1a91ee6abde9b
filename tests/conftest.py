import os
import queue
import random
import subprocess
import threading
import time

import chess
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE = os.path.join(ROOT, "bin", "black-numba")
PERFT_DIR = os.path.join(ROOT, "perft")


def random_positions(n_games, seed, max_plies=120):
    """Boards from seeded random games (every ply), for cross-checks against python-chess."""
    rng = random.Random(seed)
    out = []
    for _ in range(n_games):
        board = chess.Board()
        for _ in range(rng.randrange(10, max_plies)):
            moves = list(board.legal_moves)
            if not moves:
                break
            # favour captures and promotions a little so endgames and odd cases appear
            caps = [m for m in moves if board.is_capture(m) or m.promotion]
            board.push(rng.choice(caps if caps and rng.random() < 0.4 else moves))
            out.append(board.copy(stack=False))
    return out


@pytest.fixture(scope="session")
def positions():
    return random_positions(120, seed=2026)


def talk(lines, timeout=120):
    """The engine's output lines for input lines sent at once."""
    r = subprocess.run([ENGINE], input="".join(l + "\n" for l in lines), capture_output=True,
                       text=True, timeout=timeout)
    return r.stdout.splitlines()


class Raw:
    """A raw engine process with a reader thread."""

    def __init__(self):
        self.p = subprocess.Popen([ENGINE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.q = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.q.put(line.rstrip("\n"))
        self.q.put(None)

    def send(self, *lines):
        for line in lines:
            self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait_for(self, prefix, timeout=60):
        """Lines up to and including the first one starting with prefix."""
        out = []
        end = time.monotonic() + timeout
        while True:
            line = self.q.get(timeout=max(0.01, end - time.monotonic()))
            if line is None:
                raise EOFError("engine exited: " + "\n".join(out[-5:]))
            out.append(line)
            if line.startswith(prefix):
                return out

    def close(self):
        try:
            self.send("quit")
        except BrokenPipeError:
            pass
        self.p.wait(timeout=10)


def pytest_collection_finish(session):
    """The type check of test_numba_hygiene, a fresh compile, starts now if it is to run."""
    if any(item.name == "test_no_float64_sneaks_into_compiled_code" for item in session.items):
        import test_numba_hygiene
        test_numba_hygiene.start_type_check()


def pytest_sessionfinish(session):
    import sys
    if "test_numba_hygiene" in sys.modules:
        sys.modules["test_numba_hygiene"].stop_type_check()


def pytest_report_header(config):
    from fuzzing import SCALE, SEED
    return f"fuzzing: FUZZ_SEED={SEED} FUZZ_SCALE={SCALE} (tests/fuzzing.py)"
