"""`black-numba match`: two UCI engines play game pairs as Dask tasks; Elo, pentanomial SPRT.
With --build and --opponent instead of the two engines, a gauntlet (gauntlet.py).

    black-numba match ENGINE_A ENGINE_B [--name-a A] [--name-b B] [--option-a NAME=VALUE]
        [--option-b NAME=VALUE] [--option NAME=VALUE] [--games 100 | --rounds PAIRS]
        [--openings FILE.epd|.pgn] [--seed 1] [--chess960]
        [--tc 10+0.1 | --movetime MS] [--nodes N] [--depth D]
        [--tc-a 10+0.1 | --movetime-a MS] [--nodes-a N] [--depth-a D] (and -b: uneven)
        [--sprt ELO0 ELO1] [--elo-model logistic|normalized]
        [--concurrency 1 | --scheduler tcp://HOST:PORT] [--out DIR] [--pgn FILE] [--json FILE]

ENGINE_A and ENGINE_B are command lines (split as a shell would). Each opening (a line of
an EPD/FEN file, or the end of a PGN game's main line, shuffled by --seed; by default the
start position, with --chess960 a random one of the 960) is a game pair: ENGINE_A plays
White, then Black. A pair is one Dask task (matchgame.play_pair): on a local cluster of
--concurrency worker processes, or with --scheduler on the workers of a cluster started
with ``dask scheduler`` and ``dask worker`` (the engine commands must then work on every
worker). Pairs are taken in opening order whatever the workers: the tally, the SPRT's stop,
the PGN and the log are the same with 1 or 16 workers, and at fixed nodes with Threads 1
so are the games. Pairs still in flight when the SPRT decides are thrown away.

Limits apply to both engines, or to one: --tc-a, --movetime-a, --nodes-a and --depth-a (and
-b) replace the shared flag of their kind for that engine (its own --tc-a or --movetime-a
replaces both shared time limits), so that a node-limited engine can play one on a clock,
or two clocks differ; an engine left with no limit at all plays at the default clock. Each
side's `go` carries its own limits and the clocks that run (matchgame.py). The PGN's
TimeControl tag says the clock both play on, WhiteTimeControl and BlackTimeControl each
side's where they differ ("-": none), and WhiteLimits and BlackLimits each side's limits in
words ("500 nodes a move") where the engines' limits differ in any way.

Figures are the first engine's. Elo is logistic, its 95% interval from the pentanomial
variance (the pair is the independent sample); LOS from wins and losses; the SPRT is the
generalised SPRT of fishtest on the pentanomial counts, alpha = beta = 0.05, with bounds in
logistic Elo (default) or normalised Elo (--elo-model normalized, fishtest's default). The
end adds each engine's style report (style.py: short wins, sacrifices, bad draws).

The log (match.log), the games (games.pgn) and the summary (summary.json) are written into
--out, by default ``$BLACK_NUMBA_MATCHES/<time>_<A>_vs_<B>`` with ``$BLACK_NUMBA_MATCHES``
defaulting to ``~/.local/share/black_numba/matches``: outside the repository.
"""
import json
import os
import random
import re
import shlex
import signal
import sys
import time
import uuid

from black_numba.cluster import (close as cluster_close, connect as cluster_connect,
                                 result as task_result)
from black_numba.arena import matchstats, style

MATCHES_ENV = "BLACK_NUMBA_MATCHES"
DEFAULT_TC = "10+0.1"
DEFAULT_GAMES = 100
DEFAULT_MARGIN_MS = 100       # clock grace before a time loss (process and pipe latency)
DEFAULT_HANG_S = 60.0         # at fixed nodes or depth: a move that takes longer is a hang
DEFAULT_STARTUP_S = 120.0     # uciok and readyok (a cold compile cache takes about a minute)
DEFAULT_RESIGN = (1000, 8)    # win adjudication: both engines beyond 10 pawns for 8 plies
DEFAULT_MAX_PLIES = 500
TASKS_AHEAD = 2               # pairs submitted ahead, per worker thread
RANDOM_TRIES = 100            # --random-plies: draws before an opening that ends the game


