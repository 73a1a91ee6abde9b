"""SPSA on games: tune the search's numbers (``params.TUNE``) at a fixed node count.

    black-numba tune --spsa LOG --openings FILE [--games 10000] [--params A,B] [--nodes N]
    black-numba tune --spsa LOG --write-params PARAMS_PY
    (the command: frontends/commands/tune.py; in Python: run(config, openings, log) -> theta)

Each iteration draws a random sign per number, plays a few game pairs (each opening with both
colours) between the engine at theta + c_k * delta and at theta - c_k * delta, and moves theta
by r_k * c_k * (wins - losses of the plus side) * delta, with fishtest's schedules (Spall's
gains: c_k = c / k^0.101, a_k = a / (A + k)^0.602, r_k = a_k / c_k^2, chosen so that c and r
end at each number's c_end and at the final rate r_end). Workers run iterations at once on a
shared theta, as fishtest's do. Engines are started once per worker with BLACK_NUMBA_TUNE=1 and
get the values through their `Tune NAME` options. Every iteration is a line of the JSON log; a
run given an existing log goes on from its last line.

The optimiser is our own: the SPSA packages on PyPI (spsa, Nevergrad's) evaluate a function
at each point, where a chess tuner has only the result of one point played against the other.
"""
import json
import os
import random
import re
import sys
import threading
from dataclasses import dataclass

import chess

from black_numba.search.params import SPSA_DEFAULT, TUNE, margins
from black_numba.uci_client import UciProcess

ALPHA = 0.602             # Spall's exponents, as fishtest uses them
GAMMA = 0.101
A_SHARE = 0.1             # the stability constant A: this share of the iterations
RESIGN_CP = 1000          # both engines see at least this for RESIGN_PLIES plies: adjudicated
RESIGN_PLIES = 8
MAX_PLIES = 300           # a game this long is a draw
ENGINE_START_S = 120      # a cold cache compiles before `uciok`
MOVE_TIMEOUT_S = 120      # one fixed-node move; longer is a hung engine
ENGINE_OPTIONS = (("Hash", 16), ("Threads", 1))
# kept for the last comparisons: SPSA never draws an opening from it
HOLDOUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "openings_holdout.epd")


class SpsaError(ValueError):
    """Bad settings, openings, log or params file, with the reason."""


def this_engine():
    """The command that runs this installation's engine (UCI with no arguments)."""
    return (sys.executable, "-m", "black_numba")


