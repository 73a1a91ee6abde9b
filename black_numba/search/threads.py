"""The search threads, apart from the search (Stockfish's thread.cpp, Weiss's threads.c).

A pool of `Threads` threads, each with its own search state (state.py), made when the number
changes and parked on a condition variable between searches: a search wakes them with a job
(a callable) and they park again when it returns. Thread 0 is the main thread of an
asynchronous search (the engine core hands it a whole search, so the caller keeps reading
its input); threads 1.. are the Lazy SMP helpers. The pool knows nothing of the search: what
a thread runs is the search driver's business (engine.py). Plain Python.

A thread object exists from the pool's making; its system thread starts with its first job,
so a pool that only ever searches in the caller's thread (datagen, bench) starts none.
"""
import sys
import threading
import traceback


class SearchThread(threading.Thread):
    """One pool thread: parked until `start_job`, runs the job, parks again."""

    def __init__(self, index, state, name):
        super().__init__(daemon=True, name=f"black_numba {name} {index}")
        self.index = index
        self.state = state              # this thread's search state, kept while it lives
        self._cv = threading.Condition()
        self._job = None
        self._busy = False
        self._exit = False

    def run(self):
        while True:
            with self._cv:
                while self._job is None and not self._exit:
                    self._cv.wait()
                if self._job is None:
                    return
                job = self._job
            try:
                job()
            except Exception:           # a job reports its own errors; this is a last resort
                traceback.print_exc(file=sys.stderr)
            finally:
                with self._cv:
                    self._job = None
                    self._busy = False
                    self._cv.notify_all()

    @property
    def busy(self):
        """Is a job running (or about to)?"""
        return self._busy

    def start_job(self, job):
        """Wake the thread to run job(); it must be parked."""
        with self._cv:
            if self._busy or self._exit:
                raise RuntimeError(f"{self.name} is not parked")
            self._job = job
            self._busy = True
            if not self.is_alive():
                self.start()
            self._cv.notify_all()

    def wait_idle(self):
        """Wait until the thread is parked (returns at once when it is)."""
        with self._cv:
            while self._busy:
                self._cv.wait()

    def end(self):
        """Wait for the running job, then end the thread."""
        with self._cv:
            while self._busy:
                self._cv.wait()
            self._exit = True
            self._cv.notify_all()
        if self.is_alive():
            self.join()


class ThreadPool:
    """`len(pool)` search threads; `threads[0]` is the main one. new_state() makes a thread's
    search state; a resize keeps the states of the threads whose index survives (their
    histories stay) and makes new threads for every index."""

    def __init__(self, n, new_state):
        self._new_state = new_state
        self.threads = []
        self.resize(n)

    def __len__(self):
        return len(self.threads)

    def resize(self, n):
        """n threads from now on (at least one), every thread object new; waits for running
        jobs first."""
        n = max(1, int(n))
        states = [t.state for t in self.threads[:n]]
        while len(states) < n:
            states.append(self._new_state())
        self.close()
        self.threads = [SearchThread(i, st, "main" if i == 0 else "helper")
                        for i, st in enumerate(states)]

    @property
    def main(self):
        return self.threads[0]

    @property
    def helpers(self):
        return self.threads[1:]

    def states(self):
        return [t.state for t in self.threads]

    def wait_helpers(self):
        for t in self.threads[1:]:
            t.wait_idle()

    def close(self):
        """End every thread (after its job)."""
        for t in self.threads:
            t.end()
