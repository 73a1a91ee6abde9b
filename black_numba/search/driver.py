"""The search driver: iterative deepening, MultiPV, time and node limits.

Every thread runs the same compiled iterative deepening (``search.deepen``, the GIL released,
so another thread can set the stop flag at any time): a Lazy SMP helper (threads.py's pool)
runs it whole with its depth-skip pattern, as does a main thread nobody watches (datagen,
bench: one call into compiled code a search); a watched main thread runs it one depth at a
time, to report each iteration's lines and failed windows, stop at a mate and keep time.
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
from black_numba.board.move import move_from_to
from black_numba.board.movegen import legal_moves
from black_numba.evaluation.nnue import NO_NET
from black_numba.search.params import (
    ASPIRATION_REPORT_AFTER, MAX_DEPTH, PV_EXTEND_PLIES, SINGLE_REPLY_DEPTH, SMP_SKIP_PHASE,
    SMP_SKIP_SIZE, SOFT_STOP_FRACTION, TUNE, margins,
)
from black_numba.board.position import (
    CASTLE, HALFMOVE, KEY, OCC, SIDE, SP, STACK, game_ply, in_check, is_repetition, make_move,
    move_to_uci, unmake_move,
)
from black_numba.search.search import ITER_ABORTED, ITER_FAILED, ITER_STOPPED, deepen
from black_numba.search.state import (
    C_ABORT, C_AGE, C_CURRMOVE, C_CURRNUM, C_FAIL_LOW, C_FAIL_SCORE, C_GROUPS_N,
    C_MULTIPV, C_NODE_LIMIT, C_NODES, C_PV_IDX, C_REPORT_FAILS, C_RESULT_MOVE, C_RESULT_SCORE,
    C_RESUME, C_ROOT_N, C_ROOT_TOTAL, C_SELDEPTH, C_SKIP_PHASE, C_SKIP_SIZE, C_STOP,
    C_TB_DEPTH, C_TB_LIMIT, C_TB_RULE50, C_TBHITS, clear_heuristics, new_state,
)
from black_numba.search.style import NORMAL
from black_numba.search.styleterms import set_root as set_style_root
from black_numba.search.timeman import (HURRY_MIN_DEPTH, HURRY_TIME_SHARE, MAX_FACTOR,
                                        NODE_TM, NODE_TM_MIN_DEPTH, NodeShareMean, allocate,
                                        stability_factor)
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
        self.ctl = s["ctl"]                 # a view into the record, for the driver
        self.age = 0
        self.stop_event = threading.Event()
        self._lock = threading.Lock()
        self._pondering = False
        self._timer = None
        self._soft = self._hard = None
        self._clock = 0.0
        self.last_lines = []
        self._field_cache = {}              # id(state) -> its arrays (_fields)
        self._style_key = None              # what the table's scores assume (_style_root)
        self._hurry = False                 # this search is the Hustler's in a hurry
        self.node_share = NodeShareMean()   # node-share time (timeman.NODE_TM): its mean

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
            self._field_cache = {}          # the views held the old states alive
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
        self.node_share.reset()
        for st in self._states():
            clear_heuristics(st)

    def clear_table(self):
        """Empty the transposition table only (the style changed: its scores were another
        style's)."""
        self._join_helpers()
        if not self._tt_clean:
            self.tt[:] = 0
            self._tt_clean = True

    def _style_root(self, pos, style):
        """Before a search: a styled search's table holds scores from its root side's view
        with its terms and contempt, so the table is emptied when they change: a new style
        or contempt (the Hustler's clock trigger, UCI_AnalyseMode), or under a style a root
        for the other side. Objective searches share their table whatever the side."""
        key = (style.terms, style.contempt, int(pos[SIDE]) if style.active else None)
        if self._style_key is not None and key != self._style_key:
            self.clear_table()
        self._style_key = key

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

    def _extend_pv(self, pos, pv, extend=True):
        """pv as reported: cut after its first move into a repetition as the search scores
        one (a position met before since the root, or twice before in the game's history:
        a draw, so a move after it is no plan, and GUIs and fastchess read the line as the
        engine's); extend: a PV cut short by a table hit is lengthened with the hash moves,
        up to PV_EXTEND_PLIES and the same stop."""
        out = []
        for m in pv:
            make_move(self.T, pos, np.int64(m))
            out.append(m)
            if is_repetition(pos, np.int64(len(out))):
                extend = False
                break
        while extend and len(out) < PV_EXTEND_PLIES:
            hit, data = tt_probe(self.tt, pos[KEY])
            m = int(tt_move(np.uint64(data))) if hit else 0
            if not m or m not in legal_moves(pos):
                break
            make_move(self.T, pos, np.int64(m))
            out.append(m)
            if is_repetition(pos, np.int64(len(out))):
                break
        for _ in out:
            unmake_move(self.T, pos)
        return out

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
               overhead_ms=30, threads=None, tablebases=True, style=NORMAL, middlegame=100):
        """Search pos; returns (best move, ponder move or None, score). limits: a Limits
        (None: no limit). `report` receives an Info record per line of progress; without one
        (datagen, bench) no record is made and `last_lines` keeps the searched PVs without
        their hash-move extension. With ponder=True the clock starts at ponderhit(), and no
        bestmove is returned before stop() or ponderhit(); the ponder state itself is set by
        prepare(ponder=True). threads: search on the pool's first `threads` threads only
        (None: all of them). tablebases: probe the Syzygy tables set (a strength level does
        not): a root in the tables searches only its best-ranked moves (the best MultiPV
        lines, a group at a time, as Stockfish), and nodes inside the search are probed.
        style: a style.StyleSettings (every thread gets it with the root side; hurry spends
        HURRY_TIME_SHARE of the soft limit once HURRY_MIN_DEPTH iterations are done).
        middlegame: the clock's middlegame lever in percent (timeman.middlegame_share)."""
        limits = limits if limits is not None else Limits()
        self._style_root(pos, style)
        self._tt_clean = False
        self._active = len(self.pool) if threads is None else \
            max(1, min(int(threads), len(self.pool)))
        ctl, T, tt = self.ctl, self.T, self.tt
        t0 = time.perf_counter()
        ctl[C_ABORT] = 0
        ctl[C_NODES] = 0
        ctl[C_SELDEPTH] = 0
        set_style_root(ctl, style, pos)
        self._hurry = style.hurry
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
            set_style_root(hc, style, pos)      # helpers know the root side too
        with self._lock:
            self._clock = t0
            self._timer = None
            self._soft, self._hard = allocate(limits, int(pos[SIDE]) == 0, overhead_ms,
                                              game_ply(pos), middlegame)
            if style.hurry and self._soft is not None:
                self._soft = max(1, self._soft * HURRY_TIME_SHARE)
            if not self._pondering and not infinite:
                self._arm(self._hard)
        try:
            if not root:
                if report is not None:
                    report(Info(depth=0, score=-MATE if in_check(TABLES, pos) else 0))
                best, score = None, 0
            else:
                self._start_helpers(pos, root)
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
        for t in self.pool.helpers[:self._active - 1]:
            j = (t.index - 1) % len(SMP_SKIP_SIZE)
            self._set_root(t.state, root, skip=(SMP_SKIP_SIZE[j], SMP_SKIP_PHASE[j]))
            t.start_job(functools.partial(deepen, self.T, self.EV, pos.copy(), self.tt,
                                          t.state, np.int64(1), np.int64(MAX_DEPTH)))

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

    def _fields(self, st):
        """The record's arrays of a thread's state, looked up once (a field read on a numpy
        record costs about a microsecond, and a 2,000-node datagen search about a
        millisecond)."""
        f = self._field_cache.get(id(st))
        if f is None:
            s = st[0]
            f = self._field_cache[id(st)] = {name: s[name] for name in (
                "ctl", "root_moves", "root_nodes", "root_effort", "groups", "line_prev",
                "line_pv", "line_len")}
        return f

    def _set_root(self, st, root, multipv=1, skip=(0, 0), groups=None):
        """A thread's root moves and iterative-deepening settings for a new search (the
        control words search.deepen reads)."""
        f = self._fields(st)
        ctl = f["ctl"]
        n = len(root)
        multipv = max(1, min(multipv, n))
        ctl[C_ROOT_N] = ctl[C_ROOT_TOTAL] = n
        f["root_moves"][:n] = root
        f["root_nodes"][:n] = 0
        f["root_effort"][:] = 0
        f["line_prev"][:multipv] = 0
        f["line_len"][:multipv] = 0
        ctl[C_MULTIPV] = multipv
        ctl[C_SKIP_SIZE], ctl[C_SKIP_PHASE] = skip
        ctl[C_GROUPS_N] = len(groups) if groups else 0
        if groups:
            f["groups"][:len(groups)] = groups
        ctl[C_PV_IDX] = ctl[C_RESUME] = ctl[C_REPORT_FAILS] = ctl[C_RESULT_SCORE] = 0
        ctl[C_RESULT_MOVE] = root[0] if n else 0

    def _iterate(self, pos, root, limits, report, multipv, t0):
        """The main thread's search: search.deepen whole when nobody watches (no report,
        clock, mate limit or ponder: datagen, bench, one call into compiled code), else one
        depth at a time, to report each iteration's lines (and, after the first second, each
        failed aspiration window), stop at a mate of limits.mate and keep time. Returns (best
        move, score)."""
        self._set_root(self.st, root, multipv, groups=self.groups)
        ctl = self.ctl
        n = len(root)
        max_depth = int(limits.depth or MAX_DEPTH)
        if n == 1 and not (self._pondering or limits.bounded()):
            max_depth = SINGLE_REPLY_DEPTH   # one legal reply: answer at once, with a score
        self.last_lines = []    # (score, pv) of the last iteration whose lines all ended
        args = (self.T, self.EV, pos, self.tt, self.st)
        # a MultiPV search keeps last_lines to whole iterations: the driver's copy
        watched = report is not None or self._soft is not None or self._hard is not None \
            or limits.infinite or limits.mate or self._pondering or int(ctl[C_MULTIPV]) > 1
        if not watched:
            while deepen(*args, np.int64(1), np.int64(max_depth)) == ITER_FAILED:
                pass                        # never: no report asks for failed windows
            self.last_lines = [line for line in self._lines(pos, False) if line[1]]
            return int(ctl[C_RESULT_MOVE]), int(ctl[C_RESULT_SCORE])
        fails = None
        if report is not None:
            # failed windows are reported after the first second (as Stockfish)
            fails = threading.Timer(ASPIRATION_REPORT_AFTER,
                                    lambda: ctl.__setitem__(C_REPORT_FAILS, 1))
            fails.daemon = True
            fails.start()
        best_changes = stable = 0
        last_best = None
        prev_score = 0
        try:
            for depth in range(1, max_depth + 1):
                if depth > 1 and ctl[C_STOP]:
                    break                   # asked while the last lines were reported
                status = deepen(*args, np.int64(depth), np.int64(depth))
                while status == ITER_FAILED and report is not None:
                    sc = int(ctl[C_FAIL_SCORE])
                    lower = not ctl[C_FAIL_LOW]
                    pv = self._extend_pv(pos, self._root_pv(), False) if lower else []
                    report(self._info(depth, int(ctl[C_PV_IDX]), sc, pv, t0,
                                      "lowerbound" if lower else "upperbound"))
                    status = deepen(*args, np.int64(depth), np.int64(depth))
                if status == ITER_ABORTED:
                    if report is not None:
                        # the lines this iteration ended before the stop
                        for k, (sc, pv) in enumerate(self._lines(pos, True,
                                                                 int(ctl[C_PV_IDX]))):
                            report(self._info(depth, k, sc, pv, t0))
                    break
                lines = self._lines(pos, report is not None)
                if report is not None:
                    for k, (sc, pv) in enumerate(lines):
                        report(self._info(depth, k, sc, pv, t0))
                self.last_lines = [line for line in lines if line[1]]
                best, score = int(ctl[C_RESULT_MOVE]), int(ctl[C_RESULT_SCORE])
                if status == ITER_STOPPED:
                    break
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
                drop = prev_score - score if depth > 1 else 0
                prev_score = score
                last_best = best
                if self._hurry and depth < HURRY_MIN_DEPTH:
                    continue                # the Hustler in a hurry keeps a minimum depth
                factor = stability_factor(best_changes, drop, stable)
                if self.tuned.get("NODE_TM", NODE_TM) and depth >= NODE_TM_MIN_DEPTH \
                        and abs(score) < MATE_IN_MAX and self._soft is not None \
                        and not self._pondering and not limits.infinite:
                    # only where the soft limit governs (its mean is the clock's); not for a
                    # mate: a mating move's tree is small whatever the contest
                    factor = min(factor * self.node_share.scale(self._best_share(best)),
                                 MAX_FACTOR)
                if self._out_of_time(limits, factor):
                    break
        finally:
            if fails is not None:
                fails.cancel()
                fails.join()                # a late callback must not reach the next search
                ctl[C_REPORT_FAILS] = 0
        return int(ctl[C_RESULT_MOVE]), int(ctl[C_RESULT_SCORE])

    def _best_share(self, best):
        """The share of the main thread's nodes in this search that went to `best`."""
        effort = self._fields(self.st)["root_effort"]
        total = int(effort.sum())
        return int(effort[move_from_to(best)]) / total if total > 0 else 1.0

    def _lines(self, pos, extend, count=None):
        """(score, PV) of the first `count` (default all) MultiPV lines as last searched, each
        PV cut at a repetition; extend: lengthen a short PV (cut by a table hit) with the hash
        moves, for reports."""
        f = self._fields(self.st)
        line_prev, line_pv, line_len = f["line_prev"], f["line_pv"], f["line_len"]
        out = []
        for k in range(int(f["ctl"][C_MULTIPV]) if count is None else count):
            pv = self._extend_pv(pos, line_pv[k, :line_len[k]].tolist(), extend)
            out.append((int(line_prev[k]), pv))
        return out

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
