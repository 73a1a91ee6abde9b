"""black_numba in-process: python-chess's SimpleEngine calls and types, without a subprocess.

    import chess, chess.engine
    import black_numba

    with black_numba.Engine({"Hash": 64}) as engine:
        board = chess.Board()
        result = engine.play(board, chess.engine.Limit(time=0.1))
        info = engine.analyse(board, chess.engine.Limit(depth=10), multipv=2)

The engine behind it is the UCI engine's own state (options, network, book, tablebases,
search), so a call here and the same call through `SimpleEngine.popen_uci("bin/black-numba")`
give the same move, score and node count at a fixed node count. A `chess.Board` passes with
its move stack (repetitions count) and its Chess960 flag; variant boards are refused. Bad
input raises ValueError (an illegal board, a negative limit) or `chess.engine.EngineError`
(an unknown option, a bad value, an unusable network file), and the engine stays usable.
"""
from __future__ import annotations

import queue
import threading
from typing import Iterable, Iterator, List, Mapping, Optional, Sequence, Union

import chess
import chess.engine
import numpy as np

from black_numba.limits import Limits
from black_numba.options import Option
from black_numba.uci import AUTHOR, ENGINE_NAME, MATE, MATE_IN_MAX, OPTIONS, TB_WIN_SCORE, \
    UciEngine, wdl

ConfigValue = Union[str, int, bool, None]


