"""SPSA on games: tune the search's numbers (``params.TUNE``) at a fixed node count.

Each iteration draws a random sign per number, plays a few game pairs (each opening with both
colours) between the engine at theta + c_k * delta and at theta - c_k * delta, and moves theta
by r_k * c_k * (wins - losses of the plus side) * delta, with fishtest's schedules (Spall's
gains: c_k = c / k^0.101, a_k = a / (A + k)^0.602, r_k = a_k / c_k^2, chosen so that c and r
end at each number's c_end and at --r-end). Workers run iterations at once on a shared theta,
as fishtest's do. Engines are started once per worker with BLACK_NUMBA_TUNE=1 and get the
values through their `Tune NAME` options. Every iteration is a line of the JSON log (--log); a
run given an existing log goes on from its last line.

    bench/spsa.py --games 10000 --log bench/results/spsa_net.jsonl
    bench/spsa.py --log bench/results/spsa_net.jsonl --write-params black_numba/search/params.py

The optimiser is our own: the SPSA packages on PyPI (spsa, Nevergrad's) evaluate a function
at each point, where a chess tuner has only the result of one point played against the other.
"""
import argparse
import json
import os
import random
import re
import sys
import threading

import chess
import chess.engine

from common import ENGINE, use_checkout, write_rest

use_checkout()
from black_numba.search.params import TUNE, margins  # noqa: E402

ALPHA = 0.602             # Spall's exponents, as fishtest uses them
GAMMA = 0.101
A_SHARE = 0.1             # the stability constant A: this share of the iterations
RESIGN_CP = 1000          # both engines see at least this for RESIGN_PLIES plies: adjudicated
RESIGN_PLIES = 8
MAX_PLIES = 300           # a game this long is a draw


def play(engines, board, nodes):
    """One game from board between engines (white, black): 1, 0.5 or 0 for white."""
    lopsided = 0
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        eng = engines[0 if board.turn == chess.WHITE else 1]
        res = eng.play(board, chess.engine.Limit(nodes=nodes), info=chess.engine.INFO_SCORE)
        board.push(res.move)
        score = res.info.get("score")
        cp = score.white().score(mate_score=100000) if score else 0
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
        self.names = names
        self.theta = {n: float(start[n]) for n in names}
        self.lo = {n: TUNE[n][0] for n in names}
        self.hi = {n: TUNE[n][1] for n in names}
        big_a = A_SHARE * iterations
        self.big_a = big_a
        self.c0 = {n: TUNE[n][2] * iterations ** GAMMA for n in names}
        self.a0 = {n: r_end * TUNE[n][2] ** 2 * (big_a + iterations) ** ALPHA for n in names}
        self.k = 0
        self.rng = random.Random(seed)
        self.lock = threading.Lock()

    def draw(self):
        """(k, delta, plus values, minus values) of the next iteration."""
        with self.lock:
            self.k += 1
            k = self.k
            delta = {n: self.rng.choice((-1, 1)) for n in self.names}
            theta = dict(self.theta)
        ck = {n: self.c0[n] / k ** GAMMA for n in self.names}
        plus = {n: int(round(min(max(theta[n] + ck[n] * delta[n], self.lo[n]), self.hi[n])))
                for n in self.names}
        minus = {n: int(round(min(max(theta[n] - ck[n] * delta[n], self.lo[n]), self.hi[n])))
                 for n in self.names}
        return k, delta, plus, minus

    def step(self, k, delta, result):
        """Move theta by one iteration's result (plus side's wins - losses)."""
        with self.lock:
            for n in self.names:
                ck = self.c0[n] / k ** GAMMA
                ak = self.a0[n] / (self.big_a + k) ** ALPHA
                new = self.theta[n] + ak / ck * result * delta[n]
                self.theta[n] = min(max(new, self.lo[n]), self.hi[n])
            return dict(self.theta)


def open_engine(cmd):
    env = dict(os.environ, BLACK_NUMBA_TUNE="1")
    eng = chess.engine.SimpleEngine.popen_uci(cmd, env=env, timeout=120)
    eng.configure({"Hash": 16, "Threads": 1})
    return eng


