"""The search driver: iterative deepening, MultiPV, time and node limits.

Plain Python around the compiled ``search_root``; one aspiration window is one call into
compiled code with the GIL released, so another thread can set the stop flag at any time.
Every thread runs the same iterative-deepening loop (``Searcher._deepen``): the main thread
with reports, MultiPV, the clock and the depth limit, the Lazy SMP helpers (threads.py's
pool) with their skip pattern. A search nobody watches (no report, clock, MultiPV or helpers:
datagen, bench) runs that loop compiled (``search.iterate``), one call a search: calling into
compiled code once per aspiration window costs the Python dispatch of search_root's dozen
arguments each time, too much for datagen's small searches (docs/architecture.md).
Progress is reported as ``Info`` records; the front ends turn them into text or python-chess
types.
"""
import functools
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from black_numba.board.bitboard import TABLES
from black_numba.evaluation.evaluate import WEIGHTS
from black_numba.search.limits import Limits
from black_numba.board.movegen import MAX_PLY, legal_moves
from black_numba.evaluation.nnue import NO_NET
from black_numba.search.params import (
    ASPIRATION_REPORT_AFTER, MAX_DEPTH, PV_EXTEND_PLIES, SINGLE_REPLY_DEPTH, SMP_SKIP_PHASE,
    SMP_SKIP_SIZE, SOFT_STOP_FRACTION, TUNE, margins,
)
from black_numba.board.position import (
    CASTLE, HALFMOVE, KEY, OCC, SIDE, SP, STACK, in_check, is_repetition, make_move,
    move_to_uci, unmake_move,
)
from black_numba.search.search import first_window, iterate, next_window, search_root
from black_numba.search.state import (
    C_ABORT, C_AGE, C_BEST_MOVE, C_BEST_SCORE, C_CURRMOVE, C_CURRNUM, C_NODE_LIMIT, C_NODES,
    C_PV_IDX, C_ROOT_DONE, C_ROOT_N, C_SELDEPTH, C_STOP, C_TB_DEPTH, C_TB_LIMIT, C_TB_RULE50,
    C_TBHITS, clear_heuristics, new_state,
)
from black_numba.search.timeman import allocate, stability_factor
from black_numba.search.threads import ThreadPool
from black_numba.search.tt import MATE, MATE_IN_MAX, TB_WIN, hashfull, new_table, tt_move, tt_probe

# Syzygy at the root (Stockfish's root_probe): each root move's rank, MAX_DTZ for a win the
# fifty-move rule cannot spoil, less for slower wins, 0 a draw, negative for losses.
MAX_DTZ = 1 << 18
WDL_RANK = (-MAX_DTZ, -MAX_DTZ + 101, 0, MAX_DTZ - 101, MAX_DTZ)   # by WDL + 2, without DTZ
TB_OPTIONS = (7, 1, True)       # SyzygyProbeLimit, SyzygyProbeDepth, Syzygy50MoveRule


def dtz_before_zeroing(wdl):
    """The DTZ of a position just after a capture or pawn move, from its WDL."""
    return 0 if wdl == 0 else (1 if wdl > 0 else -1) * (1 if abs(wdl) == 2 else 101)


def has_repeated(pos):
    """A position repeated since the last capture or pawn move (the game's history and the
    position itself)."""
    sp = int(pos[SP])
    back = min(int(pos[HALFMOVE]), sp)
    keys = [int(pos[STACK + 2 * (sp - i) + 1]) for i in range(1, back + 1)]
    keys.append(int(pos[KEY]))
    return len(set(keys)) < len(keys)