class MatchError(RuntimeError):
    """A match that cannot go on (bad openings, engines that cannot start, a lost cluster)."""


def default_dir(name_a, name_b):
    """$BLACK_NUMBA_MATCHES (else $XDG_DATA_HOME or ~/.local/share, then black_numba/matches)
    / <UTC time>_<A>_vs_<B>."""
    base = os.environ.get(MATCHES_ENV) or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"),
        "black_numba", "matches")
    safe = [re.sub(r"[^A-Za-z0-9._-]+", "-", n) for n in (name_a, name_b)]
    return os.path.join(base, time.strftime("%Y%m%d-%H%M%S", time.gmtime())
                        + f"_{safe[0]}_vs_{safe[1]}")


# -- conditions -------------------------------------------------------------------------

def parse_tc(text, flag="--tc"):
    """'10+0.1' or '10' -> (base s, increment s)."""
    base, _, inc = text.partition("+")
    try:
        tc = float(base), float(inc or 0)
    except ValueError:
        raise ValueError(f"{flag} {text!r} is not BASE+INCREMENT in seconds (e.g. 10+0.1)") \
            from None
    if not (0 < tc[0] < float("inf") and 0 <= tc[1] < float("inf")):
        raise ValueError(f"{flag} {text!r}: the base must be above 0, the increment not below")
    return tc


def format_tc(tc):
    """(base, increment) -> '10+0.1' (None: '-', no clock, as PGN writes it)."""
    return "-" if tc is None else f"{tc[0]:g}+{tc[1]:g}"


def parse_option(text):
    """'Name=Value' -> (name, value); a name may hold spaces ('Move Overhead=50')."""
    name, eq, value = text.partition("=")
    if not eq or not name.strip():
        raise ValueError(f"option {text!r} is not NAME=VALUE")
    return name.strip(), value.strip()


def engine_spec(command, name, options):
    """An engine as the tasks get it; a relative program path that exists here is made
    absolute (the workers of a local cluster may start elsewhere)."""
    argv = shlex.split(command)
    if not argv:
        raise ValueError("an engine command is empty")
    if os.sep in argv[0] and not os.path.isabs(argv[0]) and os.path.exists(argv[0]):
        argv[0] = os.path.abspath(argv[0])
        command = shlex.join(argv)
    return {"cmd": command, "name": name or os.path.basename(argv[0]),
            "options": [list(parse_option(o)) for o in options]}


