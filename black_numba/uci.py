"""The UCI protocol loop: plain Python that answers `uci` before any Numba code is imported.

The main thread reads stdin. Compiled code loads in a background thread from the start
(`isready` waits for the board core, `go` for the search), and every search runs in a worker
thread inside nogil compiled code that polls a stop flag, so `stop`, `ponderhit` and
`isready` are answered at once during a search. Bad input never kills the engine: it is
reported as `info string error: ...` and the last valid state is kept.
"""
import dataclasses
import math
import os
import sys
import threading
import time

from black_numba import __version__
from black_numba.limits import INT_LIMITS, MAX_DEPTH, MAX_VALUE, Limits
from black_numba.options import Option
from black_numba.strength import ELO_MAX, ELO_MIN, SKILL_MAX, handicap

ENGINE_NAME = f"black_numba {__version__}"
AUTHOR = "the black_numba developers"
MAX_LINE = 1 << 16

DEFAULT_NET_NAME = "default.bnn"    # EvalFile's default: the network shipped in the package
# Every option, in the order `uci` announces them; on_change names the UciEngine method that
# acts on a new value (none: the value is only read where it is used).
OPTIONS = (
    Option("Hash", "spin", 16, 1, 4096, "transposition table size in MB", "_on_hash"),
    Option("Threads", "spin", 1, 1, 512, "search threads (Lazy SMP); go perft uses them too",
           "_on_threads"),
    Option("Move Overhead", "spin", 30, 0, 5000, "ms kept back per move for GUI or network lag"),
    Option("Ponder", "check", False, doc="think on the opponent's time (go ponder, ponderhit)"),
    Option("MultiPV", "spin", 1, 1, 256, "principal variations reported"),
    Option("Clear Hash", "button", doc="empties the transposition table and the histories",
           on_change="_on_clear_hash"),
    Option("OwnBook", "check", False, doc="play from a Polyglot book at the root"),
    Option("BookFile", "string", "", doc="the Polyglot book", on_change="_on_bookfile"),
    Option("SyzygyPath", "string", "", doc="Syzygy folders, ':'-separated",
           on_change="_on_syzygypath"),
    Option("UCI_ShowWDL", "check", False, doc="add wdl to info score"),
    Option("UCI_Chess960", "check", False, doc="Chess960 castling notation (king takes rook)"),
    Option("Use NNUE", "check", True, doc="the network; false: the tapered evaluation",
           on_change="_on_use_nnue"),
    Option("EvalFile", "string", DEFAULT_NET_NAME, doc="network file (.bnn)",
           on_change="_on_evalfile"),
    Option("UCI_LimitStrength", "check", False,
           doc="play at UCI_Elo (wins over Skill Level)"),
    Option("UCI_Elo", "spin", ELO_MIN, ELO_MIN, ELO_MAX,
           "strength on Stockfish 15.1's UCI_Elo scale, with UCI_LimitStrength"),
    Option("Skill Level", "spin", SKILL_MAX, 0, SKILL_MAX,
           "0 (weakest) to 20 (full strength); not read with UCI_LimitStrength on"),
)
TUNE_PREFIX = "Tune "
if os.environ.get("BLACK_NUMBA_TUNE") == "1":
    # SPSA (bench/spsa.py): the network's tuned numbers as options, only on request
    from black_numba.params import EVAL_MARGINS, TUNE, margins
    _NET_VALUES = dict(zip(EVAL_MARGINS, margins(True)))
    OPTIONS += tuple(Option(TUNE_PREFIX + name, "spin", int(_NET_VALUES[name]), lo, hi,
                            "the network's value (SPSA)", "_on_tune", name)
                     for name, (lo, hi, _) in TUNE.items())
OPTION_BY_KEY = {o.name.lower(): o for o in OPTIONS}
GO_KEYS = set(INT_LIMITS) | {"searchmoves", "ponder", "infinite"}
# Mate scores (mirrors tt.py, which this module must not import before `uci` is answered).
MATE = 32000
MATE_IN_MAX = MATE - 256
# Win/draw/loss model for UCI_ShowWDL: logistic in the centipawn score.
WDL_WIN_AT = 180.0          # centipawns where a win becomes as likely as not
WDL_SLOPE = 60.0
TB_WIN_SCORE = 20000        # score reported for a tablebase win