class _Discard:
    """Where the UCI layer's own lines go (this interface answers in python-chess types)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def _chess_option(o: Option) -> chess.engine.Option:
    return chess.engine.Option(o.name, o.kind, o.default, o.min, o.max, [])


def pov_score(score: int, turn: chess.Color) -> chess.engine.PovScore:
    """Our integer score (side to move's view) as python-chess's score."""
    if score >= MATE_IN_MAX:
        return chess.engine.PovScore(chess.engine.Mate((MATE - score + 1) // 2), turn)
    if score <= -MATE_IN_MAX:
        return chess.engine.PovScore(chess.engine.Mate(-((MATE + score) // 2)), turn)
    return chess.engine.PovScore(chess.engine.Cp(score), turn)


def to_limits(limit: chess.engine.Limit) -> Limits:
    """python-chess's Limit (seconds) as the engine's Limits (milliseconds), or ValueError."""
    for name in ("depth", "nodes", "mate", "time", "white_clock", "black_clock", "white_inc",
                 "black_inc", "remaining_moves"):
        v = getattr(limit, name)
        if v is not None and v < 0 and name not in ("white_clock", "black_clock"):
            raise ValueError(f"limit {name} must not be negative, got {v}")
    ms = lambda s: None if s is None else max(0, int(round(s * 1000)))  # noqa: E731
    try:
        return Limits(depth=None if limit.depth is None else max(1, min(limit.depth, 100)),
                      nodes=None if limit.nodes is None else max(1, limit.nodes),
                      mate=limit.mate, movetime=ms(limit.time), wtime=ms(limit.white_clock),
                      btime=ms(limit.black_clock), winc=ms(limit.white_inc),
                      binc=ms(limit.black_inc), movestogo=limit.remaining_moves)
    except TypeError as e:
        raise ValueError(str(e)) from None


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
            self._engine._uci.searcher.stop()

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
    `play`, `analyse`, `analysis`, `configure`, `options`, `id`, `quit` and use as a context
    manager; and `perft`, `divide` and `evaluate` of boards."""

    def __init__(self, options: Optional[Mapping[str, ConfigValue]] = None) -> None:
        self._uci = UciEngine(out=_Discard())
        self._uci.need_search()
        self.id = {"name": ENGINE_NAME, "author": AUTHOR}
        self.options = {o.name: _chess_option(o) for o in OPTIONS}
        self._lock = threading.Lock()          # one search at a time
        self._game: object = None
        self._first_game = True
        self._closed = False
        if options:
            self.configure(options)

    # -- the session --------------------------------------------------------------------------
    def configure(self, options: Mapping[str, ConfigValue]) -> None:
        """Set options by name (as `setoption`); EngineError for an unknown option or a
        refused value, which leaves the option as it was."""
        self._check_open()
        for name, value in options.items():
            if value is None:
                text = []
            elif isinstance(value, bool):
                text = ["value", "true" if value else "false"]
            else:
                text = ["value"] + (str(value).split() or [""])
            with self._lock:
                try:
                    self._uci.cmd_setoption(["name"] + name.split() + text)
                except ValueError as e:
                    raise chess.engine.EngineError(str(e)) from None

    def quit(self) -> None:
        """End the session: a running analysis is stopped; later calls raise
        EngineTerminatedError."""
        if not self._closed:
            self._uci.stop_search()
            self._uci.searcher.stop()
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
    def _position(self, board: chess.Board):
        """(position array, chess960) of a board, its game replayed from its root so the
        search sees repetitions; ValueError for a variant or an illegal board."""
        if not isinstance(board, chess.Board) or board.uci_variant != "chess":
            raise ValueError(f"only standard chess and Chess960 boards are supported, not "
                             f"{getattr(board, 'uci_variant', type(board).__name__)!r}")
        if not board.is_valid():
            raise ValueError(f"illegal board: {board.status()!r} ({board.fen()})")
        P, M = self._uci.P, self._uci.M
        root = board.root()
        chess960 = board.chess960
        try:
            pos = P.from_fen(root.fen())
        except ValueError as e:
            raise ValueError(f"illegal board: {e}") from None
        replay = root.copy(stack=False)
        for move in board.move_stack:
            m = M.parse_uci_move(pos, replay.uci(move, chess960=chess960), chess960)
            P.make_move(P.TABLES, pos, m)
            if int(pos[P.SP]) >= P.MAX_STACK - 300:
                P.trim_history(pos, 100)
            replay.push(move)
        return pos, chess960

    def _move(self, board: chess.Board, pos, chess960: bool, m: int) -> chess.Move:
        return board.parse_uci(self._uci.P.move_to_uci(m, pos if chess960 else None))

    def _pv(self, board, pos, chess960, pv) -> List[chess.Move]:
        b, out = board.copy(stack=False), []
        for m in pv:
            move = self._move(b, pos, chess960, m)
            out.append(move)
            b.push(move)
        return out

    def _info(self, board, pos, chess960, info) -> chess.engine.InfoDict:
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
            if self._uci.options["uci_showwdl"]:
                d["wdl"] = chess.engine.PovWdl(chess.engine.Wdl(*wdl(info.score)), board.turn)
            d.update(nodes=info.nodes, nps=info.nps, hashfull=info.hashfull, tbhits=0,
                     time=info.time_ms / 1000.0)
        if info.pv:
            d["pv"] = self._pv(board, pos, chess960, info.pv)
        return d

    # -- searching ----------------------------------------------------------------------------
    def _new_game(self, game: object) -> None:
        """ucinewgame where python-chess sends it: the first search, or another game."""
        if self._first_game or game != self._game:
            self._uci.cmd_ucinewgame([])
            self._game, self._first_game = game, False

    def _run(self, board, limits, multipv, root_moves, game, post):
        """Search board (the caller holds the lock); post receives each InfoDict. Returns
        (best move, ponder move, last InfoDicts by line)."""
        pos, chess960 = self._position(board)
        self._new_game(game)
        searchmoves = []
        if root_moves is not None:
            legal = {self._uci.P.move_to_uci(m, pos if chess960 else None): m
                     for m in self._uci.M.legal_moves(pos)}
            for mv in root_moves:
                text = board.uci(mv, chess960=chess960)
                if text not in legal:
                    raise ValueError(f"root move {text} is not legal in {board.fen()}")
                searchmoves.append(legal[text])
        lines: dict = {}
        uci = self._uci
        shortcut = uci._book_move(pos) if not chess960 else None
        if shortcut is None:
            tb = uci._tablebase_move(pos, [uci.P.move_to_uci(m) for m in searchmoves])
            if tb is not None:
                shortcut = tb[0]
                sc = TB_WIN_SCORE if tb[1] > 1 else -TB_WIN_SCORE if tb[1] < -1 else 0
        else:
            sc = 0
        if shortcut is not None:
            move = board.parse_uci(shortcut)
            info: chess.engine.InfoDict = {"depth": 1, "score": pov_score(sc, board.turn),
                                           "pv": [move]}
            post(info)
            return move, None, {1: info}
        uci.searcher.prepare(ponder=False)

        def report(info):
            d = self._info(board, pos, chess960, info)
            lines[d.get("multipv", 1)] = d
            post(d)

        best, ponder_move, _ = uci.search(pos, limits, report, multipv, searchmoves)
        if best is None:
            return None, None, lines
        move = self._move(board, pos, chess960, best)
        ponder = None
        if ponder_move is not None:
            after = board.copy(stack=False)
            after.push(move)
            ponder = self._move(after, pos, chess960, ponder_move)
        return move, ponder, lines

    def play(self, board: chess.Board, limit: chess.engine.Limit, *, game: object = None,
             info: chess.engine.Info = chess.engine.INFO_NONE, ponder: bool = False,
             root_moves: Optional[Iterable[chess.Move]] = None,
             options: Mapping[str, ConfigValue] = {}) -> chess.engine.PlayResult:
        """The engine's move (clock limits, time, depth, nodes or mate); pondering is off."""
        self._check_open()
        limits = to_limits(limit)
        self.configure(options)
        with self._lock:
            move, ponder_move, lines = self._run(board, limits, self._uci.options["multipv"],
                                                 root_moves, game, lambda d: None)
        return chess.engine.PlayResult(move, ponder_move,
                                       lines.get(1, {}) if info else {})

    def analyse(self, board: chess.Board, limit: chess.engine.Limit, *,
                multipv: Optional[int] = None, game: object = None,
                info: chess.engine.Info = chess.engine.INFO_ALL,
                root_moves: Optional[Iterable[chess.Move]] = None,
                options: Mapping[str, ConfigValue] = {}
                ) -> Union[chess.engine.InfoDict, List[chess.engine.InfoDict]]:
        """The analysis of board to limit: an InfoDict, or a list of them with multipv."""
        self._check_open()
        limits = to_limits(limit)
        self.configure(options)
        with self._lock:
            _, _, lines = self._run(board, limits, multipv or 1, root_moves, game,
                                    lambda d: None)
        ordered = [lines[k] for k in sorted(lines)]
        return ordered if multipv is not None else (ordered[0] if ordered else {})

    def analysis(self, board: chess.Board, limit: Optional[chess.engine.Limit] = None, *,
                 multipv: Optional[int] = None, game: object = None,
                 info: chess.engine.Info = chess.engine.INFO_ALL,
                 root_moves: Optional[Iterable[chess.Move]] = None,
                 options: Mapping[str, ConfigValue] = {}) -> Analysis:
        """Start an analysis in the background (until stop() without a limit)."""
        self._check_open()
        limits = to_limits(limit) if limit is not None else Limits(infinite=True)
        result = Analysis(self, multipv or 1)
        self._position(board)                     # bad boards fail here, in the caller
        self.configure(options)
        self._lock.acquire()

        def work():
            try:
                move, ponder, _ = self._run(board, limits, multipv or 1, root_moves, game,
                                            result._post)
                result._finish(chess.engine.BestMove(move, ponder))
            except BaseException as e:            # handed to wait()
                result._finish(None, e)
            finally:
                self._lock.release()

        threading.Thread(target=work, daemon=True, name="black_numba analysis").start()
        return result

    # -- beyond SimpleEngine ------------------------------------------------------------------
    def perft(self, board: chess.Board, depth: int, *, threads: int = 1, hash_mb: int = 0) -> int:
        """Leaf nodes of board's legal move tree at depth (perft(0) is 1)."""
        if depth < 0:
            raise ValueError(f"perft depth must not be negative, got {depth}")
        pos, _ = self._position(board)
        return self._uci.perft_mod.perft(pos, depth, threads, hash_mb)

    def divide(self, board: chess.Board, depth: int, *, threads: int = 1,
               hash_mb: int = 0) -> dict:
        """{root move: perft(depth - 1) below it}, in legal-move order."""
        if depth < 1:
            raise ValueError(f"divide depth must be at least 1, got {depth}")
        pos, chess960 = self._position(board)
        rows = self._uci.perft_mod.divide(pos, depth, chess960, threads, hash_mb)
        return {board.parse_uci(m): c for m, c in rows}

    def evaluate(self, positions: Sequence[Union[chess.Board, str]],
                 device: str = "cpu") -> np.ndarray:
        """Static evaluations (centipawns, White's view, int32) of boards or FENs, with the
        evaluation in use (the network unless `Use NNUE` is off), on the CPU or, with
        device "cuda" (or "auto" where one is present), a CUDA GPU."""
        from black_numba import batch
        fens = []
        for p in positions:
            if isinstance(p, chess.Board):
                self._position(p)
                fens.append(p.fen())
            else:
                fens.append(batch.fen_of_line(p))
        try:
            boards, stm, _ = batch.pack(fens)
        except ValueError as e:
            raise ValueError(f"bad FEN: {e}") from None
        from black_numba import nnue
        NN = self._uci.searcher.NN
        NN = None if NN is nnue.NO_NET else NN
        if device not in ("cpu", "cuda", "auto"):
            raise ValueError(f"device must be cpu, cuda or auto, got {device!r}")
        if device != "cpu":
            cuda_eval = batch.import_cuda_eval()
            if cuda_eval.available():
                return cuda_eval.CudaEvaluator(NN=NN).evaluate(boards, stm)
            if device == "cuda":
                raise ValueError("no CUDA GPU is available here")
        return batch.evaluate_cpu(boards, stm, NN=NN)
