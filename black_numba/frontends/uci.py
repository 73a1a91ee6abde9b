"""The UCI protocol: a text adapter over the engine core (core/engine.py), plain Python that answers
`uci` before any Numba code is imported.

The main thread reads stdin, parses each line into a call of the core and writes what comes
back. The core loads compiled code in the background and searches in its own threads (inside
nogil compiled code), so `stop`, `ponderhit` and `isready` are answered at once during a
search. Bad input never kills the engine: it is reported as `info string error: ...` and the
last valid state is kept.
"""
import sys
import threading

from black_numba.core.engine import (
    AUTHOR, ENGINE_NAME, MAX_PERFT_DEPTH, OPTIONS, EngineCore, score_parts, wdl,
)
from black_numba.search.limits import INT_LIMITS, MAX_VALUE, Limits

MAX_LINE = 1 << 16
GO_KEYS = set(INT_LIMITS) | {"searchmoves", "ponder", "infinite"}


def score_text(score):
    """UCI score: 'cp N' or 'mate N' (negative when being mated)."""
    kind, n = score_parts(score)
    return f"{kind} {n}"


def info_line(info, move_text, show_wdl=False):
    """The `info` line of an engine.Info report; move_text turns a PV move into UCI text."""
    line = f"info depth {info.depth}"
    if info.seldepth is not None:
        line += f" seldepth {info.seldepth}"
    if info.multipv is not None:
        line += f" multipv {info.multipv}"
    line += " score " + score_text(info.score)
    if info.bound:
        line += " " + info.bound
    if show_wdl and info.nodes is not None:
        line += " wdl %d %d %d" % wdl(info.score)
    if info.nodes is not None:
        line += (f" nodes {info.nodes} nps {info.nps} hashfull {info.hashfull} "
                 f"tbhits {info.tbhits} time {info.time_ms}")
    elif info.tbhits:
        line += f" tbhits {info.tbhits}"
    if info.pv:
        line += " pv " + " ".join(move_text(m) for m in info.pv)
    return line


