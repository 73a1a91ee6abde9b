"""The engine core: one engine's state and the typed calls both front ends make (Stockfish's
engine.cpp beside uci.cpp).

`EngineCore` owns the position and its game, the options (declared once, in OPTIONS, each
with its on-change action, a method here), the network, the transposition table and the
search threads (driver.Searcher's threads.ThreadPool: a search runs on the pool's main
thread, so the caller keeps reading its input), the opening book, the
tablebases and the strength level. The UCI loop (uci.py) and the Python API (api.py) only
translate: text or python-chess types in, these calls, text or python-chess types out.

Plain Python at import: the UCI loop answers `uci` from OPTIONS before any compiled code is
loaded. Compiled code loads in a background thread from `start_loading()` on; calls that need
it wait for it. Moves cross this interface as UCI text in the game's notation (UCI_Chess960,
or the flag a position was set with); scores as integers from the side to move's view, which
`score_parts` and `wdl` turn into what a front end shows.
"""
import dataclasses
import math
import os
import threading
import time
from dataclasses import dataclass
from typing import Callable, List, Optional

from black_numba import __version__
from black_numba.search.limits import Limits
from black_numba.core.options import Option
from black_numba.search import style as styles
from black_numba.search.strength import (CALIBRATE_ENV, ELO_MAX, ELO_MIN, LEVEL_OFF,
                                         LEVEL_OPTION, LEVEL_SCALE, SKILL_MAX, handicap)

ENGINE_NAME = f"black_numba {__version__}"
AUTHOR = "the black_numba developers"
# EvalFile's default: the network shipped in the package. Not "default.bnn" (its old name,
# still read as a synonym): python-chess 1.11.2 splits an `option` line at the word "default"
# wherever it stands, and read that default as ".bnn".
DEFAULT_NET_NAME = "<shipped>"
LEGACY_NET_NAME = "default.bnn"
# Stockfish's Hash maximum; what the machine can hold now is the real bound (_on_hash)
HASH_MAX_MB = 33554432
# Every option, in the order `uci` announces them; on_change names the EngineCore method that
# acts on a new value (none: the value is only read where it is used).
OPTIONS = (
    Option("Hash", "spin", 16, 1, HASH_MAX_MB, "transposition table size in MB", "_on_hash"),
    Option("Threads", "spin", 1, 1, 512, "search threads (Lazy SMP); go perft uses them too",
           "_on_threads"),
    Option("Move Overhead", "spin", 30, 0, 5000, "ms kept back per move for GUI or network lag"),
    Option("Middlegame Time", "spin", 100, 50, 300, "percent of the usual time per move "
           "from move 12 to 30 (sudden death), back to 100 by move 55"),
    Option("Ponder", "check", False, doc="think on the opponent's time (go ponder, ponderhit)"),
    Option("MultiPV", "spin", 1, 1, 256, "principal variations reported"),
    Option("Clear Hash", "button", doc="empties the transposition table and the histories",
           on_change="_on_clear_hash"),
    Option("OwnBook", "check", False, doc="play from a Polyglot book at the root"),
    Option("BookFile", "string", "", doc="the Polyglot book", on_change="_on_bookfile"),
    Option("SyzygyPath", "string", "", doc="Syzygy folders, ':'-separated (';' too)",
           on_change="_on_syzygypath"),
    Option("SyzygyProbeDepth", "spin", 1, 1, 100, "least depth of a search probe of the "
           "largest tables", "_on_syzygy_setting", "syzygyprobedepth"),
    Option("Syzygy50MoveRule", "check", True, doc="cursed wins and blessed losses are draws",
           on_change="_on_syzygy_setting", arg="syzygy50moverule"),
    Option("SyzygyProbeLimit", "spin", 7, 0, 7, "most pieces of a position probed (0: none)",
           "_on_syzygy_setting", "syzygyprobelimit"),
    Option("UCI_ShowWDL", "check", False, doc="add wdl to info score"),
    Option("UCI_Chess960", "check", False, doc="Chess960 castling notation (king takes rook)"),
    Option("UCI_AnalyseMode", "check", False,
           doc="analysing, not playing: the book and the style are off"),
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
    Option("UCI_Opponent", "string", "", doc="the opponent (title rating computer|human name, "
           "or a name): its rating sets the Hustler's contempt", on_change="_on_uci_opponent"),
    Option("Style", "combo", styles.NORMAL_STYLE, doc="Normal (objective), Aggressive "
           "(sacrifices for the initiative), Hustler (plays the opponent and the clock)",
           on_change="_on_style", var=styles.STYLES),
    Option("Contempt", "spin", 0, -styles.CONTEMPT_MAX, styles.CONTEMPT_MAX,
           "centipawns a draw costs us (0: the style's own value)"),
    Option("Rating", "spin", 0, 0, styles.RATING_MAX,
           "our rating in the opponent's pool (0: UCI_Elo with UCI_LimitStrength, else the "
           "calibrated full strength)"),
)
TUNE_PREFIX = "Tune "
if os.environ.get("BLACK_NUMBA_TUNE") == "1":
    # SPSA (arena/spsa.py): the search's tuned numbers as options, only on request
    from black_numba.search.params import TUNE, margins
    _VALUES = dict(zip(TUNE, margins()))
    OPTIONS += tuple(Option(TUNE_PREFIX + name, "spin", int(_VALUES[name]), lo, hi,
                            "the search's value (SPSA)", "_on_tune", name)
                     for name, (lo, hi, _) in TUNE.items())