def load_openings(path, chess960=False):
    """[(root FEN, [UCI moves])] from an EPD/FEN file (one position a line; '#' comments)
    or a PGN file (each game's main line); ValueError naming the line of a bad one."""
    import chess
    from black_numba.board.pgn import PgnError, read_game
    out = []
    if path.lower().endswith(".pgn"):
        with open(path, encoding="utf-8-sig") as f:
            while True:
                try:
                    game = read_game(f)
                except PgnError as e:
                    raise ValueError(f"{path}: game {len(out) + 1}: {e}") from None
                if game is None:
                    break
                board = game.board()
                if board.chess960 and not chess960:
                    raise ValueError(f"{path}: game {len(out) + 1} is a Chess960 game: "
                                     f"add --chess960")
                board.chess960 = chess960
                root = board.fen()
                moves = []
                for move in game.mainline_moves():
                    moves.append(board.uci(move))
                    board.push(move)
                out.append((root, moves, board))
    else:
        with open(path, encoding="utf-8-sig") as f:
            for no, line in enumerate(f, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                fields = line.split(";")[0].split()
                try:
                    if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
                        board = chess.Board(" ".join(fields[:6]), chess960=chess960)
                    else:
                        board = chess.Board(" ".join(fields[:4]) + " 0 1", chess960=chess960)
                except ValueError as e:
                    raise ValueError(f"{path}:{no}: not a position: {e}") from None
                out.append((board.fen(), [], board))
    for k, (_, _, board) in enumerate(out):
        if not board.is_valid() or board.is_game_over():
            raise ValueError(f"{path}: opening {k + 1} is not a playable position "
                             f"({board.fen()})")
    if not out:
        raise ValueError(f"{path}: no openings")
    return [(fen, moves) for fen, moves, _ in out]


def openings_for(args, pairs):
    """The openings in the order the pairs take them: the file's (or the 960 start
    positions, or the start position) shuffled by --seed, pair k taking number k (cycling);
    with --random-plies N, one opening a pair, that one followed by N random legal plies
    seeded by (seed, k) alone."""
    import chess
    if args.openings:
        openings = load_openings(args.openings, args.chess960)
    elif args.chess960:
        openings = [(chess.Board.from_chess960_pos(n).fen(), []) for n in range(960)]
    else:
        openings = [(chess.STARTING_FEN, [])]
    random.Random(args.seed).shuffle(openings)
    if not args.random_plies:
        return openings
    out = []
    for k in range(pairs):
        fen, moves = openings[k % len(openings)]
        rng = random.Random(f"{args.seed}-{k}")
        for _ in range(RANDOM_TRIES):
            board = chess.Board(fen, chess960=args.chess960)
            for text in moves:
                board.push_uci(text)
            extra = []
            for _ in range(args.random_plies):
                move = rng.choice(sorted(board.legal_moves, key=board.uci))
                extra.append(board.uci(move))
                board.push(move)
                if board.is_game_over(claim_draw=True):
                    break
            if not board.is_game_over(claim_draw=True):
                out.append((fen, moves + extra))
                break
        else:
            raise ValueError(f"no playable opening of {args.random_plies} random plies "
                             f"after opening {k % len(openings) + 1}")
    return out


def conditions(args):
    """The plain-data configuration every task gets (pickled to the workers)."""
    names = [args.name_a, args.name_b]
    engines = [engine_spec(cmd, name, args.option + extra) for cmd, name, extra in
               ((args.engine_a, names[0], args.option_a), (args.engine_b, names[1],
                                                           args.option_b))]
    if engines[0]["name"] == engines[1]["name"]:
        engines[0]["name"] += "-a"
        engines[1]["name"] += "-b"
    return {"engines": engines, **settings(args)}


def settings(args):
    """Everything of the configuration but the engines: limits, adjudication, time-outs
    (the gauntlet's tasks share them)."""
    for flag, value in [("--concurrency", args.concurrency), ("--max-plies", args.max_plies)] \
            + [(f"--{kind}{side}".replace("_", "-"), getattr(args, kind + side))
               for kind in ("movetime", "nodes", "depth") for side in ("", "_a", "_b")]:
        if value is not None and value < 1:
            raise ValueError(f"{flag} must be at least 1, not {value}")
    if args.tc:
        parse_tc(args.tc)                   # a bad --tc is an error even where both replace it
    resign = None if args.resign is None or args.resign[1] <= 0 else tuple(args.resign)
    draw = None if args.draw is None else tuple(args.draw)
    return {"limits": [engine_limits(args, "a"), engine_limits(args, "b")],
            "margin_ms": args.margin, "hang_s": args.hang_timeout,
            "startup_s": args.startup_timeout, "resign": resign, "draw": draw,
            "max_plies": args.max_plies, "chess960": args.chess960}


def engine_limits(args, side):
    """One engine's limits {tc, movetime, nodes, depth}: its own flags (--tc-a, --movetime-a,
    --nodes-a, --depth-a for side 'a') where given, else the shared ones; its own --tc-X or
    --movetime-X replaces both shared time limits. An engine with no limit at all gets the
    default clock."""
    own_tc, own_movetime = getattr(args, f"tc_{side}"), getattr(args, f"movetime_{side}")
    if own_tc is not None or own_movetime is not None:
        tc = parse_tc(own_tc, f"--tc-{side}") if own_tc else None
        movetime = own_movetime
    else:
        tc, movetime = (parse_tc(args.tc) if args.tc else None), args.movetime
    limits = {"tc": tc, "movetime": movetime}
    for kind in ("nodes", "depth"):
        own = getattr(args, f"{kind}_{side}")
        limits[kind] = own if own is not None else getattr(args, kind)
    if all(v is None for v in limits.values()):
        limits["tc"] = parse_tc(DEFAULT_TC)
    return limits


def describe_one(limits):
    """One engine's limits in words: '10+0.1, 20000 nodes a move'."""
    parts = []
    if limits["tc"] is not None:
        parts.append(format_tc(limits["tc"]))
    if limits["movetime"] is not None:
        parts.append(f"{limits['movetime']} ms a move")
    if limits["nodes"] is not None:
        parts.append(f"{limits['nodes']} nodes a move")
    if limits["depth"] is not None:
        parts.append(f"depth {limits['depth']}")
    return ", ".join(parts)


def describe_limits(conf):
    """The match's limits in words: the same for both, or each engine's."""
    a, b = (describe_one(limits) for limits in conf["limits"])
    if a == b:
        return a
    names = [e["name"] for e in conf["engines"]]
    return f"uneven limits ({names[0]}: {a}; {names[1]}: {b})"


# -- output -----------------------------------------------------------------------------

def pgn_game(conf, opening, record, pair, event):
    """A played game as python-chess's Game (headers, the opening's moves, the engines'
    moves with Cute Chess style comments, the end's reason)."""
    import chess
    import chess.pgn
    board = chess.Board(opening[0], chess960=conf["chess960"])
    game = chess.pgn.Game()
    game.setup(board)
    white = conf["engines"][record["white"]]["name"]
    black = conf["engines"][1 - record["white"]]["name"]
    game.headers.update(Event=event, Site="?", Date=time.strftime("%Y.%m.%d"),
                        Round=f"{pair + 1}.{record['white'] + 1}", White=white, Black=black,
                        Result=record["result"], Termination=record["termination"])
    sides = [conf["limits"][i] for i in (record["white"], 1 - record["white"])]
    clocks = [format_tc(limits["tc"]) for limits in sides]
    if clocks[0] != clocks[1]:                  # uneven clocks: each side's
        game.headers["WhiteTimeControl"], game.headers["BlackTimeControl"] = clocks
    elif clocks[0] != "-":
        game.headers["TimeControl"] = clocks[0]
    if sides[0] != sides[1]:                    # uneven limits of any kind: each side's
        game.headers["WhiteLimits"], game.headers["BlackLimits"] = map(describe_one, sides)
    node = game
    for text in opening[1]:
        node = node.add_variation(node.board().parse_uci(text))
    for text, note in zip(record["moves"], record["comments"]):
        node = node.add_variation(node.board().parse_uci(text), comment=note)
    if node is game:
        game.comment = record["reason"]
    else:
        node.comment = f"{node.comment}, {record['reason']}" if node.comment else \
            record["reason"]
    game.headers["PlyCount"] = str(len(opening[1]) + len(record["moves"]))
    return game


class Report:
    """The tally, the SPRT and the faults of a running match; the progress lines and the
    final summary, on stdout and in the log."""

    def __init__(self, args, conf, log):
        from black_numba.arena.matchgame import FAULTS
        self.conf, self.log = conf, log
        self.names = [e["name"] for e in conf["engines"]]
        self.score = matchstats.Score()
        self.faults = {name: dict.fromkeys(FAULTS, 0) for name in self.names}
        self.sprt = tuple(args.sprt) if args.sprt else None
        self.model = args.elo_model
        self.bounds = matchstats.sprt_bounds()
        self.verdict = None
        self.games = []                      # one small record a game, in order
        self.style = []                      # (style.Line, style.facts) a game, in order

    def say(self, line):
        print(line, flush=True)
        self.log.write(line + "\n")
        self.log.flush()

    def add(self, res, total_pairs, opening):
        pair = res["index"]
        self.score.add_pair([g["points"] for g in res["games"]])
        for g in res["games"]:
            for i, kind in g["faults"]:
                self.faults[self.names[i]][kind] += 1
            line = style.match_line(self.names[g["white"]], self.names[1 - g["white"]],
                                    g["result"], opening, g["moves"], g["comments"],
                                    self.conf["chess960"])
            self.style.append((line, style.facts(line)))
            self.games.append({"pair": pair, "white": self.names[g["white"]],
                               "black": self.names[1 - g["white"]], "result": g["result"],
                               "termination": g["termination"], "reason": g["reason"],
                               "plies": len(g["moves"]), "moves": g["moves"]})
        s = self.score
        e, lo, hi = matchstats.elo_interval(s.penta)
        got = sum(g["points"] for g in res["games"])
        line = (f"pair {s.pairs}/{total_pairs}: {res['games'][0]['result']} "
                f"{res['games'][1]['result']} ({self.names[0]} {got:g}/2) | "
                f"{self.names[0]} +{s.wins} ={s.draws} "
                f"-{s.losses} {100 * s.score():.1f}% Elo {e:+.1f} ({lo:+.1f} .. {hi:+.1f})")
        if self.sprt:
            llr = s.llr(*self.sprt, self.model)
            line += f" LLR {llr:+.2f} ({self.bounds[0]:+.2f} .. {self.bounds[1]:+.2f})"
            state = matchstats.sprt_state(llr, self.bounds)
            if state and self.verdict is None:
                self.verdict = state
        faults = [f"{self.names[i]} {kind}" for g in res["games"] for i, kind in g["faults"]]
        if faults:
            line += " [" + ", ".join(faults) + "]"
        self.say(line)

    def style_reports(self):
        """Each engine's style report ({name: report}), the match's games the pool."""
        pool = [f["length"] for _, f in self.style if f["result"] != "1/2-1/2"]
        return {name: style.report_from(self.style, name, pool) for name in self.names}

    def summary(self):
        s = self.score
        out = s.summary()
        out["names"] = self.names
        out["faults"] = self.faults
        out["style"] = self.style_reports()
        if self.sprt:
            llr = s.llr(*self.sprt, self.model)
            out["sprt"] = {"elo0": self.sprt[0], "elo1": self.sprt[1], "model": self.model,
                           "alpha": matchstats.ALPHA, "beta": matchstats.BETA,
                           "llr": llr, "bounds": list(self.bounds),
                           "verdict": self.verdict}
        return out

    def final_lines(self):
        out = self.summary()
        a, b = self.names
        lines = [f"Score of {a} vs {b}: {out['wins']} - {out['losses']} - {out['draws']} "
                 f"(W-L-D) {100 * out['score']:.1f}% over {out['games']} games, "
                 f"{out['pairs']} pairs"]
        if out["games"]:
            lo, hi = out["elo_95"]
            tlo, thi = out["elo_trinomial_95"]
            lines.append(f"Elo {out['elo']:+.1f} (95%: {lo:+.1f} .. {hi:+.1f} from pairs; "
                         f"{tlo:+.1f} .. {thi:+.1f} from games), LOS {100 * out['los']:.1f}%")
            if out["nelo"] is not None:
                nlo, nhi = out["nelo_95"]
                lines.append(f"Normalised Elo {out['nelo']:+.1f} ({nlo:+.1f} .. {nhi:+.1f})")
            lines.append("Pentanomial [LL, LD, WL+DD, WD, WW]: "
                         + str(list(out["pentanomial"].values())))
        if "sprt" in out:
            sp = out["sprt"]
            verdict = {"H0": f"H0 accepted (Elo <= {sp['elo0']:g})",
                       "H1": f"H1 accepted (Elo >= {sp['elo1']:g})",
                       None: "no verdict"}[sp["verdict"]]
            lines.append(f"SPRT {sp['elo0']:g} .. {sp['elo1']:g} ({sp['model']} Elo, alpha = "
                         f"beta = {sp['alpha']:g}): LLR {sp['llr']:+.2f} ({sp['bounds'][0]:+.2f}"
                         f" .. {sp['bounds'][1]:+.2f}), {verdict} after {out['games']} games")
        if out["games"]:
            for name in self.names:
                lines += style.report_lines(out["style"][name])
        lines.append("Faults: " + "; ".join(
            f"{name}: " + ", ".join(f"{kind} {n}" for kind, n in kinds.items())
            for name, kinds in self.faults.items()))
        return lines


# -- the cluster ------------------------------------------------------------------------

def play_pairs(client, count, task, take, stop, prefix="match"):
    """Game pairs 0..count-1 as tasks (task(k): play_pair's arguments (index, opening, conf)),
    handed to take(result) in order until stop() says enough; results that arrive early wait.
    A pair lost with its worker runs again."""
    from black_numba.arena.matchgame import play_pair
    threads = max(1, sum(client.nthreads().values()))
    window = max(2, TASKS_AHEAD * threads)
    run = uuid.uuid4().hex[:8]
    pending = {}

    def submit(k):
        return client.submit(play_pair, *task(k), pure=False,
                             key=f"{prefix}-{run}-p{k}-{uuid.uuid4().hex[:8]}")

    nxt = 0
    try:
        for k in range(count):
            if stop():
                return
            while len(pending) < window and nxt < count:
                pending[nxt] = submit(nxt)
                nxt += 1
            def resubmit(k=k):
                pending[k] = submit(k)
                return pending[k]
            res = task_result(pending[k], resubmit, f"pair {k + 1}", MatchError, "match")
            del pending[k]
            take(res)
    finally:
        client.cancel(list(pending.values()))


def failure(e):
    """(exit code, message) of an exception that ended a match: 2 where the engines cannot
    play as configured, else 1."""
    from black_numba.arena.matchgame import MatchConfigError
    from black_numba.arena.uciclient import EngineCrash, EngineHang
    if isinstance(e, (MatchConfigError, EngineCrash, EngineHang)):
        return 2, f"the engines cannot play: {e}"
    if isinstance(e, (MatchError, OSError, TimeoutError)):
        return 1, str(e)
    return 1, f"a task failed: {type(e).__name__}: {e}"   # a task's own, raised again by Dask


# -- the command ------------------------------------------------------------------------

def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _stop_on_signals():
    """SIGTERM (and SIGINT) end a match as Ctrl-C does: the pairs finished so far are
    summed up and written."""
    import threading
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, _interrupt)


