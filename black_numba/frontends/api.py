"""black_numba in-process: python-chess's SimpleEngine calls and types, without a subprocess.

    import chess, chess.engine
    import black_numba

    with black_numba.Engine({"Hash": 64}) as engine:
        board = chess.Board()
        result = engine.play(board, chess.engine.Limit(time=0.1))
        info = engine.analyse(board, chess.engine.Limit(depth=10), multipv=2)

The engine behind it is the engine core (core/engine.py) the UCI loop wraps too (options, network,
book, tablebases, search), so a call here and the same call through `SimpleEngine.popen_uci(...)`
give the same move, score and node count at a fixed node count. A `chess.Board` passes with
its move stack (repetitions count) and its Chess960 flag; variant boards are refused. Bad
input raises ValueError (an illegal board, a negative limit) or `chess.engine.EngineError`
(an unknown option, a bad value, an unusable network file), and the engine stays usable.

Limits that may never end: `play` and `analyse` block their caller, who has no `stop` to send,
so they refuse (ValueError) a limit without time, depth, nodes or the side to move's clock,
and bound a mate limit alone (`Limit(mate=N)`: depth 2N + MATE_ALONE_PLIES, at most
MATE_ALONE_NODES nodes, then the best move found). `analysis` keeps UCI's rules (its `stop()`
ends any search). `Limit(mate=0)` is refused everywhere. UCI_AnalyseMode is set as python-chess
sets it: on for `analyse` and `analysis`, off for `play`, unless configured.
"""
from __future__ import annotations

import dataclasses
import queue
import threading
from typing import Iterable, Iterator, List, Mapping, Optional, Sequence, Union

import chess
import chess.engine
import numpy as np

import math

from black_numba.core.engine import (
    AUTHOR, ENGINE_NAME, MAX_PERFT_DEPTH, OPTIONS, EngineCore, score_parts, wdl,
)
from black_numba.search.limits import MAX_DEPTH, Limits
from black_numba.core.options import Option

ConfigValue = Union[str, int, bool, None]
MATE_ALONE_PLIES = 4            # Limit(mate=N) alone: depth 2N + this (a mate in N: 2N - 1 plies)
MATE_ALONE_NODES = 2_000_000    # and at most this many nodes (seconds on one thread)


def _chess_option(o: Option) -> chess.engine.Option:
    return chess.engine.Option(o.name, o.kind, o.default, o.min, o.max, list(o.var))


def pov_score(score: int, turn: chess.Color) -> chess.engine.PovScore:
    """Our integer score (side to move's view) as python-chess's score."""
    kind, n = score_parts(score)
    return chess.engine.PovScore(chess.engine.Mate(n) if kind == "mate" else chess.engine.Cp(n),
                                 turn)


LIMIT_INTEGERS = ("depth", "nodes", "mate", "remaining_moves")
LIMIT_SECONDS = ("time", "white_clock", "black_clock", "white_inc", "black_inc")