def root_ranks(T, pos, meta, buf, root, rule50):
    """(ranks of the root moves, DTZ used) from the Syzygy tables, None when a table is
    missing: Stockfish's root_probe (DTZ) or, without DTZ files, root_probe_wdl. Once a
    position has repeated, wins are ranked by their DTZ (Stockfish's `rep`): the shortest way
    to the next capture or pawn move, so that a won ending makes progress instead of letting
    the opponent repeat; a move into a threefold repetition or the fifty-move draw ranks as a
    draw."""
    from black_numba.tablebase import tbprobe
    cnt50 = int(pos[HALFMOVE])
    rep = has_repeated(pos)
    ranks = []
    for m in root:
        make_move(T, pos, np.int64(m))
        try:
            if not legal_moves(pos) and in_check(T, pos):
                dtz = 1                                     # a mating move
            elif int(pos[HALFMOVE]) == 0:
                wdl = int(tbprobe.probe_wdl(T, pos, meta, buf))
                if wdl <= tbprobe.TB_ERROR:
                    return None
                dtz = dtz_before_zeroing(-wdl)
            elif int(pos[HALFMOVE]) >= 100 or is_repetition(pos, np.int64(0)):
                dtz = 0                                     # a draw in the game's history
            else:
                d = int(tbprobe.probe_dtz(T, pos, meta, buf))
                if d <= tbprobe.TB_ERROR:
                    break                                   # no DTZ: rank by WDL below
                dtz = -d
                dtz = dtz + 1 if dtz > 0 else dtz - 1 if dtz < 0 else 0
        finally:
            unmake_move(T, pos)
        if dtz > 0:
            r = MAX_DTZ if dtz + cnt50 <= 99 and not rep else MAX_DTZ - (dtz + cnt50)
        elif dtz < 0:
            r = -MAX_DTZ if -dtz * 2 + cnt50 < 100 else -MAX_DTZ + (-dtz + cnt50)
        else:
            r = 0
        ranks.append(r)
    else:
        return ranks, True
    ranks = []
    for m in root:
        make_move(T, pos, np.int64(m))
        try:
            wdl = -2 if not legal_moves(pos) and in_check(T, pos) else \
                int(tbprobe.probe_wdl(T, pos, meta, buf))
        finally:
            unmake_move(T, pos)
        if wdl <= tbprobe.TB_ERROR:                         # a table is missing
            return None
        wdl = -wdl                                          # the mover's side
        if not rule50:
            wdl = 2 if wdl > 0 else -2 if wdl < 0 else 0
        ranks.append(WDL_RANK[wdl + 2])
    return ranks, False


def rank_report(rank, rule50):
    """The score reported for a root move of this rank: a tablebase win (TB_WIN, which the
    front ends read as 20,000 centipawns), a draw the fifty-move rule makes of a win (1) or of
    a loss (-1), a draw, a loss."""
    bound = MAX_DTZ - 100 if rule50 else 1
    if rank >= bound:
        return TB_WIN
    if rank <= -bound:
        return -TB_WIN
    return (rank > 0) - (rank < 0)


@dataclass
class Info:
    """One progress report of a search (a UCI `info` line's content). Fields left None are
    not known for this report (a position without legal moves has only depth and score)."""
    depth: int
    score: int
    multipv: int = None
    seldepth: int = None
    bound: str = ""              # "lowerbound" / "upperbound" for a failed aspiration window
    nodes: int = None
    nps: int = None
    hashfull: int = None
    tbhits: int = 0              # tablebase probes (a root tablebase move is one)
    time_ms: int = None
    pv: list = field(default_factory=list)


