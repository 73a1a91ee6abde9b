"""One engine core shared by every tab of the browser board: a scheduler thread, the only
caller of the core's searches, runs one search at a time (the core has one position and one
table, as a UCI engine has).

Who searches: the newest request pre-empts the running analysis of another tab; an engine
move is never pre-empted (those end by themselves, and a game must never lose clock time to
a restarted search): requests wait for it, engine moves first, oldest first. A pre-empted search waits and runs again when the
engine is free, an engine move first; its tab is told both times. Annotation takes the
engine position by position through a lock-like `Gate` (so the project's `annotate` drives
the core through `black_numba.Engine.attach`), before analyses and after engine moves, and
analyses wait while an annotation runs.
"""
import itertools
import queue
import sys
import threading
from dataclasses import dataclass, field
from typing import Callable, Optional

PLAY, ANALYSE = "play", "analyse"
READY_POLL_S = 0.05           # how often the scheduler looks whether the core has loaded
# the options an annotation searches with (full strength, one line, no book): the ones a tab's
# search may have changed
NEUTRAL_OPTIONS = {"UCI_LimitStrength": False, "MultiPV": 1, "UCI_ShowWDL": False,
                   "Style": "Normal"}


@dataclass(eq=False)
class Job:
    """One tab's search. game: (root FEN, moves as UCI text, chess960); options: the options
    it needs ({name: value}); limits(): the engine.Limits, read when it starts (a clock's
    time left then); on_info(Info), on_done(Result) from the search's thread; notify(kind)
    with kind "preempted", "waiting" or "resumed"; on_error(text) when it cannot start."""
    tab: str
    kind: str
    game: tuple
    options: dict
    limits: Callable
    on_info: Callable
    on_done: Callable
    notify: Callable = lambda kind: None
    on_error: Callable = lambda text: None
    serial: int = field(default_factory=itertools.count().__next__)
    stopped: bool = False
    paused: bool = False


class Gate:
    """Exclusive use of the core for one search at a time, as a lock (what
    `black_numba.Engine.attach` serialises its calls with): acquire waits for the scheduler
    to hand the core over (after the running engine move, pre-empting an analysis), release
    hands it back."""

    def __init__(self, host):
        self._host = host

    def acquire(self, blocking=True, timeout=-1):
        granted = threading.Event()
        self._host._post(("gate", granted))
        granted.wait()
        if self._host.closed:
            raise RuntimeError("the engine host was closed")
        if self._host.core.searcher is None:
            raise RuntimeError(f"the engine could not load: {self._host.core.load_error}")
        return True

    def release(self):
        self._host._post(("release",))

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()


