"""The project's one UCI client: an engine process over a plain pipe, for the match runner
(match.py, matchgame.py), the style report, the reference engine of datagen and relabel,
`label`, and bench/'s timings.

A reader thread moves the engine's output lines into a queue, each stamped with its arrival
time (time.perf_counter: a timing is the engine's, not the reader's), so every wait has a deadline:
an engine that stops answering is a hang, one that closes its output a crash, and neither
can block the runner. A patient client (datagen's reference engines, at nice 19 beside other
work) waits on past a deadline while the engine is runnable or stopped and has used less CPU
than the wait allowed: an engine starved of CPU or paused is slow, not hung. Only the lines a match needs are parsed (`id name`, `option name`,
`uciok`, `readyok`, the last `info ... score`, `bestmove`); python-chess's client parses
every `info` line in an event loop, which costs time that a fast time control counts: against
black_numba at `go nodes 1`, 0.46 ms of the runner's CPU a move through `SimpleEngine.play`,
0.07 ms here (2-core machine under load, 2026-11-27).
"""
import os
import queue
import shlex
import subprocess
import threading
import time

MATE_CP = 100_000     # a mate score in centipawns: MATE_CP - plies to mate
QUIT_WAIT_S = 2.0     # a quitting engine gets this long before it is killed
NODES_HONOURED_SHARE = 10   # under 1/this of the nodes asked (searched_nodes): `go nodes` ignored
PATIENCE_POLL_S = 5.0  # a patient client past a deadline looks at the engine this often


def nodes_ignored(seen, nodes):
    """Does an engine that says it searched `seen` nodes (UciProcess.searched_nodes; None:
    it said nothing) at `go nodes nodes` ignore the limit? True under 1/NODES_HONOURED_SHARE
    of it."""
    return seen is not None and seen * NODES_HONOURED_SHARE < nodes


class EngineCrash(RuntimeError):
    """The engine exited, closed its output or could not be started."""


class EngineHang(RuntimeError):
    """The engine gave no answer before the deadline."""


def _stat_fields(path):
    """The fields after the command name of a /proc stat file (the name may hold spaces)."""
    with open(path) as f:
        return f.read().rpartition(")")[2].split()


def process_cpu(pid):
    """The CPU seconds process pid has used (all its threads), from Linux's /proc; None where
    it cannot be read (another system, or the process is gone)."""
    try:
        fields = _stat_fields(f"/proc/{pid}/stat")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
    except (OSError, ValueError, IndexError):
        return None


def process_activity(pid):
    """(whether a thread of process pid is runnable or stopped, its CPU seconds so far), None
    where /proc cannot tell. A thread waiting for a CPU shows R, one paused by SIGSTOP T; a
    blocked one S or D."""
    cpu = process_cpu(pid)
    try:
        awake = any(_stat_fields(f"/proc/{pid}/task/{tid}/stat")[0] in ("R", "T", "t")
                    for tid in os.listdir(f"/proc/{pid}/task"))
    except (OSError, ValueError, IndexError):
        return None
    return (awake, cpu) if cpu is not None else None