@dataclass(frozen=True)
class SpsaConfig:
    """One SPSA run: the numbers tuned (TUNE names), the game budget, game pairs an iteration,
    nodes a move, workers at once, the final learning rate, the seed, the engine command."""
    names: tuple = SPSA_DEFAULT
    games: int = 10000
    pairs: int = 2
    nodes: int = 10000
    concurrency: int = 2
    r_end: float = 0.01
    seed: int = 1
    engine: tuple = this_engine()

    def check(self):
        """SpsaError naming the first bad setting."""
        unknown = [n for n in self.names if n not in TUNE]
        if unknown or not self.names:
            raise SpsaError(f"unknown numbers to tune: {unknown}" if unknown
                            else "no numbers to tune")
        if self.pairs < 1 or self.games < 2 * self.pairs:
            raise SpsaError("the game budget is below one iteration's pairs")
        if self.nodes < 1 or self.concurrency < 1:
            raise SpsaError("nodes and concurrency must be positive")

    @property
    def iterations(self):
        return max(1, self.games // (2 * self.pairs))


def _fen_of(line):
    """An EPD or FEN line as a FEN (its first four fields, the clocks reset)."""
    return " ".join(line.split()[:4]) + " 0 1"


def read_openings(path, holdout=HOLDOUT):
    """The FENs of an EPD/FEN file less the held-out openings (kept for the last
    comparisons); SpsaError when none is left."""
    with open(path) as f:
        fens = [_fen_of(line) for line in f if line.strip()]
    if holdout and os.path.exists(holdout):
        with open(holdout) as f:
            kept_back = {_fen_of(line) for line in f if line.strip()}
        fens = [fen for fen in fens if fen not in kept_back]
    if not fens:
        raise SpsaError(f"{path}: no opening outside the held-out set")
    return fens


def play(white, black, fen, nodes):
    """One game from fen between two started engines: 1, 0.5 or 0 for white. A side both
    engines see lost by RESIGN_CP for RESIGN_PLIES plies is adjudicated lost."""
    board = chess.Board(fen)
    moves = []
    lopsided = 0
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        mover = board.turn
        eng = white if mover == chess.WHITE else black
        position = f"position fen {fen}" + (" moves " + " ".join(moves) if moves else "")
        best, score, _, _ = eng.go(position, f"go nodes {nodes}", MOVE_TIMEOUT_S)
        move = chess.Move.from_uci(best) if best not in ("", "0000", "(none)") else None
        if move is None or move not in board.legal_moves:
            raise SpsaError(f"{eng.name} played {best!r} in {board.fen()}")
        board.push(move)
        moves.append(best)
        cp = 0 if score is None else (score if mover == chess.WHITE else -score)
        lopsided = lopsided + 1 if abs(cp) >= RESIGN_CP else 0
        if lopsided >= RESIGN_PLIES:
            return 1.0 if cp > 0 else 0.0
    outcome = board.outcome(claim_draw=True)
    if outcome is None or outcome.winner is None:
        return 0.5
    return 1.0 if outcome.winner == chess.WHITE else 0.0


class Spsa:
    """theta and the schedules; iterations are numbered from 1."""

    def __init__(self, names, iterations, r_end, seed):
        start = dict(zip(TUNE, margins()))
        self.names = list(names)
        self.theta = {n: float(start[n]) for n in self.names}
        self.lo = {n: TUNE[n][0] for n in self.names}
        self.hi = {n: TUNE[n][1] for n in self.names}
        self.big_a = A_SHARE * iterations
        self.c0 = {n: TUNE[n][2] * iterations ** GAMMA for n in self.names}
        self.a0 = {n: r_end * TUNE[n][2] ** 2 * (self.big_a + iterations) ** ALPHA
                   for n in self.names}
        self.k = 0
        self.rng = random.Random(seed)
        self.lock = threading.Lock()

    def _clip(self, name, value):
        return min(max(value, self.lo[name]), self.hi[name])

    def draw(self):
        """(k, delta, plus values, minus values) of the next iteration."""
        with self.lock:
            self.k += 1
            k = self.k
            delta = {n: self.rng.choice((-1, 1)) for n in self.names}
            theta = dict(self.theta)
        ck = {n: self.c0[n] / k ** GAMMA for n in self.names}
        plus = {n: int(round(self._clip(n, theta[n] + ck[n] * delta[n]))) for n in self.names}
        minus = {n: int(round(self._clip(n, theta[n] - ck[n] * delta[n]))) for n in self.names}
        return k, delta, plus, minus

    def opening(self, openings):
        with self.lock:
            return openings[self.rng.randrange(len(openings))]

    def step(self, k, delta, result):
        """Move theta by one iteration's result (the plus side's wins - losses)."""
        with self.lock:
            for n in self.names:
                ck = self.c0[n] / k ** GAMMA
                ak = self.a0[n] / (self.big_a + k) ** ALPHA
                self.theta[n] = self._clip(n, self.theta[n] + ak / ck * result * delta[n])
            return dict(self.theta)


def read_log(path):
    """The iterations of an SPSA log (one JSON object a line); [] where there is no file."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        try:
            return [json.loads(line) for line in f if line.strip()]
        except json.JSONDecodeError as e:
            raise SpsaError(f"{path}: not an SPSA log ({e})") from None


def open_engine(command):
    """An engine with its `Tune NAME` options, started and ready."""
    eng = UciProcess(list(command), env=dict(os.environ, BLACK_NUMBA_TUNE="1"))
    eng.handshake(ENGINE_START_S)
    for name, value in ENGINE_OPTIONS:
        eng.set_option(name, value)
    eng.ready(ENGINE_START_S)
    return eng


def _configure(eng, values):
    for name, value in values.items():
        eng.set_option(f"Tune {name}", value)
    eng.ready(ENGINE_START_S)


class _Run:
    """The state the workers share: the optimiser, the openings, the log and the budget."""

    def __init__(self, config, spsa, openings, log, games_done):
        self.config, self.spsa, self.openings, self.log = config, spsa, openings, log
        self.games_done = games_done
        self.lock = threading.Lock()
        self.errors = []

    def take_iteration(self):
        """Whether the budget has room for one more iteration (then counted as taken)."""
        with self.lock:
            games = 2 * self.config.pairs
            if self.errors or self.games_done + games > self.config.games:
                return False
            self.games_done += games
            return True

    def iteration(self, plus_eng, minus_eng):
        k, delta, plus, minus = self.spsa.draw()
        _configure(plus_eng, plus)
        _configure(minus_eng, minus)
        score = 0.0
        for _ in range(self.config.pairs):
            fen = self.spsa.opening(self.openings)
            for plus_white in (True, False):
                for eng in (plus_eng, minus_eng):
                    eng.new_game(ENGINE_START_S)
                white, black = (plus_eng, minus_eng) if plus_white else (minus_eng, plus_eng)
                r = play(white, black, fen, self.config.nodes)
                score += r if plus_white else 1 - r
        result = 2 * score - 2 * self.config.pairs          # wins - losses of the plus side
        theta = self.spsa.step(k, delta, result)
        with self.lock:
            self.log.write(json.dumps({"k": k, "delta": delta, "plus": plus, "minus": minus,
                                       "result": result, "theta": theta}) + "\n")
            self.log.flush()

    def worker(self):
        engines = []
        try:
            engines = [open_engine(self.config.engine), open_engine(self.config.engine)]
            while self.take_iteration():
                self.iteration(*engines)
        except Exception as e:        # a worker's failure stops the run and is raised after
            with self.lock:
                self.errors.append(e)
        finally:
            for eng in engines:
                eng.close()


def run(config, openings, log_path):
    """Play config's SPSA run (openings: FENs), appending an iteration a line to log_path
    and going on from what it holds; returns the final theta (name -> value)."""
    config.check()
    spsa = Spsa(config.names, config.iterations, config.r_end, config.seed)
    rows = read_log(log_path)
    games_done = 0
    if rows:
        spsa.k = max(r["k"] for r in rows)
        spsa.theta.update({n: v for n, v in rows[-1]["theta"].items() if n in spsa.theta})
        spsa.rng.seed(config.seed + spsa.k)
        games_done = 2 * config.pairs * len(rows)
    with open(log_path, "a") as log:
        shared = _Run(config, spsa, openings, log, games_done)
        threads = [threading.Thread(target=shared.worker, name=f"spsa-{i}")
                   for i in range(config.concurrency)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    if shared.errors:
        raise shared.errors[0]
    return dict(spsa.theta)


def write_params(log_path, params_path):
    """The last theta of an SPSA log, rounded, written as the values of the tuned numbers in
    the params.py at params_path; returns [(name, old, new)]."""
    for name in (log_path, params_path):
        if not os.path.exists(name):
            raise SpsaError(f"no such file: {name}")
    rows = read_log(log_path)
    if not rows:
        raise SpsaError(f"{log_path}: no iterations")
    with open(params_path) as f:
        text = f.read()
    changes = []
    for name, value in rows[-1]["theta"].items():
        line = re.compile(r"^(%s = )(-?\d+)\b" % re.escape(name), re.M)
        found = line.search(text)
        if found is None:
            raise SpsaError(f"{params_path}: no number {name}")
        new = int(round(value))
        changes.append((name, int(found.group(2)), new))
        text = text[:found.start()] + f"{found.group(1)}{new}" + text[found.end():]
    with open(params_path, "w") as f:
        f.write(text)
    return changes