def run(args):
    from black_numba.arena.matchgame import MatchConfigError, close_engines, probe
    if any(getattr(args, k, None) for k in ("report", "build", "opponent")):
        from black_numba.arena import gauntlet
        return gauntlet.report(args) if args.report else gauntlet.run(args)
    if not (args.engine_a and args.engine_b):
        print("match: give ENGINE_A and ENGINE_B, or a gauntlet's --build and --opponent",
              file=sys.stderr)
        return 2
    try:
        conf = conditions(args)
        pairs = args.rounds if args.rounds is not None else (args.games + 1) // 2
        if pairs < 1:
            raise ValueError("--games and --rounds must be at least 1")
        if args.random_plies is not None and args.random_plies < 0:
            raise ValueError("--random-plies must be at least 0")
        openings = openings_for(args, pairs)
    except (OSError, ValueError) as e:
        name = f"{e.filename}: " if isinstance(e, OSError) and e.filename else ""
        print(f"match: {name}{e.strerror if isinstance(e, OSError) and e.strerror else e}",
              file=sys.stderr)
        return 2
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("match: needs Dask's scheduler: pip install 'dask[distributed]'", file=sys.stderr)
        return 2
    names = [e["name"] for e in conf["engines"]]
    out = args.out or default_dir(*names)
    os.makedirs(out, exist_ok=True)
    pgn_path = args.pgn or os.path.join(out, "games.pgn")
    json_path = args.json or os.path.join(out, "summary.json")
    where = args.scheduler or f"a local cluster of {args.concurrency} worker" + \
        ("s" if args.concurrency > 1 else "")
    source = args.openings or ("the 960 Chess960 start positions" if args.chess960
                               else "the start position")
    if args.random_plies:
        source += f" and {args.random_plies} random plies"
    rc, error = 0, None
    client = cluster = None
    with open(os.path.join(out, "match.log"), "w") as log, open(pgn_path, "w") as pgn:
        report = Report(args, conf, log)
        report.say(f"match: {names[0]} ({conf['engines'][0]['cmd']}) vs {names[1]} "
                   f"({conf['engines'][1]['cmd']}), {2 * pairs} games at "
                   f"{describe_limits(conf)}, openings {source} ({len(openings)}, seed "
                   f"{args.seed}), on {where}; files in {out}")
        if pairs > len(openings) and all(limits["tc"] is None and limits["movetime"] is None
                                         for limits in conf["limits"]):
            report.say(f"note: {pairs} pairs from {len(openings)} openings: at a fixed search "
                       f"a replayed opening replays its games (--random-plies gives every "
                       f"pair its own)")
        if report.sprt:
            report.say(f"SPRT {report.sprt[0]:g} .. {report.sprt[1]:g} in {args.elo_model} "
                       f"Elo, alpha = beta = {matchstats.ALPHA:g}, on game pairs")

        def take(res):
            k = res["index"]
            opening = openings[k % len(openings)]
            for record in res["games"]:
                print(pgn_game(conf, opening, record, k, args.event), file=pgn, end="\n\n")
            pgn.flush()
            report.add(res, pairs, opening)

        t0 = time.time()
        _stop_on_signals()
        try:
            client, cluster = cluster_connect(args.scheduler, args.concurrency)
            ids = client.submit(probe, conf, pure=False).result()
            if "error" in ids:
                raise MatchConfigError(ids["error"])
            ids = ids["names"]
            report.say(f"engines: {names[0]} is {ids[0]!r}, {names[1]} is {ids[1]!r}")
            play_pairs(client, pairs, lambda k: (k, openings[k % len(openings)], conf), take,
                       lambda: report.verdict is not None)
        except KeyboardInterrupt:
            report.say("match: interrupted; the pairs finished so far are counted")
        except Exception as e:
            rc, error = failure(e)
        finally:
            # a cluster's workers outlive the match: they quit their engines now (a local
            # cluster's engines read end-of-file on stdin as its workers close, and quit)
            if client is not None and args.scheduler:
                try:
                    client.run(close_engines)
                except Exception:   # workers already gone
                    pass
            cluster_close(client, cluster)
        if error is not None:
            log.write(f"match: {error}\n")
            print(f"match: {error}", file=sys.stderr)
        if error is None or report.score.pairs:
            for line in report.final_lines():
                report.say(line)
            report.say(f"{time.time() - t0:.0f} s; games in {pgn_path}, summary in "
                       f"{json_path}")
    summary = report.summary()
    summary["error"] = error
    summary.update(conditions=conf, openings=args.openings, random_plies=args.random_plies,
                   seed=args.seed,
                   scheduler=args.scheduler, concurrency=None if args.scheduler else
                   args.concurrency, command=["black-numba"] + sys.argv[1:],
                   games_played=report.games)
    with open(json_path + ".tmp", "w") as f:
        json.dump(summary, f, indent=1)
    os.replace(json_path + ".tmp", json_path)
    return rc