class UciProcess:
    """One engine process. Every method that waits takes a timeout in seconds and raises
    EngineHang past it, EngineCrash when the process is gone."""

    def __init__(self, command, name=None, cwd=None, env=None):
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise EngineCrash("empty engine command")
        self.name = name or os.path.basename(argv[0])
        self.id_name = None
        self.options = {}          # name -> the `option` line's text after the name
        self.arrival = None        # time.perf_counter() when the last line read arrived
        self.patient = False       # past a deadline, wait on for a starved or paused engine
        self._wait = None          # a patient wait's (CPU seconds at its start, its timeout)
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True, bufsize=1,
                                         cwd=cwd, env=env, start_new_session=True)
        except OSError as e:
            raise EngineCrash(f"cannot start {command!r}: {e.strerror or e}") from None
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True, name=f"uci-{self.name}").start()

    def _read(self):
        try:
            for line in self.proc.stdout:
                self.lines.put((time.perf_counter(), line.rstrip("\r\n")))
        except (OSError, ValueError):
            pass
        self.lines.put((time.perf_counter(), None))   # end of output

    def send(self, text):
        try:
            self.proc.stdin.write(text + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise EngineCrash(f"{self.name} is gone (sending {text.split()[0]!r})") from None

    def readline(self, deadline):
        """The next line, by time.monotonic() deadline (for a patient client, later while the
        engine is starved or paused: _starved)."""
        while True:
            try:
                self.arrival, line = self.lines.get(
                    timeout=max(0.0, deadline - time.monotonic()))
                break
            except queue.Empty:
                if not self._starved():
                    raise EngineHang(f"{self.name} gave no answer in time") from None
                deadline = time.monotonic() + PATIENCE_POLL_S
        if line is None:
            self.lines.put((self.arrival, None))      # every later read sees the end too
            code = self.proc.poll()
            raise EngineCrash(f"{self.name} exited" + (f" (code {code})" if code is not None
                                                        else " its output"))
        return line

    def _start_wait(self, timeout):
        """A wait of timeout seconds begins: a patient client notes the engine's CPU time."""
        if self.patient:
            cpu = process_cpu(self.proc.pid)       # one /proc read a search (about 10 us)
            self._wait = (cpu, timeout) if cpu is not None else None

    def _starved(self):
        """Past a patient wait's deadline: is the engine still runnable or stopped, having used
        less CPU than the timeout since the wait began? (A blocked engine, or one that spun a
        whole timeout of CPU without answering, hangs.)"""
        if not (self.patient and self._wait):
            return False
        activity = process_activity(self.proc.pid)
        return bool(activity) and activity[0] and activity[1] - self._wait[0] < self._wait[1]

    def until(self, word, timeout):
        """Lines up to and including the first whose first token is word."""
        self._start_wait(timeout)
        deadline = time.monotonic() + timeout
        out = []
        while True:
            line = self.readline(deadline)
            out.append(line)
            if line.split(" ", 1)[0] == word:
                return out

    def handshake(self, timeout):
        """`uci` to `uciok`: the engine's name and options."""
        self.send("uci")
        for line in self.until("uciok", timeout):
            if line.startswith("id name "):
                self.id_name = line[8:].strip()
            elif line.startswith("option name "):
                rest = line[12:]
                name, _, spec = rest.partition(" type ")
                self.options[name.strip()] = spec

    def set_option(self, name, value):
        self.send(f"setoption name {name} value {value}")

    def ready(self, timeout):
        self.send("isready")
        self.until("readyok", timeout)

    def new_game(self, timeout):
        """`ucinewgame` then `isready`: the engine forgets the last game (its table too)."""
        self.send("ucinewgame")
        self.ready(timeout)

    def go(self, position, go, timeout, exact=False):
        """Send position and go lines; (bestmove text, last score in cp for the side to move
        or None, depth or None, seconds from `go` to `bestmove`). A mate in n is
        +-(MATE_CP - n). With exact, lowerbound and upperbound scores are passed over."""
        self.send(position)
        self._start_wait(timeout)
        start = time.monotonic()
        self.send(go)
        deadline = start + timeout
        score = depth = None
        while True:
            line = self.readline(deadline)
            if line.startswith("bestmove"):
                elapsed = time.monotonic() - start
                parts = line.split()
                return (parts[1] if len(parts) > 1 else ""), score, depth, elapsed
            if line.startswith("info ") and " score " in line and \
                    not line.startswith("info string") and \
                    not (exact and (" lowerbound" in line or " upperbound" in line)):
                score, depth = _score_depth(line, score, depth)

    def searched_nodes(self, nodes, timeout):
        """The nodes the engine says it searched (its last `info ... nodes`) at `go nodes
        nodes` from the start position after `ucinewgame`, None where it says none: an engine
        that ignores the limit shows far fewer (Ethereal 12 stops at depth 1, 6 nodes)."""
        self.new_game(timeout)
        self.send("position startpos")
        self.send(f"go nodes {nodes}")
        self._start_wait(timeout)
        deadline = time.monotonic() + timeout
        seen = None
        while True:
            line = self.readline(deadline)
            if line.startswith("bestmove"):
                return seen
            words = line.split()
            if words[:1] == ["info"] and "nodes" in words[:-1]:
                value = words[words.index("nodes") + 1]
                seen = int(value) if value.isdigit() else seen

    def close(self):
        """`quit`, then kill if the engine is still there after QUIT_WAIT_S."""
        if self.proc.poll() is None:
            try:
                self.send("quit")
            except EngineCrash:
                pass
            try:
                self.proc.wait(timeout=QUIT_WAIT_S)
            except subprocess.TimeoutExpired:
                self.kill()
        self._close_pipes()

    def kill(self):
        """Kill the engine and anything it started (its own session)."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, 9)
            except OSError:
                self.proc.kill()
            try:
                self.proc.wait(timeout=QUIT_WAIT_S)
            except subprocess.TimeoutExpired:
                pass
        self._close_pipes()

    def _close_pipes(self):
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except (OSError, ValueError):
                pass


def _score_depth(line, score, depth):
    """The (score, depth) an `info` line reports, the old ones where it has none (a
    lowerbound or upperbound score is taken as it is, as GUIs show it)."""
    tokens = line.split()
    try:
        if "depth" in tokens:
            depth = int(tokens[tokens.index("depth") + 1])
        i = tokens.index("score")
        kind, value = tokens[i + 1], int(tokens[i + 2])
    except (ValueError, IndexError):
        return score, depth
    if kind == "cp":
        return value, depth
    if kind == "mate":
        return (MATE_CP - value if value > 0 else -MATE_CP - value), depth
    return score, depth