class EngineHost:
    """The scheduler of one EngineCore among tabs. start_options ({name: value}, such as
    Threads, Hash, SyzygyPath) are set once the core has loaded; on_error(text) hears what
    cannot be set."""

    def __init__(self, core, start_options=None, on_error=None):
        self.core = core
        self.closed = False
        self.ready = threading.Event()
        self._start_options = dict(start_options or {})
        self._on_error = on_error or (lambda text: print(text, file=sys.stderr))
        self._events = queue.Queue()
        self._current = None            # the running Job, "gate", or None
        self._runs = 0                  # searches started: a result is its own run's only
        self._pending = {}              # tab -> Job waiting for the engine
        self._gate_waiting = []         # Events of Gate.acquire calls waiting
        self._annotating = 0            # annotations running (analyses wait for them)
        self._lock = threading.Lock()   # guards the two fields read by other threads
        core.start_loading()
        self._thread = threading.Thread(target=self._run, name="black_numba gui scheduler",
                                        daemon=True)
        self._thread.start()

    # -- what other threads call -------------------------------------------------------------
    def _post(self, event):
        self._events.put(event)

    def submit(self, job):
        """Search for job's tab (replacing the tab's search running or waiting)."""
        self._post(("submit", job))

    def cancel(self, tab):
        """Stop the tab's search, running or waiting (its result is dropped)."""
        self._post(("cancel", tab))

    def gate(self):
        return Gate(self)

    def annotating(self):
        """A context for an annotation's whole run: analyses wait until it ends."""
        host = self

        class _Reservation:
            def __enter__(self):
                host._post(("annotating", 1))

            def __exit__(self, *exc):
                host._post(("annotating", -1))
        return _Reservation()

    def busy_tab(self):
        """The tab whose search runs, None when none does."""
        with self._lock:
            cur = self._current
        return cur.tab if isinstance(cur, Job) else None

    def close(self):
        """Stop any search, end the scheduler and the core's threads."""
        if self.closed:
            return
        self._post(("close",))
        self._thread.join(timeout=30)

    # -- the scheduler thread ---------------------------------------------------------------
    def _run(self):
        while True:
            if not self.ready.is_set():
                if self.core.search_ready.wait(READY_POLL_S):
                    self._on_ready()
            try:
                event = self._events.get(timeout=None if self.ready.is_set() else READY_POLL_S)
            except queue.Empty:
                continue
            kind = event[0]
            if kind == "close":
                self._close()
                return
            try:
                getattr(self, "_ev_" + kind)(*event[1:])
                self._dispatch()
            except Exception as e:        # the scheduler must outlive any one event
                self._on_error(f"gui engine scheduler: {type(e).__name__}: {e}")

    def _on_ready(self):
        self.ready.set()
        if self.core.searcher is None:
            self._on_error(f"the engine could not load: {self.core.load_error}")
            for granted in self._gate_waiting:     # each acquire then says why
                granted.set()
            self._gate_waiting.clear()
            return
        for name, value in self._start_options.items():
            try:
                self.core.set_option(name, value)
            except ValueError as e:
                self._on_error(f"{name}: {e}")
        self._dispatch()

    def _set_current(self, value):
        with self._lock:
            self._current = value

    def _stop_current(self):
        """Stop the running search (its result will be dropped)."""
        cur = self._current
        if isinstance(cur, Job):
            cur.stopped = True
            self.core.stop(wait=True)
            self._set_current(None)
        return cur

    def _ev_submit(self, job):
        old = self._pending.pop(job.tab, None)
        cur = self._current
        if isinstance(cur, Job) and cur.tab == job.tab:
            self._stop_current()
        elif isinstance(cur, Job) and cur.kind == ANALYSE:
            self._stop_current()
            cur.stopped, cur.paused = False, True
            self._pending[cur.tab] = cur          # runs again when the engine is free
            cur.notify("preempted")
        self._pending[job.tab] = job
        if old is not None and old.paused:
            job.paused = True

    def _ev_cancel(self, tab):
        self._pending.pop(tab, None)
        cur = self._current
        if isinstance(cur, Job) and cur.tab == tab:
            self._stop_current()

    def _ev_done(self, job, run, result):
        if self._current is job and run == self._runs:
            self._set_current(None)
            if not job.stopped:
                job.on_done(result)

    def _ev_gate(self, granted):
        if self.ready.is_set() and self.core.searcher is None:
            granted.set()                 # acquire says why: the engine could not load
            return
        cur = self._current
        if isinstance(cur, Job) and cur.kind == ANALYSE:
            self._stop_current()
            cur.stopped, cur.paused = False, True
            self._pending[cur.tab] = cur
            cur.notify("preempted")
        self._gate_waiting.append(granted)

    def _ev_release(self):
        if self._current == "gate":
            self._set_current(None)

    def _ev_annotating(self, delta):
        self._annotating += delta

    def _dispatch(self):
        """Start the next search when the engine is free: engine moves (oldest first), then
        an annotation's position, then analyses (newest first, none while annotating)."""
        if not self.ready.is_set() or self.core.searcher is None:
            return
        if self._current is not None:
            for job in self._pending.values():
                if not job.paused:
                    job.paused = True
                    job.notify("waiting")
            return
        plays = sorted((j for j in self._pending.values() if j.kind == PLAY),
                       key=lambda j: j.serial)
        if plays:
            return self._start(plays[0])
        if self._gate_waiting:
            for name, value in NEUTRAL_OPTIONS.items():
                self._set_option(name, value)
            self._set_current("gate")
            self._gate_waiting.pop(0).set()
            return
        analyses = sorted((j for j in self._pending.values() if j.kind == ANALYSE),
                          key=lambda j: -j.serial)
        if analyses and not self._annotating:
            return self._start(analyses[0])
        for job in analyses:
            if not job.paused:
                job.paused = True
                job.notify("waiting")

    def _set_option(self, name, value):
        key = name.lower()
        if key in self.core.options and self.core.options[key] != value:
            self.core.set_option(name, value)

    def _start(self, job):
        del self._pending[job.tab]
        try:
            for name, value in job.options.items():
                self._set_option(name, value)
            self.core.set_position(*job.game)
            limits = job.limits()
        except (ValueError, RuntimeError) as e:
            job.on_error(str(e))
            return self._dispatch()
        self._set_current(job)
        self._runs += 1
        run = self._runs
        if job.paused:
            job.paused = False
            job.notify("resumed")
        try:
            self.core.start(limits, job.on_info,
                            lambda result: self._post(("done", job, run, result)),
                            multipv=job.options.get("MultiPV"))
        except (ValueError, RuntimeError) as e:
            self._set_current(None)
            job.on_error(str(e))
            return self._dispatch()

    def _close(self):
        self.closed = True
        for granted in self._gate_waiting:
            granted.set()
        self._stop_current()
        self.core.close()