def add_arguments(ap):
    ap.add_argument("engine_a", metavar="ENGINE_A", nargs="?",
                    help="the first engine's command line")
    ap.add_argument("engine_b", metavar="ENGINE_B", nargs="?",
                    help="the second engine's command line")
    ap.add_argument("--name-a", help="its name (default: the program's file name)")
    ap.add_argument("--name-b")
    ap.add_argument("--option-a", action="append", default=[], metavar="NAME=VALUE",
                    help="a UCI option of the first engine (repeat for more)")
    ap.add_argument("--option-b", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a UCI option of both engines (e.g. Threads=1, Hash=16)")
    count = ap.add_mutually_exclusive_group()
    count.add_argument("--games", type=int, default=DEFAULT_GAMES,
                       help=f"games in all, rounded up to whole pairs (default {DEFAULT_GAMES})")
    count.add_argument("--rounds", type=int, metavar="PAIRS",
                       help="game pairs (an opening with both colours each)")
    ap.add_argument("--openings", metavar="FILE",
                    help="EPD/FEN (a position a line) or PGN (each game's end) openings; "
                         "default the start position (with --chess960, the 960)")
    ap.add_argument("--seed", type=int, default=1, help="the order of the openings")
    ap.add_argument("--random-plies", type=int, metavar="N",
                    help="N uniformly random plies after each pair's opening, seeded by "
                         "(seed, pair): a new opening every pair without a book")
    ap.add_argument("--chess960", action="store_true",
                    help="Chess960 games (UCI_Chess960 on in both engines)")
    timing = ap.add_mutually_exclusive_group()
    timing.add_argument("--tc", help=f"BASE+INCREMENT seconds a game (default {DEFAULT_TC} "
                                     "when no other limit is given)")
    timing.add_argument("--movetime", type=int, metavar="MS", help="milliseconds a move")
    ap.add_argument("--nodes", type=int, help="nodes a move (with or without a clock)")
    ap.add_argument("--depth", type=int, help="depth a move")
    for side, which in (("a", "the first"), ("b", "the second")):
        own = ap.add_mutually_exclusive_group()
        own.add_argument(f"--tc-{side}", metavar="BASE+INC",
                         help=f"{which} engine's own clock (it replaces --tc and --movetime "
                              "for it: uneven conditions)")
        own.add_argument(f"--movetime-{side}", type=int, metavar="MS",
                         help=f"{which} engine's own milliseconds a move (replaces --tc and "
                              "--movetime for it)")
        ap.add_argument(f"--nodes-{side}", type=int, metavar="N",
                        help=f"{which} engine's own nodes a move (replaces --nodes for it)")
        ap.add_argument(f"--depth-{side}", type=int, metavar="D",
                        help=f"{which} engine's own depth a move (replaces --depth for it)")
    ap.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                    help="stop once the pentanomial GSPRT (alpha = beta = 0.05) accepts "
                         "H0: Elo = ELO0 or H1: Elo = ELO1; --games is then the most played")
    ap.add_argument("--elo-model", choices=("logistic", "normalized"), default="logistic",
                    help="the SPRT bounds' Elo (default logistic; normalized as fishtest)")
    ap.add_argument("--concurrency", type=int, default=1,
                    help="worker processes of the local cluster, a pair each at a time")
    ap.add_argument("--scheduler", metavar="ADDRESS",
                    help="a Dask scheduler (tcp://HOST:PORT) whose workers play the pairs "
                         "(the engine commands must work on every worker)")
    ap.add_argument("--out", metavar="DIR", help="folder of match.log, games.pgn and "
                    f"summary.json (default ${MATCHES_ENV} or ~/.local/share/black_numba/"
                    "matches, a new folder a match)")
    ap.add_argument("--pgn", metavar="FILE", help="the games (default DIR/games.pgn)")
    ap.add_argument("--json", metavar="FILE", help="the summary (default DIR/summary.json)")
    ap.add_argument("--event", default="black-numba match", help="the PGN Event tag")
    ap.add_argument("--resign", nargs=2, type=int, metavar=("CP", "PLIES"),
                    default=list(DEFAULT_RESIGN),
                    help="adjudicate a win once both engines' scores agree beyond CP for "
                         "PLIES plies in a row (default %(default)s; PLIES 0: never)")
    ap.add_argument("--draw", nargs=3, type=int, metavar=("AFTER", "PLIES", "CP"),
                    help="adjudicate a draw once both engines' scores stay within CP of 0 "
                         "for PLIES plies after ply AFTER (default: never)")
    ap.add_argument("--max-plies", type=int, default=DEFAULT_MAX_PLIES,
                    help="a game is drawn after this many plies (default %(default)s)")
    ap.add_argument("--margin", type=int, default=DEFAULT_MARGIN_MS, metavar="MS",
                    help="clock grace before a time loss (default %(default)s ms)")
    ap.add_argument("--hang-timeout", type=float, default=DEFAULT_HANG_S, metavar="S",
                    help="at fixed nodes or depth, seconds after which a move is a hang "
                         "(default %(default)s)")
    ap.add_argument("--startup-timeout", type=float, default=DEFAULT_STARTUP_S, metavar="S",
                    help="seconds for uciok and readyok (default %(default)s)")
    from black_numba.arena import gauntlet
    gauntlet.add_arguments(ap)