if os.environ.get(CALIBRATE_ENV) == "1":
    # `black-numba calibrate` (calibration.py): a real skill level, only on request
    OPTIONS += (Option(LEVEL_OPTION, "spin", LEVEL_OFF, LEVEL_OFF, SKILL_MAX * LEVEL_SCALE,
                       "skill level in hundredths (-1: not set); wins over UCI_Elo and Skill "
                       "Level"),)
OPTION_BY_KEY = {o.name.lower(): o for o in OPTIONS}

# Mate scores (mirrors tt.py, which this module must not import before `uci` is answered).
MATE = 32000
MATE_IN_MAX = MATE - 256
TB_WIN = MATE_IN_MAX - 1            # a tablebase win found at ply p scores TB_WIN - p
TB_WIN_IN_MAX = TB_WIN - 128        # ... p < 128 (movegen.MAX_PLY)
# Win/draw/loss model for UCI_ShowWDL: logistic in the centipawn score.
WDL_WIN_AT = 180.0          # centipawns where a win becomes as likely as not
WDL_SLOPE = 60.0
TB_WIN_SCORE = 20000        # centipawns reported for a tablebase win at the root
MAX_PERFT_DEPTH = 12        # `go perft` deeper than this is refused (it would run for days)
# The game's undo stack keeps the last HISTORY_KEEP plies once it comes within HISTORY_ROOM
# of its end: only the last 100 plies can matter for repetitions (the 50-move rule).
HISTORY_KEEP = 100
HISTORY_ROOM = 300
CURRMOVE_AFTER_S = 3.0      # `info currmove` once a second after this long a search
CURRMOVE_EVERY_S = 1.0


