"""The UCI protocol loop: plain Python that answers `uci` before any Numba code is imported.

The main thread reads stdin; searches run in a worker thread inside nogil compiled code and
poll a shared stop flag, so `stop`, `ponderhit` and `isready` are answered during a search.
"""
import os
import sys
import threading
import time

from black_numba import __version__

ENGINE_NAME = f"black_numba {__version__}"
AUTHOR = "the black_numba developers"


class UciEngine:
    """State of one UCI session; ``handle`` takes one input line."""

    def __init__(self, out=None):
        self.out = out or sys.stdout
        self.lock = threading.Lock()
        self.core = None
        self.debug = False
        self.pos = None
        self.moves_text = []

    # -- output ---------------------------------------------------------------------------
    def send(self, line):
        with self.lock:
            self.out.write(line + "\n")
            self.out.flush()

    def info_string(self, text):
        self.send("info string " + text)

    def error(self, text):
        self.info_string("error: " + text)

    # -- lazy loading of the compiled core ----------------------------------------------------
    def load(self):
        """Import the compiled modules (numba) on first use."""
        if self.core is not None:
            return self.core
        from black_numba import cache
        if not cache.is_warm():
            self.info_string("compiling (first start after install or upgrade), please wait ...")
        t0 = time.perf_counter()
        from black_numba import movegen, perft, position
        self.core = {"position": position, "movegen": movegen, "perft": perft}
        if self.pos is None:
            self.pos = position.from_fen()
        if self.debug:
            self.info_string(f"loaded in {time.perf_counter() - t0:.2f} s")
        return self.core

    # -- commands ---------------------------------------------------------------------------
    def handle(self, line):
        """Process one line; returns False on quit."""
        tokens = line.split()
        if not tokens:
            return True
        cmd, args = tokens[0], tokens[1:]
        if cmd == "quit":
            return False
        handler = getattr(self, "cmd_" + cmd, None)
        if handler is None:
            self.error(f"unknown command {cmd!r}")
            return True
        try:
            handler(args)
        except Exception as e:     # bad input never kills the engine
            self.error(f"{cmd}: {e}")
        return True

    def cmd_uci(self, args):
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {AUTHOR}")
        self.send("uciok")

    def cmd_isready(self, args):
        self.load()
        self.send("readyok")

    def cmd_debug(self, args):
        self.debug = bool(args) and args[0] == "on"

    def cmd_ucinewgame(self, args):
        self.load()

    def cmd_position(self, args):
        core = self.load()
        P = core["position"]
        if not args:
            raise ValueError("position needs startpos or fen")
        if args[0] == "startpos":
            fen, rest = P.START_FEN, args[1:]
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
        pos = P.from_fen(fen)
        for text in rest[1:]:
            m = core["movegen"].parse_uci_move(pos, text)
            P.make_move(P.TABLES, pos, m)
        self.pos = pos

    def cmd_go(self, args):
        core = self.load()
        if args and args[0] == "perft":
            depth = int(args[1]) if len(args) > 1 else 1
            if not 0 <= depth <= 20:
                raise ValueError("perft depth out of range")
            rows = core["perft"].divide(self.pos, depth) if depth > 0 else []
            for m, c in rows:
                self.send(f"{m}: {c}")
            self.send("")
            self.send(f"Nodes searched: {sum(c for _, c in rows) if depth > 0 else 1}")
            return
        raise ValueError("search is not available yet")

    def cmd_d(self, args):
        self.load()
        self.send(self.core["position"].get_fen(self.pos))


def main():
    engine = UciEngine()
    for line in sys.stdin:
        if not engine.handle(line.strip()):
            break
    return 0
