"""The search driver: iterative deepening, MultiPV, time and node limits, `info` reporting.

Plain Python around the compiled ``search_root``; one aspiration window is one call into
compiled code with the GIL released, so another thread can set the stop flag at any time.
"""
import math
import threading
import time

import numpy as np

from black_numba.bitboard import TABLES
from black_numba.evaluate import WEIGHTS
from black_numba.movegen import legal_moves
from black_numba.position import KEY, SIDE, in_check, make_move, move_to_uci, unmake_move
from black_numba.search import (
    C_ABORT, C_AGE, C_BEST_MOVE, C_BEST_SCORE, C_CURRMOVE, C_CURRNUM, C_NODE_LIMIT, C_NODES,
    C_PV_IDX, C_ROOT_DONE, C_ROOT_N, C_SELDEPTH, C_STOP, INF, PV, PV_LEN, ROOT_MOVES,
    ROOT_NODES, clear_heuristics, new_state, search_root,
)
from black_numba.timeman import allocate, stability_factor
from black_numba.tt import MATE, MATE_IN_MAX, hashfull, new_table, tt_move, tt_probe

MAX_DEPTH = 100


def score_text(score):
    """UCI score: 'cp N' or 'mate N' (negative when being mated)."""
    if score >= MATE_IN_MAX:
        return f"mate {(MATE - score + 1) // 2}"
    if score <= -MATE_IN_MAX:
        return f"mate {-((MATE + score) // 2)}"
    return f"cp {score}"


def wdl(score, ply=30):
    """Win/draw/loss per mille from a logistic model of the centipawn score."""
    if score >= MATE_IN_MAX:
        return 1000, 0, 0
    if score <= -MATE_IN_MAX:
        return 0, 0, 1000
    a, b = 180.0, 60.0
    w = 1 / (1 + math.exp((a - score) / b))
    l = 1 / (1 + math.exp((a + score) / b))
    w, l = round(1000 * w), round(1000 * l)
    return w, 1000 - w - l, l