class Searcher:
    """One search: owns its transposition table, weights and thread pool (threads.py: one
    search state, ``state.py``, per thread). Nothing is shared between two Searchers.

    Lazy SMP: with N threads, N - 1 helpers (pool threads 1..N-1, parked between searches)
    run the iterative deepening on copies of the root position, sharing only the
    transposition table (lockless, see tt.py) and the stop request; each skips depths by its
    own pattern so the threads spread over depths. The main thread alone reports, keeps time
    and chooses the move: the caller's thread for `search`, pool thread 0 for a search the
    engine core hands over with `run_main`."""

    def __init__(self, hash_mb=16, threads=1):
        self.T = TABLES
        self.W = WEIGHTS
        self.NN = NO_NET
        self.tuned = {}                     # SPSA's values of the search's numbers (params.TUNE)
        from black_numba.tablebase.syzygy import Tablebase
        self.tb = Tablebase()               # no tables; set_tablebase gives others
        self.tb_options = TB_OPTIONS
        self.tb_root = {}                   # a root in the tables: move -> reported score
        self.groups = None                  # ... and the ends of its rank groups
        self.EV = (self.W, self.NN, margins(), self.tb.meta)   # what search_root reads
        self.tt = new_table(hash_mb)
        self._tt_clean = True               # all zero (new or cleared): clear() skips it
        self.pool = ThreadPool(threads, new_state)
        self.threads = self._active = len(self.pool)   # threads in the pool, in this search
        self.st = self.pool.main.state      # the main thread's search state
        s = self.st[0]
        self.ctl = s["ctl"]                 # views into the record, for the driver
        self.root_moves = s["root_moves"]
        self.root_nodes = s["root_nodes"]
        self.age = 0
        self.stop_event = threading.Event()
        self._lock = threading.Lock()
        self._pondering = False
        self._timer = None
        self._soft = self._hard = None
        self._clock = 0.0
        self.last_lines = []
        self._pv_buf = np.zeros(MAX_PLY, np.int64)   # the compiled loop's last PV

    def resize(self, mb):
        self._join_helpers()
        self.tt = new_table(mb)
        self._tt_clean = True

    def set_network(self, NN):
        """Evaluate with network NN from the next search on (nnue.NO_NET: the tapered
        evaluation)."""
        self._join_helpers()
        self.NN = NN
        self.EV = (self.W, NN, margins(self.tuned), self.tb.meta)

    def set_tablebase(self, tb, probe_limit=TB_OPTIONS[0], probe_depth=TB_OPTIONS[1],
                      rule50=TB_OPTIONS[2]):
        """Probe the Syzygy tables of tb (syzygy.Tablebase; one without tables: none) from
        the next search on, as the options SyzygyProbeLimit, SyzygyProbeDepth and
        Syzygy50MoveRule say."""
        self._join_helpers()
        self.tb = tb
        self.tb_options = (int(probe_limit), int(probe_depth), bool(rule50))
        self.set_network(self.NN)

    def tune(self, name, value):
        """Search with `value` as params.TUNE's `name` (SPSA), with either evaluation."""
        if name not in TUNE:
            raise ValueError(f"{name!r} is not tuned (params.TUNE)")
        self.tuned[name] = int(value)
        self.set_network(self.NN)

    def set_threads(self, n):
        """Search with n threads from the next search on: a new pool when n changes (the
        heuristics of kept thread numbers stay)."""
        self._join_helpers()
        n = max(1, int(n))
        if n != len(self.pool):
            self.pool.resize(n)
        self.threads = self._active = n

    @property
    def helper_states(self):
        return [t.state for t in self.pool.helpers]

    def _states(self):
        return self.pool.states()

    def run_main(self, job):
        """Run job() on the pool's main thread (an asynchronous search); returns at once."""
        self.pool.main.start_job(job)

    def wait_main(self):
        """Wait until the main thread's job has returned."""
        self.pool.main.wait_idle()

    def close(self):
        """End the pool's threads (after their jobs)."""
        self.pool.close()

    def clear(self):
        """Forget everything learnt (ucinewgame, Clear Hash): the table, the histories and
        the table's age, so that what follows depends on nothing searched before (the age
        steers replacement: an emptied table with another age fills differently)."""
        self._join_helpers()
        if not self._tt_clean:
            # a new table is zero already, and its pages unwritten: writing zeros would make
            # a large Hash resident at once (`ucinewgame` after `setoption name Hash`)
            self.tt[:] = 0
            self._tt_clean = True
        self.age = 0
        for st in self._states():
            clear_heuristics(st)

    def stop(self):
        """Ask a running search to finish now (any thread): every thread sees the request at
        its next poll."""
        for st in self._states():
            st[0]["ctl"][C_STOP] = 1
        self.stop_event.set()

    def prepare(self, ponder=False):
        """Clear the stop flag and set the ponder state before a search is started, by the
        thread that starts it, so a stop or ponderhit that arrives at once is never lost."""
        self._join_helpers()
        self._tt_clean = False              # what follows may write the table
        for st in self._states():
            st[0]["ctl"][C_STOP] = 0
        self.stop_event.clear()
        with self._lock:
            self._pondering = ponder
            self._soft = self._hard = None

    def nodes(self):
        """Nodes searched so far by the current (or last) search, summed over its threads."""
        return sum(int(st[0]["ctl"][C_NODES]) for st in self._states()[:self._active])

    def _root_pv(self):
        s = self.st[0]
        return [int(m) for m in s["pv"][0][:int(s["stack"]["pv_len"][0])]]

    def _pv(self, pos, length_cap=MAX_DEPTH):
        pv = self._root_pv()[:length_cap]
        # extend a short PV (cut by a TT hit) with the hash moves
        played = []
        for m in pv:
            make_move(self.T, pos, np.int64(m))
            played.append(m)
        while len(pv) < PV_EXTEND_PLIES:
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
               overhead_ms=30, threads=None, tablebases=True):
        """Search pos; returns (best move, ponder move or None, score). limits: a Limits
        (None: no limit). `report` receives an Info record per line of progress; without one
        (datagen, bench) no record is made and `last_lines` keeps the searched PVs without
        their hash-move extension. With ponder=True the clock starts at ponderhit(), and no
        bestmove is returned before stop() or ponderhit(); the ponder state itself is set by
        prepare(ponder=True). threads: search on the pool's first `threads` threads only
        (None: all of them). tablebases: probe the Syzygy tables set (a strength level does
        not): a root in the tables searches only its best-ranked moves (the best MultiPV
        lines, a group at a time, as Stockfish), and nodes inside the search are probed."""
        limits = limits if limits is not None else Limits()
        self._tt_clean = False
        self._active = len(self.pool) if threads is None else \
            max(1, min(int(threads), len(self.pool)))
        ctl, T, tt = self.ctl, self.T, self.tt
        t0 = time.perf_counter()
        ctl[C_ABORT] = 0
        ctl[C_NODES] = 0
        ctl[C_SELDEPTH] = 0
        # a node limit counts the nodes of all threads: each searches its share
        node_limit = int(limits.nodes or 0)
        ctl[C_NODE_LIMIT] = -(-node_limit // self._active)
        self.age = (self.age + 1) & 63
        ctl[C_AGE] = self.age
        root = legal_moves(pos)
        if searchmoves:
            # encoded moves, or UCI texts in standard notation
            chosen = [m for m in root if m in searchmoves or move_to_uci(m) in searchmoves]
            root = chosen or root
        infinite = limits.infinite
        root = self._tablebase_root(pos, root, multipv, tablebases)
        for st in self.helper_states[:self._active - 1]:
            hc = st[0]["ctl"]
            hc[C_ABORT] = hc[C_NODES] = hc[C_SELDEPTH] = hc[C_PV_IDX] = hc[C_TBHITS] = 0
            hc[C_NODE_LIMIT] = ctl[C_NODE_LIMIT]
            hc[C_AGE] = self.age
            hc[C_TB_LIMIT], hc[C_TB_DEPTH], hc[C_TB_RULE50] = \
                ctl[C_TB_LIMIT], ctl[C_TB_DEPTH], ctl[C_TB_RULE50]
        with self._lock:
            self._clock = t0
            self._timer = None
            self._soft, self._hard = allocate(limits, int(pos[SIDE]) == 0, overhead_ms)
            if not self._pondering and not infinite:
                self._arm(self._hard)
        try:
            if not root:
                if report is not None:
                    report(Info(depth=0, score=-MATE if in_check(TABLES, pos) else 0))
                best, score = None, 0
            else:
                self._start_helpers(pos, root)
                if report is None and multipv == 1 and self._active == 1 \
                        and self._soft is None and self._hard is None and not infinite \
                        and not limits.mate and not self._pondering:
                    best, score = self._iterate_unwatched(pos, root, limits)
                else:
                    best, score = self._iterate(pos, root, limits, report, multipv, t0)
            # infinite and ponder searches wait for stop (or ponderhit) before answering
            while (infinite or self._pondering) and not ctl[C_STOP]:
                self.stop_event.wait(0.005)
                self.stop_event.clear()
        finally:
            with self._lock:
                if self._timer is not None:
                    self._timer.cancel()
                self._timer = None
                self._pondering = False
            self.stop_event.clear()
            if ctl[C_NODE_LIMIT] and ctl[C_NODES] >= ctl[C_NODE_LIMIT]:
                # the main thread used its share of a node limit: the helpers finish theirs,
                # so the limit counts every thread's nodes
                self._join_helpers()
            else:
                # bestmove goes out at once; the next search first waits for the helpers
                self._stop_helpers()
        if best is None:
            return None, None, 0
        if best in self.tb_root and abs(score) < MATE_IN_MAX:
            score = self.tb_root[best]
        ponder_move = None
        make_move(T, pos, np.int64(best))
        hit, data = tt_probe(tt, pos[KEY])
        if hit:
            m = int(tt_move(np.uint64(data)))
            if m and m in legal_moves(pos):
                ponder_move = m
        unmake_move(T, pos)
        return best, ponder_move, score

    def _tablebase_root(self, pos, root, multipv, use):
        """Set this search's Syzygy words in the main thread's control record and rank a
        root the tables hold; returns the root moves to search (best rank first)."""
        ctl = self.ctl
        limit, depth, rule50 = self.tb_options
        limit = min(limit, self.tb.max_pieces) if use and len(self.tb) else 0
        ctl[C_TB_LIMIT], ctl[C_TB_DEPTH], ctl[C_TB_RULE50] = limit, depth, int(rule50)
        ctl[C_TBHITS] = 0
        self.tb_root, self.groups = {}, None
        pieces = bin(int(pos[OCC])).count("1")
        if not limit or not root or pieces > limit or int(pos[CASTLE]):
            return root
        got = root_ranks(self.T, pos, self.tb.meta, self.st[0]["tbbuf"], root, rule50)
        if got is None:
            return root
        ranks, dtz = got
        ctl[C_TBHITS] = len(root)
        order = sorted(range(len(root)), key=lambda i: -ranks[i])     # stable: best rank first
        root = [root[i] for i in order]
        ranks = [ranks[i] for i in order]
        self.tb_root = {m: rank_report(r, rule50) for m, r in zip(root, ranks)}
        # the rank groups (equal ranks); the search covers only as many as MultiPV needs
        ends = [i for i in range(1, len(root)) if ranks[i] != ranks[i - 1]] + [len(root)]
        keep = next(e for e in ends if e >= min(multipv, len(root)))
        self.groups = [e for e in ends if e <= keep]
        # as Stockfish: with DTZ at the root (or nothing to win) the ranks decide, and the
        # search below probes no more
        if dtz or ranks[0] <= 0:
            ctl[C_TB_LIMIT] = 0
        return root[:keep]

    # -- Lazy SMP helpers ----------------------------------------------------------------------
    def _start_helpers(self, pos, root):
        """Wake the helpers, each on its own copy of the root. A helper deepens through the
        depths its skip pattern keeps, a window around its own last score, until the stop
        request or its node share. A depth limit binds the main thread only (as in
        Stockfish): helpers bound by it would idle through the main thread's last and longest
        iteration."""
        n = len(root)
        for t in self.pool.helpers[:self._active - 1]:
            s = t.state[0]
            s["ctl"][C_ROOT_N] = n
            s["root_moves"][:n] = root
            s["root_nodes"][:n] = 0
            j = (t.index - 1) % len(SMP_SKIP_SIZE)
            t.start_job(functools.partial(self._deepen, t.state, pos.copy(), n, MAX_DEPTH,
                                          skip=(SMP_SKIP_SIZE[j], SMP_SKIP_PHASE[j])))

    def _stop_helpers(self):
        for st in self.helper_states:
            st[0]["ctl"][C_STOP] = 1

    def _join_helpers(self):
        self.pool.wait_helpers()

    def tbhits(self):
        """Tablebase probes of this search, every thread's."""
        return sum(int(st[0]["ctl"][C_TBHITS]) for st in self._states()[:self._active])

    def _info(self, depth, k, sc, pv, t0, bound=""):
        elapsed = time.perf_counter() - t0
        nodes = self.nodes()
        if pv and pv[0] in self.tb_root and abs(sc) < MATE_IN_MAX:
            sc = self.tb_root[pv[0]]        # a root in the tables reports the tables' verdict
        return Info(depth=depth, score=sc, multipv=k + 1, seldepth=int(self.ctl[C_SELDEPTH]),
                    bound=bound, nodes=nodes, nps=int(nodes / max(elapsed, 1e-6)),
                    hashfull=int(hashfull(self.tt, np.int64(self.age))),
                    tbhits=self.tbhits(), time_ms=int(elapsed * 1000), pv=pv)

    def _window(self, st, pos, depth, prev, k=0, report=None, t0=0.0):
        """One iteration of the thread with state st: a window around the previous score,
        widened on fail high or low; with a report, after the first second each failed
        window is reported with lowerbound/upperbound."""
        ctl, T, EV, tt = st[0]["ctl"], self.T, self.EV, self.tt
        ctl[C_ROOT_DONE] = 0
        alpha, beta, delta = first_window(np.int64(depth), np.int64(prev))
        while True:
            score = int(search_root(T, EV, pos, tt, st, np.int64(depth), alpha, beta))
            if ctl[C_ABORT] or alpha < score < beta:
                return score
            if report is not None and time.perf_counter() - t0 > ASPIRATION_REPORT_AFTER:
                bound = "upperbound" if score <= alpha else "lowerbound"
                pv = self._root_pv() if bound == "lowerbound" else []
                report(self._info(depth, k, score, pv, t0, bound))
            alpha, beta, delta = next_window(np.int64(score), alpha, beta, delta)

    def _set_root(self, root, limits):
        """The main thread's root moves for a new search; returns (their number, the depth
        to stop at)."""
        n = len(root)
        self.ctl[C_ROOT_N] = n
        self.root_moves[:n] = root
        self.root_nodes[:n] = 0
        max_depth = int(limits.depth or MAX_DEPTH)
        if n == 1 and not (self._pondering or limits.bounded()):
            max_depth = SINGLE_REPLY_DEPTH   # one legal reply: answer at once, with a score
        return n, max_depth

    def _iterate(self, pos, root, limits, report, multipv, t0):
        n, max_depth = self._set_root(root, limits)
        best, score = self._deepen(self.st, pos, n, max_depth, limits, report, multipv, t0)
        return (root[0] if best is None else best), score

    def _deepen(self, st, pos, n, max_depth, limits=None, report=None, multipv=1, t0=0.0,
                skip=None):
        """The iterative deepening every thread runs, on the thread's state st and its own
        pos, over the n root moves st holds; returns (best move or None, score). The main
        thread (skip None) ends at max_depth, a mate of limits.mate, its clock or the stop
        request, reports its lines and keeps the best; a helper (skip: (block size, phase))
        searches only the depths its skip pattern keeps, until the stop request or its node
        share."""
        main = skip is None
        ctl = st[0]["ctl"]
        multipv = max(1, min(multipv, n))
        best, score = None, 0
        if main:
            self.last_lines = []    # (score, pv) of the last iteration whose lines all ended
        prev_scores = [0] * multipv
        best_changes = stable = 0
        last_best = None
        prev_iter_score = 0
        # the main thread's first iteration always ends, whatever the node limit (as
        # Stockfish's depth 1), so that even `go nodes 1` answers with a score and a move
        node_limit = int(ctl[C_NODE_LIMIT])
        if main:
            ctl[C_NODE_LIMIT] = 0
        for depth in range(1, max_depth + 1):
            if not main and depth > 1 and ((depth + skip[1]) // skip[0]) % 2:
                continue
            lines = []
            if main and depth == 2:
                ctl[C_NODE_LIMIT] = node_limit
            for k in range(multipv):
                ctl[C_PV_IDX] = k
                if main and self.groups:
                    # a root in the tables: line k searches within its rank group only
                    ctl[C_ROOT_N] = next(e for e in self.groups if e > k)
                sc = self._window(st, pos, depth, prev_scores[k], k, report, t0)
                if ctl[C_ABORT]:
                    # an interrupted iteration counts only if its first move (the previous
                    # best) was searched completely; its best is then at least as good
                    if main and k == 0 and ctl[C_ROOT_DONE] > 0 and int(ctl[C_BEST_MOVE]):
                        best = int(ctl[C_BEST_MOVE])
                        score = int(ctl[C_BEST_SCORE])
                    break
                prev_scores[k] = sc
                if not main:
                    continue
                # the hash-move extension of a PV is only read by the reports
                pv = self._root_pv() if report is None else []
                pv = pv or self._pv(pos)
                lines.append((k, sc, pv))
                if k == 0:
                    best, score = (pv[0] if pv else int(st[0]["root_moves"][0])), sc
            if report is not None:
                for k, sc, pv in lines:
                    report(self._info(depth, k, sc, pv, t0))
            if ctl[C_ABORT]:
                break
            self._reorder_root(st, n, multipv, self.groups if main else None)
            if main:
                self.last_lines = [(sc, pv) for _, sc, pv in lines if pv]
                if limits.mate and score >= MATE_IN_MAX and \
                        (MATE - score + 1) // 2 <= limits.mate:
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
                if self._out_of_time(limits, stability_factor(best_changes, drop, stable)):
                    break
            if ctl[C_STOP]:
                break
        if main:
            ctl[C_NODE_LIMIT] = node_limit
        return best, score

    def _iterate_unwatched(self, pos, root, limits):
        """_deepen for a search nobody watches (no report, clock, MultiPV or helpers):
        the same loop compiled (search.iterate), the same tree and result."""
        _, max_depth = self._set_root(root, limits)
        best, score, pv_n = iterate(self.T, self.EV, pos, self.tt, self.st, np.int64(max_depth),
                                    np.int64(self.ctl[C_NODE_LIMIT]), self._pv_buf)
        self.last_lines = [(int(score), [int(m) for m in self._pv_buf[:pv_n]])] if pv_n else []
        return int(best), int(score)

    @staticmethod
    def _reorder_root(st, n, multipv, groups=None):
        """Next iteration's root order: the MultiPV bests, then the rest by subtree size
        (within each rank group of a root in the tables)."""
        root_moves, root_nodes = st[0]["root_moves"], st[0]["root_nodes"]
        start = 0
        for end in (groups or [n]):
            a = max(start, multipv)
            if a < end:
                # a stable sort: equal subtrees keep their order
                order = np.argsort(-root_nodes[a:end], kind="stable")
                root_moves[a:end] = root_moves[a:end][order]
            start = end
        root_nodes[:n] = 0

    def _out_of_time(self, limits, factor):
        """The next iteration costs about as much as all before it: do not start one that
        cannot finish inside the (stability-scaled) soft limit."""
        with self._lock:
            soft, pondering, clock = self._soft, self._pondering, self._clock
        if soft is None or pondering or limits.infinite:
            return False
        used = (time.perf_counter() - clock) * 1000
        return used > soft * factor * SOFT_STOP_FRACTION

    def currmove(self):
        """(move, number) being searched at the root now."""
        return int(self.ctl[C_CURRMOVE]), int(self.ctl[C_CURRNUM])