class UciEngine:
    """One UCI session over an EngineCore; ``handle`` takes one input line."""

    def __init__(self, out=None):
        self.out = out or sys.stdout
        self.out_lock = threading.Lock()
        self.debug = False
        self.core = EngineCore(on_message=self.info_string)

    # -- output ---------------------------------------------------------------------------
    def send(self, line):
        with self.out_lock:
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (BrokenPipeError, ValueError):
                pass

    def info_string(self, text):
        self.send("info string " + text)

    def error(self, text):
        self.info_string("error: " + text)

    # -- dispatch -------------------------------------------------------------------------
    def handle(self, line):
        """Process one line; returns False on quit."""
        if len(line) > MAX_LINE:
            self.error(f"line of {len(line)} characters ignored")
            return True
        tokens = line.split()
        if not tokens:
            return True
        cmd, args = tokens[0], tokens[1:]
        if cmd == "quit":
            self.core.stop()
            return False
        handler = getattr(self, "cmd_" + cmd, None)
        if handler is None:
            self.error(f"unknown command {cmd!r}")
            return True
        try:
            handler(args)
        except Exception as e:
            self.error(f"{cmd}: {e}")
        return True

    # -- commands ---------------------------------------------------------------------------
    def cmd_uci(self, args):
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {AUTHOR}")
        for o in OPTIONS:
            self.send(o.declaration())
        self.send("uciok")
        self.core.start_loading()

    def cmd_isready(self, args):
        self.core.ready()
        self.send("readyok")

    def cmd_debug(self, args):
        if args and args[0] in ("on", "off"):
            self.debug = args[0] == "on"
        else:
            raise ValueError("expected 'debug on' or 'debug off'")

    def cmd_ucinewgame(self, args):
        self.core.new_game()

    def cmd_setoption(self, args):
        if not args or args[0] != "name":
            raise ValueError("expected 'setoption name <name> [value <value>]'")
        if "value" in args:
            i = args.index("value")
            name, value = " ".join(args[1:i]), " ".join(args[i + 1:])
        else:
            name, value = " ".join(args[1:]), None
        self.core.set_option(name, value)

    def cmd_position(self, args):
        if not args:
            raise ValueError("position needs startpos or fen")
        if args[0] == "startpos":
            fen, rest = None, args[1:]
        elif args[0] == "fen":
            if "moves" in args:
                i = args.index("moves")
                fen, rest = " ".join(args[1:i]), args[i:]
            else:
                fen, rest = " ".join(args[1:]), []
        else:
            raise ValueError(f"expected startpos or fen, got {args[0]!r}")
        if rest and rest[0] != "moves":
            raise ValueError(f"expected 'moves', got {rest[0]!r}")
        self.core.set_position(fen, rest[1:])

    def _parse_go(self, args):
        """(limits, searchmoves, ponder, errors): a tolerant parser. A bad parameter is skipped
        with its value and reported; the rest is still obeyed, since a GUI waits for a
        bestmove after every go."""
        values, searchmoves, ponder, errors = {}, [], False, []
        i = 0
        while i < len(args):
            tok = args[i]
            if tok in INT_LIMITS:
                i += 2
                if i > len(args):
                    errors.append(f"go {tok} needs a number")
                    continue
                try:
                    v = int(args[i - 1])
                except ValueError:
                    errors.append(f"go {tok} needs a number, got {args[i - 1]!r}")
                    continue
                if v < 0 and tok in ("wtime", "btime"):
                    v = 0                       # a flagged clock: move at once
                elif v < 0:
                    errors.append(f"go {tok} must not be negative")
                    continue
                values[tok] = min(v, MAX_VALUE)
            elif tok == "infinite":
                values["infinite"] = True
                i += 1
            elif tok == "ponder":
                ponder = True
                i += 1
            elif tok == "searchmoves":
                i += 1
                while i < len(args) and args[i] not in GO_KEYS:
                    searchmoves.append(args[i])
                    i += 1
            else:
                errors.append(f"unknown go parameter {tok!r}")
                i += 1
        return Limits(**values).capped(), searchmoves, ponder, errors

    def cmd_go(self, args):
        core = self.core
        core.need_board()
        core.end_previous()
        limits, searchmoves, ponder, errors = self._parse_go(args)
        for e in errors:
            self.error(f"{e}; searching with the rest")
        if limits.perft is not None:
            self._perft(limits.perft)
            return
        legal = set(core.legal_moves())
        bad = [m for m in searchmoves if m not in legal]
        if bad:
            self.error(f"go searchmoves: ignoring illegal {' '.join(bad)}")
        show_wdl = core.options["uci_showwdl"]
        core.start(limits, lambda info: self.send(info_line(info, str, show_wdl)),
                   self._bestmove, ponder, [m for m in searchmoves if m in legal],
                   on_currmove=lambda m, n: self.send(f"info currmove {m} currmovenumber {n}"))

    def _bestmove(self, result):
        if result.best is None:
            self.send("bestmove 0000")
        elif result.ponder is not None:
            self.send(f"bestmove {result.best} ponder {result.ponder}")
        else:
            self.send(f"bestmove {result.best}")

    def _perft(self, depth):
        if depth > MAX_PERFT_DEPTH:
            raise ValueError(f"perft depth must be at most {MAX_PERFT_DEPTH}")
        # Threads threads take subtrees from a queue; no hash table (Hash is the search's)
        rows = self.core.divide(depth)
        for m, c in rows:
            self.send(f"{m}: {c}")
        self.send("")
        self.send(f"Nodes searched: {sum(c for _, c in rows) if depth > 0 else 1}")

    def cmd_stop(self, args):
        self.core.stop()

    def cmd_ponderhit(self, args):
        self.core.ponderhit()

    def cmd_d(self, args):
        self.send(self.core.fen())

    def cmd_eval(self, args):
        self.send(f"info string static eval {self.core.static_eval()} cp (side to move)")


def main():
    engine = UciEngine()
    sys.stdin.reconfigure(errors="replace")      # invalid UTF-8 is bad input, not a crash
    try:
        for line in sys.stdin:
            if not engine.handle(line.strip()):
                break
        else:
            engine.core.stop()            # EOF: quit cleanly
    except KeyboardInterrupt:
        pass
    return 0