class Searcher:
    """Owns the transposition table, the search state and the weights."""

    def __init__(self, hash_mb=16):
        self.T = TABLES
        self.W = WEIGHTS
        self.tt = new_table(hash_mb)
        self.S = new_state()
        self.age = 0
        self.stop_event = threading.Event()
        self._lock = threading.Lock()
        self._pondering = False
        self._timer = None
        self._soft = self._hard = None
        self._clock = 0.0

    def resize(self, mb):
        self.tt = new_table(mb)

    def clear(self):
        self.tt[:] = 0
        clear_heuristics(self.S)

    def stop(self):
        """Ask a running search to finish now (any thread)."""
        self.S[C_STOP] = 1
        self.stop_event.set()

    def prepare(self, ponder=False):
        """Clear the stop flag and set the ponder state before a search is started, by the
        thread that starts it, so a stop or ponderhit that arrives at once is never lost."""
        self.S[C_STOP] = 0
        self.stop_event.clear()
        with self._lock:
            self._pondering = ponder
            self._soft = self._hard = None

    def _pv(self, pos, length_cap=MAX_DEPTH):
        S = self.S
        n = int(S[PV_LEN])
        pv = [int(m) for m in S[PV:PV + n]][:length_cap]
        # extend a short PV (cut by a TT hit) with the hash moves
        played = []
        for m in pv:
            make_move(self.T, pos, np.int64(m))
            played.append(m)
        while len(pv) < 8:
            hit, data = tt_probe(self.tt, pos[KEY])
            m = int(tt_move(np.uint64(data))) if hit else 0
            if not m or m not in legal_moves(pos):
                break
            pv.append(m)
            make_move(self.T, pos, np.int64(m))
            played.append(m)
        for _ in played:
            unmake_move(self.T, pos)
        return pv

    def ponderhit(self):
        """The opponent played the expected move: the clock runs from now."""
        with self._lock:
            if self._pondering:
                self._pondering = False
                self._clock = time.perf_counter()
                self._arm(self._hard)         # no-op until search() has set the limits
                self.stop_event.set()

    def _arm(self, deadline_ms):
        if deadline_ms is not None and self._timer is None:
            self._timer = threading.Timer(deadline_ms / 1000.0, self.stop)
            self._timer.daemon = True
            self._timer.start()

    def search(self, pos, limits=None, report=None, multipv=1, searchmoves=None,
               overhead_ms=30, show_wdl=False):
        """Search pos; returns (best move, ponder move or None, score). `report` receives
        info lines. limits: depth, nodes, mate, movetime, wtime, btime, winc, binc,
        movestogo, infinite (keys absent mean no limit). With ponder=True the clock starts
        at ponderhit(), and no bestmove is returned before stop() or ponderhit(); the ponder
        state itself is set by prepare(ponder=True)."""
        limits = limits or {}
        report = report or (lambda line: None)
        S, T, tt = self.S, self.T, self.tt
        t0 = time.perf_counter()
        S[C_ABORT] = 0
        S[C_NODES] = 0
        S[C_SELDEPTH] = 0
        S[C_NODE_LIMIT] = int(limits.get("nodes") or 0)
        self.age = (self.age + 1) & 63
        S[C_AGE] = self.age
        root = legal_moves(pos)
        if searchmoves:
            chosen = [m for m in root if move_to_uci(m) in searchmoves]
            root = chosen or root
        infinite = bool(limits.get("infinite"))
        with self._lock:
            self._clock = t0
            self._timer = None
            self._soft, self._hard = allocate(limits, int(pos[SIDE]) == 0, overhead_ms)
            if not self._pondering and not infinite:
                self._arm(self._hard)
        try:
            if not root:
                report("info depth 0 score " + ("mate 0" if in_check(TABLES, pos) else "cp 0"))
                best, score = None, 0
            else:
                best, score = self._iterate(pos, root, limits, report, multipv, show_wdl, t0)
            # infinite and ponder searches wait for stop (or ponderhit) before answering
            while (infinite or self._pondering) and not S[C_STOP]:
                self.stop_event.wait(0.005)
                self.stop_event.clear()
        finally:
            with self._lock:
                if self._timer is not None:
                    self._timer.cancel()
                self._timer = None
                self._pondering = False
            self.stop_event.clear()
        if best is None:
            return None, None, 0
        ponder_move = None
        make_move(T, pos, np.int64(best))
        hit, data = tt_probe(tt, pos[KEY])
        if hit:
            m = int(tt_move(np.uint64(data)))
            if m and m in legal_moves(pos):
                ponder_move = m
        unmake_move(T, pos)
        return best, ponder_move, score

    def _info(self, depth, k, sc, pv, show_wdl, t0, bound=""):
        S = self.S
        elapsed = time.perf_counter() - t0
        nodes = int(S[C_NODES])
        line = f"info depth {depth} seldepth {int(S[C_SELDEPTH])} multipv {k + 1} score {score_text(sc)}"
        if bound:
            line += " " + bound
        if show_wdl:
            line += " wdl %d %d %d" % wdl(sc)
        line += (f" nodes {nodes} nps {int(nodes / max(elapsed, 1e-6))} "
                 f"hashfull {int(hashfull(self.tt, np.int64(self.age)))} tbhits 0 "
                 f"time {int(elapsed * 1000)}")
        if pv:
            line += " pv " + " ".join(move_to_uci(m) for m in pv)
        return line

    def _aspiration(self, pos, depth, prev, k, report, show_wdl, t0):
        """One iteration: a window around the previous score, widened on fail high or low;
        after the first second each failed window is reported with lowerbound/upperbound."""
        S, T, W, tt = self.S, self.T, self.W, self.tt
        S[C_ROOT_DONE] = 0
        delta = 20
        if depth >= 4 and abs(prev) < MATE_IN_MAX:
            alpha, beta = max(prev - delta, -INF), min(prev + delta, INF)
        else:
            alpha, beta = -INF, INF
        while True:
            score = int(search_root(T, W, pos, tt, S, np.int64(depth), np.int64(alpha),
                                    np.int64(beta)))
            if S[C_ABORT]:
                return score
            if score <= alpha:
                bound = "upperbound"
                beta = (alpha + beta) // 2
                alpha = max(score - delta, -INF)
            elif score >= beta:
                bound = "lowerbound"
                beta = min(score + delta, INF)
            else:
                return score
            if time.perf_counter() - t0 > 1.0:
                pv = [int(m) for m in S[PV:PV + int(S[PV_LEN])]] if bound == "lowerbound" else []
                report(self._info(depth, k, score, pv, show_wdl, t0, bound))
            delta += delta // 2 + 5
            if delta > 800:
                alpha, beta = -INF, INF

    def _iterate(self, pos, root, limits, report, multipv, show_wdl, t0):
        S = self.S
        n = len(root)
        S[C_ROOT_N] = n
        S[ROOT_MOVES:ROOT_MOVES + n] = root
        S[ROOT_NODES:ROOT_NODES + n] = 0
        multipv = max(1, min(multipv, n))
        max_depth = int(limits.get("depth") or MAX_DEPTH)
        mate_limit = limits.get("mate")
        if n == 1 and not (limits.get("infinite") or self._pondering or limits.get("depth")
                           or limits.get("nodes") or limits.get("mate")):
            max_depth = 6        # one legal reply: answer at once, with a score worth reading
        best, score = root[0], 0
        prev_scores = [0] * multipv
        best_changes = stable = 0
        last_best = None
        prev_iter_score = 0
        for depth in range(1, max_depth + 1):
            lines = []
            for k in range(multipv):
                S[C_PV_IDX] = k
                sc = self._aspiration(pos, depth, prev_scores[k], k, report, show_wdl, t0)
                if S[C_ABORT]:
                    # an interrupted iteration counts only if its first move (the previous
                    # best) was searched completely; its best is then at least as good
                    if k == 0 and S[C_ROOT_DONE] > 0 and int(S[C_BEST_MOVE]):
                        best = int(S[C_BEST_MOVE])
                        score = int(S[C_BEST_SCORE])
                    break
                prev_scores[k] = sc
                pv = self._pv(pos)
                lines.append((k, sc, pv))
                if k == 0:
                    best, score = (pv[0] if pv else int(S[ROOT_MOVES])), sc
            for k, sc, pv in lines:
                report(self._info(depth, k, sc, pv, show_wdl, t0))
            if S[C_ABORT]:
                break
            # next iteration's root order: the MultiPV bests, then the rest by subtree size
            moves = [int(m) for m in S[ROOT_MOVES:ROOT_MOVES + n]]
            sizes = [int(x) for x in S[ROOT_NODES:ROOT_NODES + n]]
            tail = sorted(zip(moves[multipv:], sizes[multipv:]), key=lambda x: -x[1])
            S[ROOT_MOVES:ROOT_MOVES + n] = moves[:multipv] + [m for m, _ in tail]
            S[ROOT_NODES:ROOT_NODES + n] = 0
            if mate_limit and score >= MATE_IN_MAX and (MATE - score + 1) // 2 <= mate_limit:
                break
            if best != last_best:
                best_changes += last_best is not None
                stable = 0
            else:
                stable += 1
                if stable >= 2:
                    best_changes = max(0, best_changes - 1)
            drop = prev_iter_score - score if depth > 1 else 0
            prev_iter_score = score
            last_best = best
            with self._lock:
                soft, pondering, clock = self._soft, self._pondering, self._clock
            if soft is not None and not pondering and not limits.get("infinite"):
                used = (time.perf_counter() - clock) * 1000
                # the next iteration costs about as much as all before it: do not start one
                # that cannot finish inside the (stability-scaled) soft limit
                if used > soft * stability_factor(best_changes, drop, stable) * 0.7:
                    break
            if S[C_STOP]:
                break
        return best, score

    def currmove(self):
        """(move, number) being searched at the root now."""
        return int(self.S[C_CURRMOVE]), int(self.S[C_CURRNUM])