def score_text(score):
    """UCI score: 'cp N' or 'mate N' (negative when being mated)."""
    if score >= MATE_IN_MAX:
        return f"mate {(MATE - score + 1) // 2}"
    if score <= -MATE_IN_MAX:
        return f"mate {-((MATE + score) // 2)}"
    return f"cp {score}"


def wdl(score):
    """Win/draw/loss per mille from a logistic model of the centipawn score."""
    if score >= MATE_IN_MAX:
        return 1000, 0, 0
    if score <= -MATE_IN_MAX:
        return 0, 0, 1000
    w = 1 / (1 + math.exp((WDL_WIN_AT - score) / WDL_SLOPE))
    l = 1 / (1 + math.exp((WDL_WIN_AT + score) / WDL_SLOPE))
    w, l = round(1000 * w), round(1000 * l)
    return w, 1000 - w - l, l


def info_line(info, move_text, show_wdl=False):
    """The `info` line of an engine.Info report; move_text turns a move into UCI text."""
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
        line += (f" nodes {info.nodes} nps {info.nps} hashfull {info.hashfull} tbhits 0 "
                 f"time {info.time_ms}")
    if info.pv:
        line += " pv " + " ".join(move_text(m) for m in info.pv)
    return line


class UciEngine:
    """State of one UCI session; ``handle`` takes one input line."""

    def __init__(self, out=None):
        self.out = out or sys.stdout
        self.out_lock = threading.Lock()
        self.debug = False
        self.options = {o.name.lower(): o.default for o in OPTIONS}
        self.core_ready = threading.Event()
        self.search_ready = threading.Event()
        self.load_error = None
        self.P = self.M = self.perft_mod = None
        self.searcher = None
        self.net = None           # (path, network array) last loaded
        self.pos = None
        self._line = None         # ((fen, chess960), moves) that gave self.pos, for reuse
        self.worker = None
        self.search_done = threading.Event()
        self.book = None
        self.tablebase = None
        self._loader = None
        self._cold = False

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

    # -- loading the compiled core in the background ---------------------------------------
    def start_loading(self):
        if self._loader is None:
            self._loader = threading.Thread(target=self._load, daemon=True)
            self._loader.start()

    def _load(self):
        try:
            from black_numba import cache
            cold = self._cold = not cache.is_warm()
            if cold:
                self.info_string("compiling (first start after install or upgrade) ...")
            t0 = time.perf_counter()
            from black_numba import movegen, perft, position
            pos = position.from_fen()
            movegen.legal_moves(pos)
            self.P, self.M, self.perft_mod = position, movegen, perft
            if self.pos is None:
                self.pos = pos
            self.core_ready.set()
            if cold:
                self.info_string(f"compiling: board core ready ({time.perf_counter() - t0:.1f} s), "
                                 "search next ...")
            from black_numba.engine import Searcher
            s = Searcher(self.options["hash"], self.options["threads"])
            self.searcher = s
            try:
                self._set_evaluation(self.options["use nnue"], self.options["evalfile"],
                                     announce=False)
            except ValueError as e:
                self.error(str(e))
            # a short search as `go` runs one (reported, from Python), so that the first `go`
            # of a game does not load the compiled search on the clock
            s.prepare()
            s.search(position.from_fen(), Limits(depth=2), report=lambda info: None)
            s.clear()
            if cold:
                self.info_string(f"compiling: done ({time.perf_counter() - t0:.1f} s)")
        except Exception as e:           # reported, and every command then says so
            self.load_error = f"{type(e).__name__}: {e}"
            self.error("could not load the engine core: " + self.load_error)
        finally:
            self.core_ready.set()
            self.search_ready.set()

    def need_core(self):
        self.start_loading()
        self.core_ready.wait()
        if self.P is None:
            raise RuntimeError(f"engine core unavailable ({self.load_error})")

    def need_search(self):
        self.need_core()
        if not self.search_ready.is_set() and self._cold:
            self.info_string("waiting for the search to finish compiling ...")
        self.search_ready.wait()
        if self.searcher is None:
            raise RuntimeError(f"search unavailable ({self.load_error})")

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
            self.stop_search()
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

    def searching(self):
        return self.worker is not None and self.worker.is_alive()

    def stop_search(self):
        """Stop a running search and wait for its bestmove."""
        if self.worker is not None:
            if self.searcher is not None:
                self.searcher.stop()
            self.worker.join()
            self.worker = None

    # -- commands ---------------------------------------------------------------------------
    def cmd_uci(self, args):
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {AUTHOR}")
        for o in OPTIONS:
            self.send(o.declaration())
        self.send("uciok")
        self.start_loading()

    def cmd_isready(self, args):
        # readyok means ready to search: with a warm cache wait for the search too (well under
        # a second); on a cold one answer once the board core is up, inside GUI time-outs,
        # and let the first `go` wait for the rest of the compile
        self.need_core()
        if not self._cold:
            self.search_ready.wait()
        self.send("readyok")

    def cmd_debug(self, args):
        if args and args[0] in ("on", "off"):
            self.debug = args[0] == "on"
        else:
            raise ValueError("expected 'debug on' or 'debug off'")

    def cmd_ucinewgame(self, args):
        self.stop_search()
        self.need_search()
        self.searcher.clear()
        self.pos = self.P.from_fen()
        self._line = None

    def cmd_setoption(self, args):
        if not args or args[0] != "name":
            raise ValueError("expected 'setoption name <name> [value <value>]'")
        if "value" in args:
            i = args.index("value")
            name, value = " ".join(args[1:i]), " ".join(args[i + 1:])
        else:
            name, value = " ".join(args[1:]), None
        opt = OPTION_BY_KEY.get(name.lower())
        if opt is None:
            raise ValueError(f"no such option {name!r}")
        v = opt.parse(value)
        if opt.on_change:
            # a ValueError keeps the old value
            getattr(self, opt.on_change)(*(() if opt.arg is None else (opt.arg,)), v)
        if opt.kind != "button":
            self.options[opt.name.lower()] = v

    # -- what a changed option does (OPTIONS names these) ----------------------------------
    def _on_hash(self, mb):
        self.stop_search()
        self.need_search()
        self.searcher.resize(mb)

    def _on_threads(self, n):
        self.stop_search()
        self.need_search()
        self.searcher.set_threads(n)

    def _on_clear_hash(self, _):
        self.stop_search()
        self.need_search()
        self.searcher.clear()

    def _on_bookfile(self, path):
        self.book = None
        if path and not os.path.isfile(path):
            raise ValueError(f"book file {path!r} not found")

    def _on_use_nnue(self, use):
        self.stop_search()
        self.need_search()
        self.options["use nnue"] = use          # kept even when the file fails: it says why
        self._set_evaluation(use, self.options["evalfile"])

    def _on_evalfile(self, path):
        self.stop_search()
        self.need_search()
        self._set_evaluation(self.options["use nnue"], path)

    def _on_tune(self, name, value):
        self.stop_search()
        self.need_search()
        self.searcher.tune(name, value)

    def _on_syzygypath(self, path):
        self.tablebase = None
        if path:
            self._open_tablebase(path)

    def _set_evaluation(self, use_nnue, eval_file, announce=True):
        """Evaluate with the network of eval_file (or the tapered evaluation). A file that
        cannot be used raises ValueError and the evaluation in use stays. A network loaded on
        request is announced with an info string (the shipped one at start-up is not)."""
        from black_numba import netfile, nnue
        NN = nnue.NO_NET
        if use_nnue:
            path = eval_file
            if eval_file in ("", DEFAULT_NET_NAME) and not os.path.isfile(eval_file):
                path = netfile.DEFAULT_NET
            if self.net is None or self.net[0] != path:
                try:
                    loaded, head = netfile.load(path)
                except netfile.NetError as e:
                    kept = "the network" if self.searcher.NN is not nnue.NO_NET else \
                        "the tapered evaluation"
                    raise ValueError(f"{e}; keeping {kept}") from None
                self.net = (path, loaded)
                if announce:
                    self.info_string(f"NNUE evaluation using {path} ({head['architecture']}, "
                                     f"{os.path.getsize(path) // 1024} KB)")
            NN = self.net[1]
        self.searcher.set_network(NN)

    def _open_tablebase(self, path):
        from black_numba.probe import open_tablebase
        self.tablebase, n = open_tablebase(path)
        self.info_string(f"found {n} tablebase files")

    def chess960_pos(self, pos):
        """pos when castling is written king-takes-rook (UCI_Chess960), else None."""
        return pos if self.options["uci_chess960"] else None

    def move_text(self, pos, m):
        """UCI text of move m in the game of pos, in the notation UCI_Chess960 asks for."""
        return self.P.move_to_uci(m, self.chess960_pos(pos))

    def cmd_position(self, args):
        self.need_core()
        P = self.P
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
        moves = tuple(rest[1:])
        line = (fen, self.options["uci_chess960"])
        done = 0
        if self._line is not None and self._line[0] == line and moves[:len(self._line[1])] == self._line[1]:
            # the same game a few plies on, as GUIs send it every move: play only the new
            # moves instead of replaying the whole game (about 12 us a ply)
            pos, done = self.pos.copy(), len(self._line[1])
        else:
            pos = P.from_fen(fen)
        for n, text in enumerate(moves[done:], done + 1):
            try:
                m = self.M.parse_uci_move(pos, text, self.options["uci_chess960"])
            except ValueError as e:
                raise ValueError(f"move {n} ({text!r}): {e}; position unchanged") from None
            P.make_move(P.TABLES, pos, m)
            # keep the undo stack short: only the last 100 plies matter for repetitions
            if int(pos[P.SP]) >= P.MAX_STACK - 300:
                P.trim_history(pos, 100)
        self.pos = pos
        self._line = (line, moves)

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
        if "depth" in values:
            values["depth"] = max(1, min(values["depth"], MAX_DEPTH))
        if values.get("nodes") == 0:
            values["nodes"] = 1
        return Limits(**values), searchmoves, ponder, errors

    def cmd_go(self, args):
        self.need_core()
        if self.worker is not None:
            # the previous worker may have sent bestmove and not yet exited; a search that is
            # really still running is stopped (its bestmove comes first) rather than confused
            if self.searching() and not self.search_done.is_set():
                self.info_string("go while searching: stopping the previous search first")
            self.stop_search()
        limits, searchmoves, ponder, errors = self._parse_go(args)
        for e in errors:
            self.error(f"{e}; searching with the rest")
        if limits.perft is not None:
            self._perft(limits.perft)
            return
        legal = {self.move_text(self.pos, m): m for m in self.M.legal_moves(self.pos)}
        bad = [m for m in searchmoves if m not in legal]
        if bad:
            self.error(f"go searchmoves: ignoring illegal {' '.join(bad)}")
        searchmoves = [legal[m] for m in searchmoves if m in legal]
        self.need_search()
        pos = self.pos.copy()
        book_move = None if ponder else self._book_move(pos)
        tb = None if ponder or book_move else self._tablebase_move(
            pos, [self.P.move_to_uci(m) for m in searchmoves])
        self.searcher.prepare(ponder=ponder)
        self.search_done = threading.Event()
        self.worker = threading.Thread(target=self._run_search,
                                       args=(pos, limits, searchmoves, ponder, book_move, tb),
                                       daemon=True)
        self.worker.start()

    def _perft(self, depth):
        if depth > 12:
            raise ValueError("perft depth must be at most 12")
        # Threads threads take subtrees from a queue; no hash table (Hash is the search's)
        rows = self.perft_mod.divide(self.pos, depth, self.options["uci_chess960"],
                                     threads=self.options["threads"])
        for m, c in rows:
            self.send(f"{m}: {c}")
        self.send("")
        self.send(f"Nodes searched: {sum(c for _, c in rows) if depth > 0 else 1}")

    def _book_move(self, pos):
        if not self.options["ownbook"] or not self.options["bookfile"] or self.options["uci_chess960"]:
            return None
        from black_numba.probe import book_move
        try:
            return book_move(self.options["bookfile"], self.P.get_fen(pos))
        except OSError as e:
            self.error(f"book: {e}")
            return None

    def handicap(self):
        """The strength level in force (strength.Handicap), None at full strength."""
        o = self.options
        return handicap(o["uci_limitstrength"], o["uci_elo"], o["skill level"])

    def search(self, pos, limits, report, multipv, searchmoves):
        """(best, ponder, score) of a search under the options. A strength level searches on
        one thread (reproducible; Threads cannot make it stronger) within its node budget,
        to its depth cap, at least SKILL_LINES lines, and plays the line its seeded choice
        picks."""
        h = self.handicap()
        want = 1 if h is not None else self.options["threads"]
        if self.searcher.threads != want:
            self.searcher.set_threads(want)
        if h is not None:
            limits = dataclasses.replace(limits, nodes=h.nodes(limits.nodes),
                                         depth=h.depth(limits.depth))
            multipv = h.multipv(multipv)
        best, ponder, score = self.searcher.search(
            pos, limits, report=report, multipv=multipv, searchmoves=searchmoves or None,
            overhead_ms=self.options["move overhead"])
        lines = self.searcher.last_lines
        if h is None or best is None or len(lines) < 2:
            return best, ponder, score
        i = h.pick([(pv[0], sc) for sc, pv in lines], h.rng(int(pos[self.P.KEY])))
        if i == 0:
            return best, ponder, score
        sc, pv = lines[i]
        return pv[0], (pv[1] if len(pv) > 1 else None), sc

    def _tablebase_move(self, pos, searchmoves):
        # a weak level must not play perfect endgames: it searches instead
        if self.tablebase is None or self.handicap() is not None:
            return None
        from black_numba.probe import tablebase_move
        return tablebase_move(self.tablebase, self.P.get_fen(pos), searchmoves)

    def _run_search(self, pos, limits, searchmoves, ponder, book_move, tb):
        done = self.search_done
        text = lambda m: self.move_text(pos, m)  # noqa: E731 (the notation of this game)
        try:
            if book_move or tb:
                move = book_move or tb[0]
                if book_move:
                    self.info_string(f"book move {move}")
                    self.send(f"info depth 1 score cp 0 pv {move}")
                else:
                    sc = score_text(TB_WIN_SCORE if tb[1] > 1 else -TB_WIN_SCORE if tb[1] < -1 else 0)
                    self.send(f"info depth 1 score {sc} tbhits 1 pv {move}")
                done.set()
                self.send(f"bestmove {move}")
                return
            threading.Thread(target=self._monitor, args=(done, text), daemon=True).start()
            show_wdl = self.options["uci_showwdl"]
            best, ponder_move, _ = self.search(
                pos, limits, lambda info: self.send(info_line(info, text, show_wdl)),
                self.options["multipv"], searchmoves)
            done.set()
            if best is None:
                self.send("bestmove 0000")
            elif ponder_move is not None:
                self.send(f"bestmove {text(best)} ponder {text(ponder_move)}")
            else:
                self.send(f"bestmove {text(best)}")
        except Exception as e:
            # never leave the GUI without a move: fall back to the first legal one
            self.error(f"search failed: {type(e).__name__}: {e}")
            moves = self.M.legal_moves(pos)
            done.set()
            self.send(f"bestmove {text(moves[0]) if moves else '0000'}")
        finally:
            done.set()

    def _monitor(self, done, text):
        """After the first 3 seconds, report the root move being searched once a second."""
        if done.wait(3.0):
            return
        while not done.wait(1.0):
            m, n = self.searcher.currmove()
            if m:
                self.send(f"info currmove {text(m)} currmovenumber {n}")

    def cmd_stop(self, args):
        if self.worker is not None:
            self.stop_search()

    def cmd_ponderhit(self, args):
        if self.searching() and self.searcher is not None:
            self.searcher.ponderhit()

    def cmd_d(self, args):
        self.need_core()
        self.send(self.P.get_fen(self.pos))

    def cmd_eval(self, args):
        self.need_search()
        from black_numba.search import static_eval
        self.send(f"info string static eval {int(static_eval(self.P.TABLES, self.searcher.EV, self.pos))} "
                  "cp (side to move)")


def main():
    engine = UciEngine()
    try:
        for line in sys.stdin:
            if not engine.handle(line.strip()):
                break
        else:
            engine.stop_search()          # EOF: quit cleanly
    except KeyboardInterrupt:
        pass
    return 0