def score_parts(score):
    """("cp", centipawns) or ("mate", moves; negative when being mated) of a score. A
    tablebase win p plies from the root reads as TB_WIN_SCORE - p centipawns (a loss the
    negation), as Stockfish reports tablebase results in centipawns."""
    if score >= MATE_IN_MAX:
        return "mate", (MATE - score + 1) // 2
    if score <= -MATE_IN_MAX:
        return "mate", -((MATE + score) // 2)
    if abs(score) >= TB_WIN_IN_MAX:
        return "cp", (TB_WIN_SCORE - (TB_WIN - abs(score))) * (1 if score > 0 else -1)
    return "cp", score


def wdl(score):
    """Win/draw/loss per mille from a logistic model of the centipawn score."""
    if score >= TB_WIN_IN_MAX:
        return 1000, 0, 0
    if score <= -TB_WIN_IN_MAX:
        return 0, 0, 1000
    w = 1 / (1 + math.exp((WDL_WIN_AT - score) / WDL_SLOPE))
    l = 1 / (1 + math.exp((WDL_WIN_AT + score) / WDL_SLOPE))
    w, l = round(1000 * w), round(1000 * l)
    return w, 1000 - w - l, l


def option_text(value):
    """A typed option value (int, bool, str, None) as the text `setoption ... value` carries;
    None: no value (a button)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return " ".join(str(value).split())


@dataclass(frozen=True)
class Opponent:
    """Who the engine plays, as `UCI_Opponent` says: title (GM, BOT, ...) and rating, None
    where not known; is_computer None when not said."""
    name: str
    title: Optional[str] = None
    rating: Optional[int] = None
    is_computer: Optional[bool] = None


OPPONENT_KINDS = {"computer": True, "human": False}


def parse_opponent(text):
    """The Opponent of a `UCI_Opponent` value, None for an empty one. Two forms arrive:
    `TITLE RATING computer|human NAME` (the UCI specification's, sent by python-chess,
    lichess-bot and Cute Chess, with `none` for a missing title or rating) and a bare name
    (any other text, taken whole)."""
    words = text.split()
    if not words:
        return None
    if len(words) >= 4 and words[2].lower() in OPPONENT_KINDS and \
            (words[1].lower() == "none" or words[1].isdigit()):
        title = None if words[0].lower() == "none" else words[0]
        rating = None if words[1].lower() == "none" else int(words[1])
        return Opponent(" ".join(words[3:]), title, rating, OPPONENT_KINDS[words[2].lower()])
    return Opponent(" ".join(words))


def available_memory_mb():
    """The memory a new transposition table may take now, in MB, or None where not known:
    Linux's MemAvailable (within a cgroup's memory.max, where one is set), elsewhere the
    physical memory. np.zeros reserves address space lazily (the table's pages arrive as the
    search writes them), so an allocation that succeeds proves nothing: this is the check."""
    found = []
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) // 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
        if limit.isdigit():
            with open("/sys/fs/cgroup/memory.current") as f:
                found.append(max(0, int(limit) - int(f.read().strip())) >> 20)
    except (OSError, ValueError):
        pass
    if not found:
        try:
            found.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") >> 20)
        except (AttributeError, ValueError, OSError):
            return None
    return min(found)


@dataclass
class Result:
    """What a search answers: the best move and the move it expects in reply (UCI text in the
    game's notation; best None where there is no legal move), the score, and where the move
    came from ("search", "book" or "tablebase")."""
    best: Optional[str]
    ponder: Optional[str] = None
    score: int = 0
    source: str = "search"


class EngineCore:
    """One engine. on_message(text) receives what the engine has to say outside the search's
    reports (compiling, a loaded network, a book move, errors as "error: ..."); calls that
    cannot be obeyed raise ValueError and leave the state as it was."""

    def __init__(self, on_message: Optional[Callable[[str], None]] = None):
        self._on_message = on_message
        self.options = {o.name.lower(): o.default for o in OPTIONS}
        self.board_ready = threading.Event()
        self.search_ready = threading.Event()
        self.load_error = None
        self.cold = False
        self.P = self.M = self._perft = None
        self.searcher = None
        self._net = None          # (path, network array) last loaded
        self._probe = None        # the Hustler's probe searcher (hustle.py), made when needed
        self.pos = None
        self._chess960 = None     # the game's notation; None: UCI_Chess960's
        self._line = None         # ((fen, chess960), moves) that gave self.pos, for reuse
        self._book = None
        self.tablebase = None
        self.opponent = None      # Opponent of UCI_Opponent: its rating sets the Hustler's contempt
        self._loader = None
        self._done = threading.Event()
        self._done.set()

    # -- messages -------------------------------------------------------------------------
    def say(self, text):
        if self._on_message is not None:
            self._on_message(text)

    def error(self, text):
        self.say("error: " + text)

    # -- loading the compiled code in the background ----------------------------------------
    def start_loading(self):
        if self._loader is None:
            self._loader = threading.Thread(target=self._load, daemon=True,
                                            name="black_numba loader")
            self._loader.start()

    def _load(self):
        try:
            from black_numba import cache
            cold = self.cold = not cache.is_warm()
            if cold:
                self.say("compiling (first start after install or upgrade) ...")
            t0 = time.perf_counter()
            from black_numba.board import movegen, perft, position
            pos = position.from_fen()
            movegen.legal_moves(pos)
            self.P, self.M, self._perft = position, movegen, perft
            if self.pos is None:
                self.pos = pos
            self.board_ready.set()
            if cold:
                self.say(f"compiling: board core ready ({time.perf_counter() - t0:.1f} s), "
                         "search next ...")
            from black_numba.search.driver import Searcher
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
                self.say(f"compiling: done ({time.perf_counter() - t0:.1f} s)")
        except Exception as e:           # reported, and every later call then says so
            self.load_error = f"{type(e).__name__}: {e}"
            self.error("could not load the engine core: " + self.load_error)
        finally:
            self.board_ready.set()
            self.search_ready.set()

    def need_board(self):
        """Wait for the board code (position, move generation, perft)."""
        self.start_loading()
        self.board_ready.wait()
        if self.P is None:
            raise RuntimeError(f"engine core unavailable ({self.load_error})")

    def need_search(self):
        """Wait for the search (and the board code)."""
        self.need_board()
        if not self.search_ready.is_set() and self.cold:
            self.say("waiting for the search to finish compiling ...")
        self.search_ready.wait()
        if self.searcher is None:
            raise RuntimeError(f"search unavailable ({self.load_error})")

    def ready(self):
        """Wait until a search can start: with a warm cache for the search too (well under a
        second); on a cold one only for the board code, inside GUI time-outs (the first `go`
        waits for the rest of the compile)."""
        self.need_board()
        if not self.cold:
            self.search_ready.wait()

    # -- options --------------------------------------------------------------------------
    def set_option(self, name, value=None):
        """Set option `name` (any case) to value: text as `setoption` writes it, or a typed
        value (int, bool, str); None for a button. ValueError for an unknown option or a
        refused value, which keeps the old one."""
        opt = OPTION_BY_KEY.get(name.lower())
        if opt is None:
            raise ValueError(f"no such option {name!r}")
        v = opt.parse(option_text(value))
        if opt.on_change:
            getattr(self, opt.on_change)(*(() if opt.arg is None else (opt.arg,)), v)
        if opt.kind != "button":
            self.options[opt.name.lower()] = v

    def _on_hash(self, mb):
        """A new table of mb MB, refused (the old one kept) when it is more than the memory
        available now plus the old table's (available_memory_mb), or cannot be allocated."""
        self.stop()
        self.need_search()
        old = self.options["hash"]
        free = available_memory_mb()
        if free is not None and mb > free + old:
            raise ValueError(f"Hash {mb} MB is more than the memory available ({free + old} MB "
                             f"with the current table's); keeping the {old} MB table")
        try:
            self.searcher.resize(mb)
        except MemoryError:
            raise ValueError(f"cannot allocate {mb} MB for Hash; keeping the {old} MB "
                             "table") from None

    def _on_threads(self, n):
        self.stop()
        self.need_search()
        self.searcher.set_threads(n)

    def _on_clear_hash(self, _):
        self.stop()
        self.need_search()
        self.searcher.clear()

    def _on_uci_opponent(self, text):
        self.opponent = parse_opponent(text)

    def _on_style(self, name):
        """A new style: the table's scores were the old style's, so it is emptied."""
        if name != self.options["style"] and self.searcher is not None:
            # (none yet: the loader's table is new, and cleared after its warm-up search)
            self.stop()
            self.searcher.clear_table()

    def our_rating(self):
        """Our rating in the opponent's pool (the Hustler's gap): the Rating option, else
        UCI_Elo under UCI_LimitStrength, else the calibrated full strength (ELO_MAX)."""
        o = self.options
        if o["rating"]:
            return o["rating"]
        return o["uci_elo"] if o["uci_limitstrength"] else ELO_MAX

    def style_settings(self, limits=None, white_to_move=True):
        """The style.StyleSettings of a search now: Style, Contempt, our rating against
        UCI_Opponent's, UCI_AnalyseMode, and the clock trigger (timeman.hurry) of limits."""
        from black_numba.search.timeman import hurry
        o = self.options
        opp = self.opponent.rating if self.opponent is not None else None
        rushed = limits is not None and hurry(limits, white_to_move)
        return styles.settings(o["style"], o["contempt"], self.our_rating(), opp,
                               o["uci_analysemode"], rushed)

    def _on_bookfile(self, path):
        if path and not os.path.isfile(path):
            raise ValueError(f"book file {path!r} not found")

    def _on_use_nnue(self, use):
        self.stop()
        self.need_search()
        self.options["use nnue"] = use          # kept even when the file fails: it says why
        self._set_evaluation(use, self.options["evalfile"])

    def _on_evalfile(self, path):
        self.stop()
        self.need_search()
        self._set_evaluation(self.options["use nnue"], path)

    def _on_tune(self, name, value):
        self.stop()
        self.need_search()
        self.searcher.tune(name, value)

    def _on_syzygypath(self, path):
        """Map the tables of the folders (syzygy.py); a file or folder that cannot be used
        is reported by name and left out, the others are used."""
        self.stop()
        self.need_search()
        from black_numba.tablebase.syzygy import Tablebase
        old = self.tablebase
        tb = Tablebase(path) if path else Tablebase()
        for e in tb.errors:
            self.error(f"syzygy: {e}")
        self.tablebase = tb if len(tb) else None
        self._on_syzygy_setting()
        if path:
            self.say(f"found {len(tb)} tablebases ({tb.num_files} files), the largest of "
                     f"{tb.max_pieces} pieces")
        if old is not None:
            old.close()

    def _on_syzygy_setting(self, key=None, value=None):
        """The search probes the tables as SyzygyProbeLimit, SyzygyProbeDepth and
        Syzygy50MoveRule say (key: the option changing to value)."""
        self.stop()
        self.need_search()
        from black_numba.tablebase.syzygy import Tablebase
        o = dict(self.options, **({key: value} if key else {}))
        self.searcher.set_tablebase(self.tablebase or Tablebase(), o["syzygyprobelimit"],
                                    o["syzygyprobedepth"], o["syzygy50moverule"])

    def _set_evaluation(self, use_nnue, eval_file, announce=True):
        """Evaluate with the network of eval_file (or the tapered evaluation). A file that
        cannot be used raises ValueError and the evaluation in use stays. A network loaded on
        request is announced (the shipped one at start-up is not)."""
        from black_numba.evaluation import netfile, nnue
        NN = nnue.NO_NET
        if use_nnue:
            path = eval_file
            if eval_file in ("", DEFAULT_NET_NAME) or \
                    (eval_file == LEGACY_NET_NAME and not os.path.isfile(eval_file)):
                path = netfile.DEFAULT_NET
            if self._net is None or self._net[0] != path:
                try:
                    loaded, head = netfile.load(path)
                except netfile.NetError as e:
                    kept = "the network" if self.searcher.NN is not nnue.NO_NET else \
                        "the tapered evaluation"
                    raise ValueError(f"{e}; keeping {kept}") from None
                self._net = (path, loaded)
                if announce:
                    self.say(f"NNUE evaluation using {path} ({head['architecture']}, "
                             f"{os.path.getsize(path) // 1024} KB)")
            NN = self._net[1]
        self.searcher.set_network(NN)

    def network(self):
        """The network searched with, None for the tapered evaluation."""
        from black_numba.evaluation import nnue
        self.need_search()
        NN = self.searcher.NN
        return None if NN is nnue.NO_NET else NN

    # -- the game ---------------------------------------------------------------------------
    def new_game(self):
        """Forget everything learnt (table, histories) and set the start position."""
        self.stop()
        self.need_search()
        self.searcher.clear()
        self.pos = self.P.from_fen()
        self._chess960 = None
        self._line = None

    def chess960(self):
        """Is the game's castling written king-takes-rook?"""
        return self.options["uci_chess960"] if self._chess960 is None else self._chess960

    def set_position(self, fen=None, moves=(), chess960=None):
        """The position after moves (UCI texts) from fen (None: the start position), castling
        written as chess960 says (None: as UCI_Chess960 says). ValueError for a bad FEN or
        move, and the position stays. The same game a few plies on, as GUIs send it every
        move, plays only the new moves."""
        self.need_board()
        fen = self.P.START_FEN if fen is None else fen
        notation = self.options["uci_chess960"] if chess960 is None else bool(chess960)
        moves = tuple(moves)
        line = (fen, notation)
        if self._line is not None and self._line[0] == line and \
                moves[:len(self._line[1])] == self._line[1]:
            pos = self._play(self.pos.copy(), moves, notation, len(self._line[1]))
        else:
            pos = self._position_of(fen, moves, notation)
        self.pos = pos
        self._chess960 = chess960
        self._line = (line, moves)

    def _position_of(self, fen, moves, chess960):
        """A new position array: moves (UCI texts) played from fen; ValueError."""
        return self._play(self.P.from_fen(self.P.START_FEN if fen is None else fen),
                          tuple(moves), chess960, 0)

    def _play(self, pos, moves, chess960, done):
        """pos after moves[done:]; the undo stack trimmed to the plies that matter."""
        P = self.P
        for n, text in enumerate(moves[done:], done + 1):
            try:
                m = self.M.parse_uci_move(pos, text, chess960)
            except ValueError as e:
                raise ValueError(f"move {n} ({text!r}): {e}; position unchanged") from None
            P.make_move(P.TABLES, pos, m)
            if int(pos[P.SP]) >= P.MAX_STACK - HISTORY_ROOM:
                P.trim_history(pos, HISTORY_KEEP)
        return pos

    def fen(self):
        self.need_board()
        return self.P.get_fen(self.pos)

    def _text(self, pos, m):
        return self.P.move_to_uci(m, pos if self.chess960() else None)

    def legal_moves(self):
        """The legal moves of the position, as UCI text in the game's notation."""
        self.need_board()
        return [self._text(self.pos, m) for m in self.M.legal_moves(self.pos)]

    # -- searching --------------------------------------------------------------------------
    def searching(self):
        """Is an asynchronous search running (its result not yet handed over)?"""
        return not self._done.is_set()

    def stop(self, wait=True):
        """Stop a running search; with wait, return once its result has been handed over."""
        if self.searcher is not None:
            self.searcher.stop()
        if wait:
            self.wait()

    def wait(self):
        """Wait until the running search (if any) has handed over its result and ended."""
        if self.searcher is not None:
            self.searcher.wait_main()

    def close(self):
        """Stop any search and end the search threads (the engine is not used again)."""
        self.stop()
        if self.searcher is not None:
            self.searcher.close()
        if self._probe is not None:
            self._probe.close()

    def end_previous(self):
        """Before a new search: the previous one may have handed over its result and not yet
        ended; one really still running is stopped (its result comes first)."""
        if self.searching():
            self.say("go while searching: stopping the previous search first")
        self.stop()

    def ponderhit(self):
        """The opponent played the move pondered on: the clock runs from now."""
        if self.searching() and self.searcher is not None:
            self.searcher.ponderhit()

    def handicap(self):
        """The strength level in force (strength.Handicap), None at full strength."""
        o = self.options
        return handicap(o["uci_limitstrength"], o["uci_elo"], o["skill level"],
                        o.get(LEVEL_OPTION.lower(), LEVEL_OFF))

    def _book_move(self, pos):
        o = self.options
        if not o["ownbook"] or not o["bookfile"] or o["uci_analysemode"] or \
                o["uci_chess960"] or self.chess960() or self.handicap() is not None:
            return None           # a strength level plays its own moves, the opening too
        from black_numba.core.book import book_move
        try:
            return book_move(o["bookfile"], self.P.get_fen(pos))
        except OSError as e:
            self.error(f"book: {e}")
            return None

    def start(self, limits: Limits, on_info=None, on_done=None, ponder=False,
              searchmoves=(), multipv=None, on_currmove=None):
        """Search the position in the background; returns at once. on_info(Info) receives
        each report (engine.Info, its PV as UCI text), on_currmove(move, number) the root move
        being searched once a second after the first three, on_done(Result) the answer, from
        the search's thread. searchmoves: UCI texts the root is restricted to (all of them
        must be legal: see `legal_moves`); multipv: None for the MultiPV option. A book move
        answers at once (not while pondering); under `infinite` it is reported as a depth 0
        line and the search runs on until stop, then answers with that move (with the search's
        ponder move where the search found the same move). Syzygy tables are probed by the
        search itself (engine.py): at the root they choose the moves searched, never the end
        of the search."""
        self.need_board()
        self.end_previous()
        limits = limits.capped()
        legal = {self._text(self.pos, m): m for m in self.M.legal_moves(self.pos)}
        bad = [m for m in searchmoves if m not in legal]
        if bad:
            raise ValueError(f"illegal searchmoves {' '.join(bad)}")
        chosen = [legal[m] for m in searchmoves]
        multipv = self.options["multipv"] if multipv is None else multipv
        self.need_search()
        pos = self.pos.copy()
        notation = self.chess960()
        text = lambda m: self.P.move_to_uci(m, pos if notation else None)  # noqa: E731
        on_info = on_info or (lambda info: None)
        on_done = on_done or (lambda result: None)
        shortcut = None
        if not ponder:
            book = self._book_move(pos)
            if book is not None:
                self.say(f"book move {book}")
                shortcut = Result(book, None, 0, "book")
        if shortcut is not None:
            from black_numba.search.driver import Info
            on_info(Info(depth=0 if limits.infinite else 1, score=shortcut.score,
                         pv=[shortcut.best]))
            if not limits.infinite:
                on_done(shortcut)
                return
        self.searcher.prepare(ponder=ponder)
        self._done = done = threading.Event()

        def report(info):
            on_info(dataclasses.replace(info, pv=[text(m) for m in info.pv]))

        def job():
            try:
                if on_currmove is not None:
                    threading.Thread(target=self._monitor, args=(done, text, on_currmove),
                                     daemon=True, name="black_numba currmove").start()
                best, ponder_move, score = self._search(pos, limits, report, multipv, chosen)
                result = Result(None if best is None else text(best),
                                None if ponder_move is None else text(ponder_move), score)
                if shortcut is not None:
                    # go infinite: the book's or the tables' move is still the answer
                    same = result.best == shortcut.best
                    result = dataclasses.replace(
                        shortcut, ponder=result.ponder if same else None,
                        score=result.score if same else shortcut.score)
            except Exception as e:
                # never leave the caller without a move: the first legal one
                self.error(f"search failed: {type(e).__name__}: {e}")
                moves = self.M.legal_moves(pos)
                result = Result(text(moves[0]) if moves else None)
            done.set()
            on_done(result)

        self.searcher.run_main(job)

    def go(self, limits: Limits, on_info=None, ponder=False, searchmoves=(), multipv=None):
        """Search the position and return its Result (`start` and wait)."""
        results = []
        self.start(limits, on_info, results.append, ponder, searchmoves, multipv)
        if not results:
            self.wait()
        return results[0]

    def _search(self, pos, limits, report, multipv, searchmoves):
        """(best, ponder, score) of a search under the options. A strength level searches on
        one thread (reproducible; Threads cannot make it stronger) within its node budget,
        to its depth cap, at least its lines (Handicap.lines), and plays the line its seeded choice
        picks. A style and a level combine: the style shapes the lines' scores, the level's
        seeded choice then picks among them (so the level decides the move played)."""
        h = self.handicap()
        if h is not None:
            limits = dataclasses.replace(limits, nodes=h.nodes(limits.nodes),
                                         depth=h.depth(limits.depth))
            multipv = h.multipv(multipv)
        best, ponder, score = self.searcher.search(
            pos, limits, report=report, multipv=multipv, searchmoves=searchmoves or None,
            overhead_ms=self.options["move overhead"], threads=1 if h is not None else None,
            middlegame=self.options["middlegame time"],
            tablebases=h is None,     # a weak level must not play perfect endgames
            style=self.style_settings(limits, int(pos[self.P.SIDE]) == 0))
        lines = self.searcher.last_lines
        if h is None and best is not None and self._hustles(limits, multipv, searchmoves):
            return self._hustle(pos, best, ponder, score)
        if h is None or best is None or len(lines) < 2:
            return best, ponder, score
        i = h.pick([(pv[0], sc) for sc, pv in lines], h.rng(int(pos[self.P.KEY])))
        if i == 0:
            return best, ponder, score
        sc, pv = lines[i]
        return pv[0], (pv[1] if len(pv) > 1 else None), sc

    def _hustles(self, limits, multipv, searchmoves):
        """Does the Hustler choose its move for a weaker human (hustle.py)? Style Hustler,
        playing (not UCI_AnalyseMode, infinite, MultiPV or searchmoves), against an opponent
        UCI_Opponent calls human, rated below us."""
        o, opp = self.options, self.opponent
        return (o["style"] == styles.HUSTLER_STYLE and not o["uci_analysemode"]
                and not limits.infinite and multipv == 1 and not searchmoves
                and opp is not None and opp.is_computer is False and opp.rating is not None
                and self.our_rating() > opp.rating)

    def _hustle(self, pos, best, ponder, score):
        """The Hustler's choice among the moves near the best (hustle.choose), on a probe
        searcher of its own within HUSTLE_SHARE of the main search's nodes; the main move
        when no choice is made or the search was stopped."""
        from black_numba.search import hustle
        from black_numba.search.driver import Searcher
        from black_numba.search.state import C_STOP
        if int(self.searcher.ctl[C_STOP]):
            return best, ponder, score          # stopped (or out of time): answer at once
        if self._probe is None:
            self._probe = Searcher(hustle.HUSTLE_HASH_MB, 1)
        self._probe.set_network(self.searcher.NN)
        self._probe.clear()
        budget = int(self.searcher.nodes() * hustle.HUSTLE_SHARE)
        move, reply, sc, _, _ = hustle.choose(self._probe, pos.copy(), best, budget,
                                              self.our_rating() - self.opponent.rating)
        if move == best or sc is None:
            return best, ponder, score
        return move, reply, sc

    def _monitor(self, done, text, on_currmove):
        """After CURRMOVE_AFTER_S, report the root move being searched every
        CURRMOVE_EVERY_S."""
        if done.wait(CURRMOVE_AFTER_S):
            return
        while not done.wait(CURRMOVE_EVERY_S):
            m, n = self.searcher.currmove()
            if m:
                on_currmove(text(m), n)

    # -- beyond the search ------------------------------------------------------------------
    def perft(self, depth, threads=None, hash_mb=0, game=None):
        """Leaf nodes of the position's move tree at depth (perft(0) is 1), on Threads
        threads unless told. game: (fen, moves, chess960) to count instead of the position
        (which stays)."""
        pos, _ = self._counted(game)
        return self._perft.perft(pos, depth, self._threads(threads), hash_mb)

    def divide(self, depth, threads=None, hash_mb=0, game=None):
        """[(root move in the game's notation, perft(depth - 1) below it)]."""
        pos, chess960 = self._counted(game)
        return self._perft.divide(pos, depth, chess960, self._threads(threads), hash_mb)

    def _counted(self, game):
        self.need_board()
        if game is None:
            return self.pos, self.chess960()
        fen, moves, chess960 = game
        return self._position_of(fen, moves, chess960), chess960

    def _threads(self, threads):
        return self.options["threads"] if threads is None else threads

    def static_eval(self):
        """The static evaluation of the position, centipawns from the side to move's view."""
        self.need_search()
        from black_numba.search.search import static_eval
        return int(static_eval(self.P.TABLES, self.searcher.EV, self.pos))

    def evaluate(self, fens: List[str], device="cpu"):
        """Static evaluations (centipawns, White's view, int32 array) of FENs with the
        evaluation in use, on the CPU or, with device "cuda" (or "auto" where one is present),
        a CUDA GPU. ValueError for a bad FEN or device."""
        from black_numba.evaluation import batch
        try:
            boards, stm, _ = batch.pack([batch.fen_of_line(f) for f in fens])
        except ValueError as e:
            raise ValueError(f"bad FEN: {e}") from None
        NN = self.network()
        if device not in ("cpu", "cuda", "auto"):
            raise ValueError(f"device must be cpu, cuda or auto, got {device!r}")
        if device != "cpu":
            cuda_eval = batch.import_cuda_eval()
            if cuda_eval.available():
                return cuda_eval.CudaEvaluator(NN=NN).evaluate(boards, stm)
            if device == "cuda":
                raise ValueError("no CUDA GPU is available here")
        return batch.evaluate_cpu(boards, stm, NN=NN)