def whole_number(value, what, least=None, most=None):
    """value as an int, or ValueError naming what (a bool, text or float is refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be a whole number, got {value!r}")
    if least is not None and value < least:
        raise ValueError(f"{what} must be at least {least}, got {value}")
    if most is not None and value > most:
        raise ValueError(f"{what} must be at most {most}, got {value}")
    return int(value)


def to_limits(limit: chess.engine.Limit) -> Limits:
    """python-chess's Limit (seconds) as the engine's Limits (milliseconds), or ValueError."""
    if not isinstance(limit, chess.engine.Limit):
        raise ValueError(f"the limit must be a chess.engine.Limit, got {limit!r}")
    for name in LIMIT_INTEGERS + LIMIT_SECONDS:
        v = getattr(limit, name)
        if v is None:
            continue
        if name in LIMIT_INTEGERS:
            whole_number(v, f"limit {name}")
        elif isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                or not math.isfinite(v):
            raise ValueError(f"limit {name} must be a finite number of seconds, got {v!r}")
        if v < 0 and name not in ("white_clock", "black_clock"):
            raise ValueError(f"limit {name} must not be negative, got {v}")
    if limit.mate == 0:
        raise ValueError("Limit(mate=0) asks for a mate in no moves, which no search finds: "
                         "give mate=N with N >= 1")
    ms = lambda s: None if s is None else max(0, int(round(s * 1000)))  # noqa: E731
    try:
        return Limits(depth=limit.depth, nodes=limit.nodes, mate=limit.mate,
                      movetime=ms(limit.time), wtime=ms(limit.white_clock),
                      btime=ms(limit.black_clock), winc=ms(limit.white_inc),
                      binc=ms(limit.black_inc), movestogo=limit.remaining_moves).capped()
    except TypeError as e:
        raise ValueError(str(e)) from None


def bounded(limits: Limits, limit: chess.engine.Limit, white: bool) -> Limits:
    """limits for a call that waits for the search's end (play, analyse): as they are when
    time, depth, nodes or the side to move's clock ends them; a mate limit alone bounded by
    MATE_ALONE_PLIES and MATE_ALONE_NODES; anything else ValueError."""
    if limits.depth or limits.nodes or limits.movetime is not None or \
            limits.clock(white)[0] is not None:
        return limits
    if limits.mate:
        return dataclasses.replace(limits, nodes=MATE_ALONE_NODES,
                                   depth=min(MAX_DEPTH, 2 * limits.mate + MATE_ALONE_PLIES))
    raise ValueError(f"{limit!r} may never end: play() and analyse() need time, depth, nodes "
                     f"or the side to move's clock (mate alone is bounded); to search until "
                     f"stopped, use analysis() and its stop()")


class Analysis:
    """A running analysis, as python-chess's AnalysisResult: iterate its InfoDicts as they
    come, `stop()` it from any thread, `wait()` for the best move; `info` and `multipv` hold
    the latest lines."""

    def __init__(self, engine: "Engine", multipv: int):
        self._engine = engine
        self._queue: "queue.Queue[Optional[chess.engine.InfoDict]]" = queue.Queue()
        self.multipv: List[chess.engine.InfoDict] = [{} for _ in range(multipv)]
        self._done = threading.Event()
        self._best: Optional[chess.engine.BestMove] = None
        self._error: Optional[BaseException] = None

    @property
    def info(self) -> chess.engine.InfoDict:
        return self.multipv[0]

    def _post(self, info: chess.engine.InfoDict) -> None:
        self.multipv[info.get("multipv", 1) - 1] = info
        self._queue.put(info)

    def _finish(self, best: Optional[chess.engine.BestMove], error=None) -> None:
        self._best, self._error = best, error
        self._done.set()
        self._queue.put(None)

    def stop(self) -> None:
        """Stop the search (from any thread); the best move follows."""
        if not self._done.is_set():
            self._engine._core.stop(wait=False)

    def wait(self) -> chess.engine.BestMove:
        """The best move, once the search has ended."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._best

    def would_block(self) -> bool:
        return self._queue.empty() and not self._done.is_set()

    def empty(self) -> bool:
        return self._queue.empty()

    def get(self) -> chess.engine.InfoDict:
        """The next InfoDict; AnalysisComplete when the search has ended."""
        item = self._queue.get()
        if item is None:
            self._queue.put(None)
            raise chess.engine.AnalysisComplete()
        return item

    def next(self) -> Optional[chess.engine.InfoDict]:
        try:
            return self.get()
        except chess.engine.AnalysisComplete:
            return None

    def __iter__(self) -> Iterator[chess.engine.InfoDict]:
        while True:
            try:
                yield self.get()
            except chess.engine.AnalysisComplete:
                return

    def __enter__(self) -> "Analysis":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
        self.wait()


