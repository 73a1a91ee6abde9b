"""The browser board's tabs: each its own game, event streams, analysis and annotation, with
the one engine between them (engine_host.py) and a ticker that ends games on time and sends
the clocks. Every action checks its input and raises GameError (the game unchanged); every
change is sent to the tab's streams as the new state."""
import secrets
import sys
import threading
import time

import chess

from black_numba.core.engine import ENGINE_NAME, OPTION_BY_KEY, score_parts, wdl
from black_numba.frontends.annotation import DEFAULT_NODES, winning_chances
from black_numba.frontends.gui import annotating
from black_numba.frontends.gui.engine_host import ANALYSE, PLAY, Job
from black_numba.frontends.gui.games import (ANALYSIS, COLORS, Game, GameError, board_of_fen,
                                             chess960_board, move_name, new_clock,
                                             parse_game_text)
from black_numba.frontends.gui.games import PLAY as PLAY_MODE
from black_numba.frontends.gui.stream import Stream
from black_numba.search.limits import Limits

MAX_TABS = 64                 # games kept; the least recently used one without a page goes
MAX_STREAMS = 4               # event streams of one tab (a page has one; reloads overlap)
CLOCK_TICK_S = 0.05           # flags are looked at this often
CLOCK_EVENT_S = 1.0           # a running clock is sent this often (the page counts between)
PV_SAN_PLIES = 16             # moves of an engine line shown
MULTIPV_MAX = 5               # engine lines of an analysis, at most
MOVETIME_MS = (50, 60_000, 1000)     # an engine move without clocks: least, most, default
BASE_S = (1, 3 * 3600)        # a clock's starting time, seconds: least, most
INC_S_MAX = 60                # a clock's increment, seconds, at most
ANNOTATE_NODES = (1000, 10_000_000, DEFAULT_NODES)    # annotation's nodes a position
RATING = (100, 3500)          # the person's rating, if given: least and most


def _number(params, name, lo, hi, default=None, kind=int):
    """params[name] as kind within lo..hi (default when absent or null), or GameError."""
    v = params.get(name)
    if v is None:
        if default is None:
            raise GameError(f"{name} is needed")
        return default
    if isinstance(v, bool) or not isinstance(v, (int, float)) or \
            (kind is int and not float(v).is_integer()):
        raise GameError(f"{name} must be a {'whole ' if kind is int else ''}number, got {v!r}")
    if not lo <= v <= hi:
        raise GameError(f"{name} must be between {lo} and {hi}, got {v}")
    return kind(v)


def style_option():
    """The engine's Style option (a combo) where it has one, else None."""
    o = OPTION_BY_KEY.get("style")
    return o if o is not None and o.kind == "combo" else None


def engine_settings():
    """What the page offers: the strength range, the styles, the lines and limits."""
    elo = OPTION_BY_KEY["uci_elo"]
    style = style_option()
    return {"name": ENGINE_NAME, "elo_min": elo.min, "elo_max": elo.max,
            "styles": list(getattr(style, "var", ()) or ()) if style else None,
            "style_default": style.default if style else None,
            "multipv_max": MULTIPV_MAX, "movetime_ms": MOVETIME_MS[2]}


class Tab:
    """One page's game and what it has asked of the engine."""

    def __init__(self, tab_id, game):
        self.id = tab_id
        self.game = game
        self.lock = threading.RLock()
        self.streams = []
        self.analysis = {"on": False, "multipv": 1, "wdl": False}
        self.lines = {}                 # multipv -> the newest line of the running analysis
        self.job_key = None             # what the engine does for this tab (to not repeat it)
        self.engine_note = None         # "waiting", "preempted" or None
        self.annotation = None          # the last annotation's result (annotating.py)
        self.annotating = None          # {"done", "total", "cancel"} while one runs
        self.last_used = time.monotonic()
        self.seq = 0                    # states made so far (an action's reply and an event
        #                                 may reach the page in either order)

    def send(self, event, data):
        for s in list(self.streams):
            s.put(event, data)