def worker(spsa, args, openings, log, out_lock, done):
    plus_eng, minus_eng = open_engine(args.engine), open_engine(args.engine)
    try:
        while True:
            with out_lock:
                if done["games"] + 2 * args.pairs > args.games:
                    return
                done["games"] += 2 * args.pairs
            k, delta, plus, minus = spsa.draw()
            plus_eng.configure({f"Tune {n}": v for n, v in plus.items()})
            minus_eng.configure({f"Tune {n}": v for n, v in minus.items()})
            score = 0.0
            for _ in range(args.pairs):
                fen = openings[spsa.rng.randrange(len(openings))]
                for plus_white in (True, False):
                    for eng in (plus_eng, minus_eng):
                        eng.protocol.send_line("ucinewgame")
                    white, black = (plus_eng, minus_eng) if plus_white else (minus_eng, plus_eng)
                    r = play((white, black), chess.Board(fen), args.nodes)
                    score += r if plus_white else 1 - r
            result = 2 * score - 2 * args.pairs          # wins - losses of the plus side
            theta = spsa.step(k, delta, result)
            with out_lock:
                log.write(json.dumps({"k": k, "delta": delta, "plus": plus, "minus": minus,
                                      "result": result, "theta": theta}) + "\n")
                log.flush()
    finally:
        plus_eng.quit()
        minus_eng.quit()


def write_params(log, path):
    """The last theta of an SPSA log, rounded, as the values of the tuned numbers in the
    params.py at path; prints each change."""
    for name in (log, path):
        if not os.path.exists(name):
            sys.exit(f"no such file: {name}")
    with open(log) as f:
        rows = [json.loads(l) for l in f if l.strip()]
    if not rows:
        sys.exit(f"{log}: no iterations")
    with open(path) as f:
        text = f.read()
    for name, value in rows[-1]["theta"].items():
        line = re.compile(r"^(%s = )(-?\d+)\b" % re.escape(name), re.M)
        found = line.search(text)
        if found is None:
            sys.exit(f"{path}: no number {name}")
        new = int(round(value))
        print(f"{name}: {found.group(2)} -> {new}")
        text = text[:found.start()] + f"{found.group(1)}{new}" + text[found.end():]
    with open(path, "w") as f:
        f.write(text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=10000, help="the game budget")
    ap.add_argument("--pairs", type=int, default=2, help="game pairs an iteration")
    ap.add_argument("--nodes", type=int, default=10000, help="nodes a move")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--params", default=",".join(TUNE), help="comma-separated TUNE names")
    ap.add_argument("--r-end", type=float, default=0.01, help="final learning rate R")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--openings", default=None, help="EPD/FEN file (default: the SPRT set)")
    ap.add_argument("--engine", default=ENGINE)
    ap.add_argument("--log", required=True, help="JSON lines, one an iteration (resumed)")
    ap.add_argument("--write-params", metavar="PARAMS_PY", default=None,
                    help="write the log's last theta, rounded, into the tuned numbers of "
                         "this params.py (a confirming test's build), then exit")
    args = ap.parse_args(argv)
    if args.write_params:
        write_params(args.log, args.write_params)
        return
    names = [n for n in args.params.split(",") if n]
    unknown = [n for n in names if n not in TUNE]
    if unknown or not names or args.games < 2 * args.pairs or args.pairs < 1:
        ap.error(f"bad --params {unknown}" if unknown or not names else "--games below one pair")
    if args.openings is None:
        args.openings = "/tmp/openings_sprt.epd"
        write_rest(args.openings)
    with open(args.openings) as f:
        openings = [" ".join(l.split()[:4]) + " 0 1" for l in f if l.strip()]
    iterations = max(1, args.games // (2 * args.pairs))
    spsa = Spsa(names, iterations, args.r_end, args.seed)
    done = {"games": 0}
    if os.path.exists(args.log):
        with open(args.log) as f:
            rows = [json.loads(l) for l in f if l.strip()]
        if rows:
            spsa.k = max(r["k"] for r in rows)
            spsa.theta.update({n: v for n, v in rows[-1]["theta"].items() if n in spsa.theta})
            spsa.rng.seed(args.seed + spsa.k)
            done["games"] = 2 * args.pairs * len(rows)
    out_lock = threading.Lock()
    with open(args.log, "a") as log:
        threads = [threading.Thread(target=worker, args=(spsa, args, openings, log, out_lock,
                                                         done))
                   for _ in range(args.concurrency)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    print(json.dumps({n: round(v, 2) for n, v in spsa.theta.items()}))


if __name__ == "__main__":
    main()