class Engine:
    """black_numba in this process, with the calls and types of python-chess's SimpleEngine:
    `play`, `analyse`, `analysis`, `configure`, `options`, `id`, `ping`,
    `send_opponent_information`, `send_game_result`, `quit` and use as a context manager;
    and `perft`, `divide` and `evaluate` of boards, and the `opponent` UCI_Opponent names."""

    def __init__(self, options: Optional[Mapping[str, ConfigValue]] = None) -> None:
        self._setup(EngineCore(), True, threading.Lock())
        self._core.need_search()
        if options:
            self.configure(options)

    @classmethod
    def attach(cls, core: EngineCore, lock=None) -> "Engine":
        """An Engine over a core another front end drives (the browser board's), which it
        neither owns nor closes: `quit` ends only this Engine. lock: what serialises this
        Engine's use of the core with the other users' (an object with acquire and release,
        held for each call; default a lock of its own)."""
        engine = cls.__new__(cls)
        engine._setup(core, False, lock if lock is not None else threading.Lock())
        return engine

    def _setup(self, core: EngineCore, owned: bool, lock) -> None:
        self._core = core
        self._owned = owned
        self.id = {"name": ENGINE_NAME, "author": AUTHOR}
        self.options = {o.name: _chess_option(o) for o in OPTIONS}
        self._lock = lock                      # one search at a time
        self._game_id: object = None
        self._first_game = True
        self._configured: set = set()          # options set by configure (python-chess's target)
        self._closed = False

    # -- the session --------------------------------------------------------------------------
    def configure(self, options: Mapping[str, ConfigValue]) -> None:
        """Set options by name (as `setoption`); EngineError for an unknown option or a
        refused value, which leaves the option as it was."""
        self._set_options(options)
        self._configured |= {" ".join(name.split()).lower() for name in options}

    def _set_options(self, options: Mapping[str, ConfigValue]) -> None:
        self._check_open()
        for name in options:
            if not isinstance(name, str):
                raise chess.engine.EngineError(f"option names are text, got {name!r}")
        for name, value in options.items():
            with self._lock:
                try:
                    self._core.set_option(" ".join(name.split()), value)
                except ValueError as e:
                    raise chess.engine.EngineError(str(e)) from None

    def _analyse_mode(self, on: bool, options: Mapping[str, ConfigValue]) -> None:
        """UCI_AnalyseMode as python-chess sets it before a search, unless configured or
        given in the call's options."""
        names = self._configured | {" ".join(n.split()).lower() for n in options}
        if "uci_analysemode" not in names:
            with self._lock:
                self._core.set_option("UCI_AnalyseMode", on)

    def ping(self) -> None:
        """Return once the engine is ready for a search (as `isready`); at once while one
        runs. EngineTerminatedError after quit."""
        self._check_open()
        self._core.ready()

    @staticmethod
    def _opponent_options(opponent: Optional[chess.engine.Opponent]) -> dict:
        """UCI_Opponent as python-chess writes it (`TITLE RATING computer|human NAME`), for
        an opponent with a name; nothing otherwise."""
        if opponent is None or not opponent.name:
            return {}
        return {"UCI_Opponent": f"{opponent.title or 'none'} {opponent.rating or 'none'} "
                                f"{'computer' if opponent.is_engine else 'human'} "
                                f"{opponent.name}"}

    def send_opponent_information(self, *, opponent: Optional[chess.engine.Opponent] = None,
                                  engine_rating: Optional[int] = None) -> None:
        """Tell the engine who it plays (UCI_Opponent, as python-chess sends it; its rating
        sets the contempt of Style Hustler, and nothing else reads it: see `opponent`).
        engine_rating is for XBoard engines and is not used, as in python-chess's UCI client
        (our own rating is the Rating option)."""
        self.configure(self._opponent_options(opponent))

    @property
    def opponent(self) -> Optional[chess.engine.Opponent]:
        """The opponent UCI_Opponent last named, None when none was."""
        o = self._core.opponent
        return None if o is None else chess.engine.Opponent(o.name, o.title, o.rating,
                                                            o.is_computer)

    def send_game_result(self, board: chess.Board, winner: Optional[chess.Color] = None,
                         game_ending: Optional[str] = None, game_complete: bool = True) -> None:
        """The game's result, as python-chess's UCI client takes it: UCI has no command for it,
        so nothing is sent and nothing changes (the next game is told by `game`); bad arguments
        raise ValueError, and EngineTerminatedError after quit."""
        self._check_open()
        if not isinstance(board, chess.Board):
            raise ValueError(f"board must be a chess.Board, got {type(board).__name__}")
        if winner not in (None, chess.WHITE, chess.BLACK):
            raise ValueError(f"winner must be chess.WHITE, chess.BLACK or None, got {winner!r}")
        if game_ending is not None and (not isinstance(game_ending, str) or
                                        "\n" in game_ending or "\r" in game_ending):
            raise ValueError(f"game_ending must be one line of text, got {game_ending!r}")

    def quit(self) -> None:
        """End the session: a running analysis is stopped; later calls raise
        EngineTerminatedError."""
        if not self._closed:
            if self._owned:
                self._core.close()
            self._closed = True

    close = quit

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.quit()

    def _check_open(self) -> None:
        if self._closed:
            raise chess.engine.EngineTerminatedError("the engine was quit")

    # -- positions ----------------------------------------------------------------------------
    @staticmethod
    def _check_board(board: chess.Board) -> None:
        """ValueError for a variant or an illegal board."""
        if not isinstance(board, chess.Board) or board.uci_variant != "chess":
            raise ValueError(f"only standard chess and Chess960 boards are supported, not "
                             f"{getattr(board, 'uci_variant', type(board).__name__)!r}")
        if not board.is_valid():
            raise ValueError(f"illegal board: {board.status()!r} ({board.fen()})")

    def _game(self, board: chess.Board):
        """(root FEN, moves as UCI text, chess960) of board's game, so the search sees
        repetitions; ValueError for a variant or an illegal board."""
        self._check_board(board)
        root = board.root()
        chess960 = board.chess960
        replay, moves = root.copy(stack=False), []
        for move in board.move_stack:
            moves.append(replay.uci(move, chess960=chess960))
            replay.push(move)
        return root.fen(), moves, chess960

    def _set_position(self, game) -> None:
        try:
            self._core.set_position(*game)
        except ValueError as e:
            raise ValueError(f"illegal board: {e}") from None

    @staticmethod
    def _pv(board: chess.Board, pv: Sequence[str]) -> List[chess.Move]:
        b, out = board.copy(stack=False), []
        for text in pv:
            move = b.parse_uci(text)
            out.append(move)
            b.push(move)
        return out

    def _info(self, board: chess.Board, info) -> chess.engine.InfoDict:
        """An engine Info record as python-chess reads the same `info` line."""
        d: chess.engine.InfoDict = {"depth": info.depth}
        if info.seldepth is not None:
            d["seldepth"] = info.seldepth
        if info.multipv is not None:
            d["multipv"] = info.multipv
        d["score"] = pov_score(info.score, board.turn)
        if info.bound == "lowerbound":
            d["lowerbound"] = True
        elif info.bound == "upperbound":
            d["upperbound"] = True
        if info.nodes is not None:
            if self._core.options["uci_showwdl"]:
                d["wdl"] = chess.engine.PovWdl(chess.engine.Wdl(*wdl(info.score)), board.turn)
            d.update(nodes=info.nodes, nps=info.nps, hashfull=info.hashfull,
                     tbhits=info.tbhits, time=info.time_ms / 1000.0)
        elif info.tbhits:
            d["tbhits"] = info.tbhits
        if info.pv:
            d["pv"] = self._pv(board, info.pv)
        return d

    # -- searching ----------------------------------------------------------------------------
    def _start(self, board, limits, multipv, root_moves, game, post, finish):
        """Start a search of board (the caller holds the lock); post receives each InfoDict,
        finish((best move, ponder move, last InfoDicts by line)) the answer."""
        position = self._game(board)
        if self._first_game or game != self._game_id:
            # ucinewgame where python-chess sends it: the first search, or another game
            self._core.new_game()
            self._game_id, self._first_game = game, False
        self._set_position(position)
        searchmoves = []
        if root_moves is not None:
            legal = set(self._core.legal_moves())
            for mv in root_moves:
                if not isinstance(mv, chess.Move):
                    raise ValueError(f"root moves are chess.Move objects, got {mv!r}")
                text = board.uci(mv, chess960=board.chess960)
                if text not in legal:
                    raise ValueError(f"root move {text} is not legal in {board.fen()}")
                searchmoves.append(text)
        lines: dict = {}

        def report(info):
            d = self._info(board, info)
            lines[d.get("multipv", 1)] = d
            post(d)

        def done(result):
            move = ponder = None
            try:
                if result.best is not None:
                    move = board.parse_uci(result.best)
                    if result.ponder is not None:
                        after = board.copy(stack=False)
                        after.push(move)
                        ponder = after.parse_uci(result.ponder)
            finally:
                finish((move, ponder, lines))

        self._core.start(limits, report, done, searchmoves=searchmoves, multipv=multipv)

    def _run(self, board, limits, multipv, root_moves, game):
        """Search board to the end (the caller holds the lock): (best move, ponder move, last
        InfoDicts by line)."""
        answer = []
        self._start(board, limits, multipv, root_moves, game, lambda d: None, answer.append)
        if not answer:
            self._core.wait()
        return answer[0]

    def play(self, board: chess.Board, limit: chess.engine.Limit, *, game: object = None,
             info: chess.engine.Info = chess.engine.INFO_NONE, ponder: bool = False,
             draw_offered: bool = False, root_moves: Optional[Iterable[chess.Move]] = None,
             options: Mapping[str, ConfigValue] = {},
             opponent: Optional[chess.engine.Opponent] = None) -> chess.engine.PlayResult:
        """The engine's move (clock limits, time, depth, nodes or mate: see `bounded`);
        pondering is off, draw_offered is not read (as in python-chess's UCI client);
        opponent: as send_opponent_information, a new game when it changes."""
        self._check_open()
        self._check_board(board)
        limits = bounded(to_limits(limit), limit, board.turn == chess.WHITE)
        self._analyse_mode(False, options)
        options = {**options, **self._opponent_options(opponent)}
        if options.get("UCI_Opponent", self._core.options["uci_opponent"]) != \
                self._core.options["uci_opponent"]:
            self._first_game = True                   # python-chess: ucinewgame
        self._set_options(options)
        with self._lock:
            move, ponder_move, lines = self._run(board, limits, self._core.options["multipv"],
                                                 root_moves, game)
        return chess.engine.PlayResult(move, ponder_move,
                                       lines.get(1, {}) if info else {})

    def analyse(self, board: chess.Board, limit: chess.engine.Limit, *,
                multipv: Optional[int] = None, game: object = None,
                info: chess.engine.Info = chess.engine.INFO_ALL,
                root_moves: Optional[Iterable[chess.Move]] = None,
                options: Mapping[str, ConfigValue] = {}
                ) -> Union[chess.engine.InfoDict, List[chess.engine.InfoDict]]:
        """The analysis of board to limit (see `bounded`): an InfoDict, or a list of them with
        multipv."""
        self._check_open()
        self._check_board(board)
        limits = bounded(to_limits(limit), limit, board.turn == chess.WHITE)
        self._analyse_mode(True, options)
        self._set_options(options)
        with self._lock:
            _, _, lines = self._run(board, limits, self._lines(multipv), root_moves, game)
        ordered = [lines[k] for k in sorted(lines)]
        return ordered if multipv is not None else (ordered[0] if ordered else {})

    def analysis(self, board: chess.Board, limit: Optional[chess.engine.Limit] = None, *,
                 multipv: Optional[int] = None, game: object = None,
                 info: chess.engine.Info = chess.engine.INFO_ALL,
                 root_moves: Optional[Iterable[chess.Move]] = None,
                 options: Mapping[str, ConfigValue] = {}) -> Analysis:
        """Start an analysis in the background (until stop() without a limit: a book or
        tablebase move is then the first line, and the search goes on)."""
        self._check_open()
        limits = to_limits(limit) if limit is not None else Limits(infinite=True)
        result = Analysis(self, self._lines(multipv))
        self._check_board(board)                  # bad boards fail here, in the caller
        self._analyse_mode(True, options)
        self._set_options(options)
        self._lock.acquire()

        def finish(answer):
            try:
                move, ponder, _ = answer
                result._finish(chess.engine.BestMove(move, ponder))
            finally:
                self._lock.release()

        try:
            self._start(board, limits, self._lines(multipv), root_moves, game, result._post,
                        finish)
        except BaseException as e:                # handed to wait()
            result._finish(None, e)
            self._lock.release()
        return result

    @staticmethod
    def _lines(multipv):
        """The number of lines an analysis asks for (multipv None: one)."""
        return 1 if multipv is None else whole_number(multipv, "multipv", 1, 256)

    # -- beyond SimpleEngine ------------------------------------------------------------------
    def _counting(self, board, depth, threads, hash_mb, least):
        """The game and checked arguments of perft and divide (the depth as UCI's go perft
        allows: a deeper count would run for days)."""
        whole_number(depth, "perft depth", least, MAX_PERFT_DEPTH)
        whole_number(threads, "perft threads", 1, 512)
        whole_number(hash_mb, "perft hash_mb", 0)
        return self._game(board)

    def perft(self, board: chess.Board, depth: int, *, threads: int = 1, hash_mb: int = 0) -> int:
        """Leaf nodes of board's legal move tree at depth (perft(0) is 1; at most
        MAX_PERFT_DEPTH)."""
        game = self._counting(board, depth, threads, hash_mb, 0)
        try:
            return self._core.perft(depth, threads, hash_mb, game=game)
        except ValueError as e:
            raise ValueError(f"illegal board: {e}") from None

    def divide(self, board: chess.Board, depth: int, *, threads: int = 1,
               hash_mb: int = 0) -> dict:
        """{root move: perft(depth - 1) below it}, in legal-move order."""
        game = self._counting(board, depth, threads, hash_mb, 1)
        try:
            rows = self._core.divide(depth, threads, hash_mb, game=game)
        except ValueError as e:
            raise ValueError(f"illegal board: {e}") from None
        return {board.parse_uci(m): c for m, c in rows}

    def probe_wdl(self, board: chess.Board) -> int:
        """The Syzygy WDL of board for the side to move (2 win, 1 win the fifty-move rule
        spoils, 0 draw, -1, -2), read by the compiled prober from the tables of `SyzygyPath`,
        with python-chess's `chess.syzygy` conventions: KeyError (MissingTableError) when no
        table covers it, with castling rights or too many pieces."""
        return self._tablebase().probe_wdl(board)

    def probe_dtz(self, board: chess.Board) -> int:
        """The Syzygy DTZ of board (plies to a capture or pawn move, signed as python-chess's
        `chess.syzygy.Tablebase.probe_dtz`); KeyError when no table covers it."""
        return self._tablebase().probe_dtz(board)

    def _tablebase(self):
        self._check_open()
        tb = self._core.tablebase
        if tb is None:
            from black_numba.tablebase.syzygy import MissingTableError
            raise MissingTableError("no Syzygy tables: set SyzygyPath")
        return tb

    def evaluate(self, positions: Sequence[Union[chess.Board, str]],
                 device: str = "cpu") -> np.ndarray:
        """Static evaluations (centipawns, White's view, int32) of boards or FENs, with the
        evaluation in use (the network unless `Use NNUE` is off), on the CPU or, with
        device "cuda" (or "auto" where one is present), a CUDA GPU."""
        fens = []
        for p in positions:
            if isinstance(p, chess.Board):
                self._check_board(p)
                fens.append(p.fen())
            elif isinstance(p, str):
                fens.append(p)
            else:
                raise ValueError(f"positions are chess.Board objects or FEN text, got {p!r}")
        return self._core.evaluate(fens, device)