class Tabs:
    """Every tab's game, and the engine (an EngineHost) between them."""

    def __init__(self, host):
        self.host = host
        self._tabs = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._ticker = threading.Thread(target=self._tick, name="black_numba gui clocks",
                                        daemon=True)
        self._ticker.start()
        threading.Thread(target=self._announce_ready, daemon=True,
                         name="black_numba gui ready").start()

    # -- the registry --------------------------------------------------------------------------
    def create(self):
        tab = Tab(secrets.token_hex(8), Game(engine_name=ENGINE_NAME))
        with self._lock:
            if len(self._tabs) >= MAX_TABS:
                idle = [t for t in self._tabs.values() if not t.streams]
                if not idle:
                    raise GameError(f"{MAX_TABS} pages are open on this board: close one")
                # a game going on is the last to make way (lichess never drops one)
                self._drop(min(idle, key=lambda t: (self._going_on(t), t.last_used)))
            self._tabs[tab.id] = tab
        return tab

    def _drop(self, tab):
        del self._tabs[tab.id]
        self.host.cancel(tab.id)
        if tab.annotating:
            tab.annotating["cancel"].set()

    def get(self, tab_id):
        """The tab of an id, KeyError when there is none."""
        with self._lock:
            tab = self._tabs[tab_id]
        tab.last_used = time.monotonic()
        return tab

    def all(self):
        with self._lock:
            return list(self._tabs.values())

    @staticmethod
    def _going_on(tab):
        g = tab.game
        return g.mode == PLAY_MODE and not g.over() and g.plies_played() > 0

    def games(self):
        """The games going on (played, no result yet, a move made), the most recently used
        first: a page can go back to one of them, as lichess lists ongoing games."""
        out = []
        for tab in sorted(self.all(), key=lambda t: -t.last_used):
            with tab.lock:
                g = tab.game
                if not self._going_on(tab):
                    continue
                last = g.board.copy()
                move = last.pop()
                out.append({
                    "tab": tab.id, "players": g.players(),
                    "you": "black" if g.engine_color == chess.WHITE else "white",
                    "last": move_name(last, last.san(move)),
                    "status": g.status(g.board),
                    "control": g.clock.control() if g.clock else None,
                    "clock": g.clock.snapshot() if g.clock else None,
                    "pages": len(tab.streams)})
        return out

    def broadcast(self, event, data):
        for tab in self.all():
            tab.send(event, data)

    def close(self):
        self._closed.set()
        for tab in self.all():
            if tab.annotating:
                tab.annotating["cancel"].set()
            for s in list(tab.streams):
                s.close()

    # -- state -------------------------------------------------------------------------------
    def engine_state(self, tab):
        core = self.host.core
        return {"ready": self.host.ready.is_set() and core.searcher is not None,
                "compiling": not self.host.ready.is_set(),
                "error": core.load_error,
                "thinking": bool(tab.job_key and tab.job_key[0] == PLAY),
                "analysing": bool(tab.job_key and tab.job_key[0] == ANALYSE),
                "note": tab.engine_note}

    def state(self, tab):
        """The tab's game as the page draws it, with its analysis, annotation and engine."""
        with tab.lock:
            tab.seq += 1
            s = tab.game.state()
            s["tab"] = tab.id
            s["seq"] = tab.seq          # newer states have larger numbers: the page drops older
            s["analysis"] = dict(tab.analysis)
            s["engine"] = self.engine_state(tab)
            s["annotation"] = annotating.for_moves(tab.annotation, s["moves"])
            a = tab.annotating
            s["annotating"] = None if a is None else {"done": a["done"], "total": a["total"]}
            return s

    def _changed(self, tab):
        """After any change: the engine's work for the tab, then the new state to its pages
        (engine lines not yet sent are dropped: they may be of what was shown before)."""
        for s in list(tab.streams):
            s.drop_info()
        self._engine_turn(tab)
        tab.send("state", self.state(tab))

    # -- actions -----------------------------------------------------------------------------
    def new_game(self, tab, params):
        """A new game: params mode ("play" or "analysis"), color ("white", "black" or
        "random": the person's), elo (None: full strength), style, rating (the person's, for
        the Hustler; None: unknown), base_s and inc_s (no
        base_s: no clocks), movetime_ms (the engine's time a move without clocks), fen, or
        chess960 (a random Chess960 start), or from_here (the game so far, to the position
        shown; with to_end, the whole game: "analyse this game")."""
        mode = params.get("mode", PLAY_MODE)
        if mode not in (PLAY_MODE, ANALYSIS):
            raise GameError(f"mode must be play or analysis, got {mode!r}")
        with tab.lock:
            root, moves, headers = chess.Board(), [], {}
            if params.get("from_here"):
                end = None if params.get("to_end") else tab.game.cursor
                root, moves = tab.game.root, tab.game.moves[:end]
                if mode == PLAY_MODE:
                    headers = {}          # the board names the players of a game it plays
                elif tab.game.mode == ANALYSIS:
                    headers = tab.game.headers
                else:                     # a game played, analysed: its players and result
                    headers = {k: v for k, v in tab.game.pgn_game().headers.items()
                               if k not in ("FEN", "SetUp")}
            elif params.get("fen") is not None:
                if not isinstance(params["fen"], str):
                    raise GameError("fen must be text")
                if not params["fen"].strip():
                    raise GameError("the FEN box is empty: paste a FEN into it, or start from "
                                    "the standard position")
                root = board_of_fen(params["fen"], bool(params.get("chess960")))
            elif params.get("chess960"):
                root = chess960_board()
            engine_color = elo = style = clock = None
            movetime = None
            if mode == PLAY_MODE:
                color = params.get("color", "white")
                if color == "random":
                    color = secrets.choice(("white", "black"))
                if color not in COLORS:
                    raise GameError(f"color must be white, black or random, got {color!r}")
                engine_color = not COLORS[color]
                if params.get("elo") is not None:
                    o = OPTION_BY_KEY["uci_elo"]
                    elo = _number(params, "elo", o.min, o.max)
                    elo = None if elo >= o.max else elo       # the top is full strength
                style = params.get("style")
                if style is not None:
                    opt = style_option()
                    if opt is None or style not in opt.var:
                        raise GameError(f"no such style {style!r}")
                    if style == opt.default:
                        style = None              # the engine's own play: no label
                if params.get("base_s") is not None:
                    clock = new_clock(_number(params, "base_s", *BASE_S, kind=float),
                                      _number(params, "inc_s", 0, INC_S_MAX, 0, kind=float))
                movetime = _number(params, "movetime_ms", *MOVETIME_MS)
            game = Game(root, moves, mode, engine_color, elo, style, clock, movetime, headers,
                        ENGINE_NAME)
            if mode == PLAY_MODE and params.get("rating") is not None:
                game.person_rating = _number(params, "rating", *RATING)
            if mode == PLAY_MODE and game.over():
                raise GameError(f"the game is over in that position ({game.reason})")
            self._replace(tab, game)
            return self.state(tab)

    def _replace(self, tab, game):
        if tab.annotating:
            tab.annotating["cancel"].set()
        tab.game = game
        tab.lines = {}
        tab.annotation = None           # an annotation belongs to the game it was made of
        if game.mode == PLAY_MODE:
            tab.analysis["on"] = False
        self._changed(tab)

    def load(self, tab, text, chess960=False):
        """A pasted or uploaded FEN or PGN, for analysis (GameError: the game stays)."""
        root, moves, headers = parse_game_text(text, bool(chess960))
        with tab.lock:
            self._replace(tab, Game(root, moves, ANALYSIS, headers=headers,
                                    engine_name=ENGINE_NAME))
            return self.state(tab)

    def _act(self, tab, action):
        with tab.lock:
            before = tab.game.generation
            try:
                action(tab.game)
            except GameError:
                if tab.game.generation != before:     # refused, but the game changed
                    self._changed(tab)                # (a flag fell): the pages hear it
                raise
            tab.lines = {}
            self._changed(tab)
            return self.state(tab)

    def move(self, tab, origin, target, promotion=None):
        return self._act(tab, lambda g: g.move(origin, target, promotion))

    def line(self, tab, ucis):
        if not isinstance(ucis, list) or not all(isinstance(u, str) for u in ucis):
            raise GameError("moves must be a list of UCI texts")
        return self._act(tab, lambda g: g.play_line(ucis))

    def goto(self, tab, ply):
        return self._act(tab, lambda g: g.goto(ply))

    def takeback(self, tab):
        return self._act(tab, lambda g: g.takeback())

    def resign(self, tab):
        return self._act(tab, lambda g: g.resign())

    def abort(self, tab):
        return self._act(tab, lambda g: g.abort())

    def set_analysis(self, tab, params):
        """Analysis on or off, its number of lines (1..MULTIPV_MAX) and wdl."""
        with tab.lock:
            if params.get("on") and tab.game.mode != ANALYSIS:
                raise GameError("analysis is for analysis mode: play from here ends a game")
            a = dict(tab.analysis)
            if "on" in params:
                a["on"] = bool(params["on"])
            a["multipv"] = _number(params, "multipv", 1, MULTIPV_MAX, a["multipv"])
            if "wdl" in params:
                a["wdl"] = bool(params["wdl"])
            tab.analysis = a
            tab.lines = {}
            self._changed(tab)
            return self.state(tab)

    def annotate(self, tab, params):
        """Annotate the tab's game in the background (progress and result as events)."""
        nodes = _number(params, "nodes", *ANNOTATE_NODES)
        with tab.lock:
            if tab.annotating:
                raise GameError("the game is being annotated already")
            game = tab.game
            if not game.moves:
                raise GameError("no moves to annotate")
            cancel = threading.Event()
            tab.annotating = {"done": 0, "total": len(game.moves) + 1, "cancel": cancel}
            job = (game.root.copy(), game.moves, dict(game.headers))
            tab.send("state", self.state(tab))
        threading.Thread(target=self._annotate, args=(tab, job, nodes, cancel), daemon=True,
                         name="black_numba gui annotate").start()
        return self.state(tab)

    def _annotate(self, tab, job, nodes, cancel):
        def progress(done):
            with tab.lock:
                if tab.annotating and tab.annotating["cancel"] is cancel:
                    tab.annotating["done"] = done
                    tab.send("progress", {"done": done, "total": tab.annotating["total"]})

        result, error = None, None
        try:
            with self.host.annotating():
                result = annotating.run(self.host, *job, nodes, progress, cancel)
        except annotating.Cancelled:
            pass
        except Exception as e:            # reported to the page; the server goes on
            error = f"annotation failed: {type(e).__name__}: {e}"
        with tab.lock:
            if tab.annotating and tab.annotating["cancel"] is cancel:
                tab.annotating = None
                if result is not None:
                    tab.annotation = result
                if error:
                    tab.send("notice", {"text": error})
                self._changed(tab)

    def pgn(self, tab):
        with tab.lock:
            return annotating.pgn_text(tab.game, tab.annotation)

    # -- streams -------------------------------------------------------------------------------
    def open_stream(self, tab, page=None):
        """A page's event stream for the tab; `page` names the page (so that it can leave)."""
        stream = Stream()
        stream.page = page
        with tab.lock:
            if len(tab.streams) >= MAX_STREAMS:
                raise GameError(f"this game already has {MAX_STREAMS} pages open")
            tab.streams.append(stream)
            stream.put("state", self.state(tab))
            self._engine_turn(tab)
        return stream

    def close_stream(self, tab, stream):
        """A page gone: with no page left, its analysis stops (its game and clocks go on)."""
        stream.close()
        with tab.lock:
            if stream in tab.streams:
                tab.streams.remove(stream)
            self._engine_turn(tab)

    def leave(self, tab, page):
        """A page has gone on to another game: its stream of this tab ends now, not when a
        write to it first fails (the list of games going on stops counting it at once)."""
        if not isinstance(page, str) or not page:
            raise GameError("page must name the page")
        for stream in [s for s in tab.streams if getattr(s, "page", None) == page]:
            self.close_stream(tab, stream)
        return self.state(tab)

    # -- the engine's work for a tab ------------------------------------------------------------
    def _engine_turn(self, tab):
        """Ask the engine for what the tab needs now (once): its move in a game going on, the
        analysis of the position shown while a page is open, or nothing."""
        g = tab.game
        want = None
        if g.engine_to_move():
            want = (PLAY, g.serial, g.generation)
        elif g.mode == ANALYSIS and tab.analysis["on"] and tab.streams and \
                not g.shown().is_game_over():
            want = (ANALYSE, g.tag(), tab.analysis["multipv"], tab.analysis["wdl"])
        if want == tab.job_key:
            return
        tab.job_key = want
        tab.engine_note = None
        if want is None:
            self.host.cancel(tab.id)
        elif want[0] == PLAY:
            self.host.submit(self._play_job(tab))
        else:
            self.host.submit(self._analysis_job(tab))

    @staticmethod
    def _position(game, board):
        chess960 = game.root.chess960
        replay, moves = game.root.copy(), []
        for m in board.move_stack:
            moves.append(replay.uci(m, chess960=chess960))
            replay.push(m)
        return game.root.fen(), moves, chess960

    def _options(self, game, multipv=1, analyse=False, show_wdl=False):
        o = {"UCI_LimitStrength": game.elo is not None, "MultiPV": multipv,
             "UCI_AnalyseMode": analyse, "UCI_ShowWDL": show_wdl}
        if game.elo is not None:
            o["UCI_Elo"] = game.elo
        style = style_option()
        if style is not None:
            o[style.name] = game.style if game.style is not None else style.default
        if not analyse:
            # the opponent as lichess-bot names one (UCI_Opponent): a person, rated if said
            rating = game.person_rating if game.person_rating is not None else "none"
            o["UCI_Opponent"] = f"none {rating} human Player"
        return o

    def _notify(self, tab, key):
        def notify(kind):
            with tab.lock:
                if tab.job_key == key:
                    tab.engine_note = None if kind == "resumed" else kind
                    tab.send("engine", self.engine_state(tab))
        return notify

    def _play_job(self, tab):
        g, key = tab.game, tab.job_key
        generation, clock, movetime = g.generation, g.clock, g.movetime_ms

        def limits():
            if clock is None:
                return Limits(movetime=movetime)
            return Limits(wtime=int(clock.remaining(chess.WHITE)),
                          btime=int(clock.remaining(chess.BLACK)),
                          winc=clock.inc_ms, binc=clock.inc_ms)

        def done(result):
            with tab.lock:
                if tab.job_key == key:
                    tab.job_key = None
                if result.best is not None and tab.game is g and \
                        tab.game.engine_move(result.best, generation):
                    tab.lines = {}
                    tab.send("moved", {"by": "engine"})
                self._changed(tab)

        def error(text):
            with tab.lock:
                if tab.job_key == key:
                    tab.job_key = None
                tab.send("notice", {"text": f"engine: {text}"})

        return Job(tab.id, PLAY, self._position(g, g.board), self._options(g), limits,
                   lambda info: None, done, self._notify(tab, key), error)

    def _analysis_job(self, tab):
        g, key = tab.game, tab.job_key
        board = g.shown()
        tag, multipv, show_wdl = g.tag(), tab.analysis["multipv"], tab.analysis["wdl"]
        lines = {}

        def on_info(info):
            if info.bound and lines:
                return            # a failed aspiration window: the exact line comes next
            lines[info.multipv or 1] = line_of(board, info, show_wdl)
            payload = {"tag": tag, "fen": board.fen(),
                       "lines": [lines[k] for k in sorted(lines)][:multipv]}
            with tab.lock:
                if tab.job_key == key:
                    tab.lines = lines
                    for s in list(tab.streams):
                        s.put_info(payload)

        def error(text):
            with tab.lock:
                tab.send("notice", {"text": f"engine: {text}"})

        return Job(tab.id, ANALYSE, self._position(g, board),
                   self._options(g, multipv, True, show_wdl), lambda: Limits(infinite=True),
                   on_info, lambda result: None, self._notify(tab, key), error)

    # -- time ------------------------------------------------------------------------------------
    def _tick(self):
        """End games whose flag has fallen (with or without a page open) and send running
        clocks every CLOCK_EVENT_S."""
        sent = {}
        while not self._closed.wait(CLOCK_TICK_S):
            now = time.monotonic()
            for tab in self.all():
                try:
                    with tab.lock:                  # the game may be replaced meanwhile
                        clock = tab.game.clock
                        if clock is None or clock.running is None:
                            continue
                        if tab.game.check_flag():
                            self._changed(tab)
                        elif now - sent.get(tab.id, 0) >= CLOCK_EVENT_S:
                            sent[tab.id] = now
                            tab.send("clock", clock.snapshot())
                except Exception as e:              # one tab's trouble never stops the clocks
                    print(f"black_numba gui clocks: {type(e).__name__}: {e}", file=sys.stderr)

    def _announce_ready(self):
        """Tell the pages when the engine has loaded (the compile notice goes)."""
        while not self.host.ready.wait(0.5):
            if self._closed.is_set():
                return
        for tab in self.all():
            with tab.lock:
                tab.send("engine", self.engine_state(tab))


def line_of(board, info, show_wdl):
    """An engine report (engine.Info) as the page shows a line: White's score (cp or mate),
    its winning chances on lichess's scale, wdl on request, the line in SAN and UCI."""
    white = info.score if board.turn == chess.WHITE else -info.score
    kind, n = score_parts(white)
    win = (1.0 if n > 0 else -1.0) if kind == "mate" else winning_chances(n)
    if kind == "mate" and n == 0:
        win = -1.0 if board.turn == chess.WHITE else 1.0
    san, b = [], board.copy(stack=False)
    for text in info.pv[:PV_SAN_PLIES]:
        try:
            m = b.parse_uci(text)
        except ValueError:
            break
        if not b.is_legal(m):
            break
        san.append(b.san(m))
        b.push(m)
    out = {"multipv": info.multipv or 1, "depth": info.depth, "seldepth": info.seldepth,
           "score": {kind: n}, "win": round(win, 4), "nodes": info.nodes, "nps": info.nps,
           "tbhits": info.tbhits, "time_ms": info.time_ms, "pv": info.pv[:len(san)],
           "san": san, "bound": info.bound or None}
    if show_wdl:
        out["wdl"] = list(wdl(white))
    return out
