"""What a match and a gauntlet share (match.py, gauntlet.py): engines and their limits,
openings, a played game's PGN, and the loop that plays game pairs as Dask tasks in order.
This module is below both; the command line that fills its dataclasses lives in
frontends/commands/match.py."""
import json
import lzma
import os
import random
import re
import shlex
import signal
import time
import uuid
from dataclasses import dataclass

from black_numba.cluster import result as task_result

MATCHES_ENV = "BLACK_NUMBA_MATCHES"
DEFAULT_TC = "10+0.1"
DEFAULT_MARGIN_MS = 100       # clock grace before a time loss (process and pipe latency)
DEFAULT_HANG_S = 60.0         # at fixed nodes or depth: a move that takes longer is a hang
DEFAULT_STARTUP_S = 120.0     # uciok and readyok (a cold compile cache takes about a minute)
DEFAULT_RESIGN = (1000, 8)    # win adjudication: both engines beyond 10 pawns for 8 plies
DEFAULT_MAX_PLIES = 500
TASKS_AHEAD = 2               # pairs submitted ahead, per worker thread
RANDOM_TRIES = 100            # --random-plies: draws before an opening that ends the game


class MatchError(RuntimeError):
    """A match that cannot go on (bad openings, engines that cannot start, a lost cluster)."""


@dataclass(frozen=True)
class Limits:
    """One engine's search limits as given, None where not given: a clock (base s,
    increment s) as parse_tc gives it, milliseconds a move, nodes a move, a depth."""
    tc: tuple = None
    movetime: int = None
    nodes: int = None
    depth: int = None


@dataclass(frozen=True)
class Rules:
    """How the games are run and judged beside the limits: the clock's grace, the time-outs,
    the adjudications (resign: (cp, plies), plies 0 or None never; draw: (after, plies, cp)
    or None), the games' length and the variant."""
    margin_ms: int = DEFAULT_MARGIN_MS
    hang_s: float = DEFAULT_HANG_S
    startup_s: float = DEFAULT_STARTUP_S
    resign: tuple = DEFAULT_RESIGN
    draw: tuple = None
    max_plies: int = DEFAULT_MAX_PLIES
    chess960: bool = False


@dataclass(frozen=True)
class Openings:
    """Where the openings come from: an EPD/FEN or PGN file (None: the start position, with
    chess960 the 960 start positions), the seed of their order and of the random plies, and
    the random plies played after each pair's opening (None or 0: none)."""
    path: str = None
    seed: int = 1
    random_plies: int = None
    chess960: bool = False


def matches_root():
    """Where match logs go: $BLACK_NUMBA_MATCHES, else $XDG_DATA_HOME or ~/.local/share, then
    black_numba/matches (outside any checkout)."""
    return os.environ.get(MATCHES_ENV) or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"),
        "black_numba", "matches")


def default_dir(name_a, name_b):
    """matches_root() / <UTC time>_<A>_vs_<B>."""
    base = matches_root()
    safe = [re.sub(r"[^A-Za-z0-9._-]+", "-", n) for n in (name_a, name_b)]
    return os.path.join(base, time.strftime("%Y%m%d-%H%M%S", time.gmtime())
                        + f"_{safe[0]}_vs_{safe[1]}")


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


def openings_for(source, pairs):
    """The openings of an `Openings` source for `pairs` game pairs (openings_in_order)."""
    return openings_in_order(source.path, pairs, source.seed, source.chess960,
                             source.random_plies)


def openings_in_order(path, pairs, seed=1, chess960=False, random_plies=None):
    """The openings in the order the pairs take them: the file's (or the 960 start
    positions, or the start position) shuffled by seed, pair k taking number k (cycling);
    with random_plies N, one opening a pair, that one followed by N random legal plies
    seeded by (seed, k) alone."""
    import chess
    if path:
        openings = load_openings(path, chess960)
    elif chess960:
        openings = [(chess.Board.from_chess960_pos(n).fen(), []) for n in range(960)]
    else:
        openings = [(chess.STARTING_FEN, [])]
    random.Random(seed).shuffle(openings)
    if not random_plies:
        return openings
    out = []
    for k in range(pairs):
        fen, moves = openings[k % len(openings)]
        rng = random.Random(f"{seed}-{k}")
        for _ in range(RANDOM_TRIES):
            board = chess.Board(fen, chess960=chess960)
            for text in moves:
                board.push_uci(text)
            extra = []
            for _ in range(random_plies):
                move = rng.choice(sorted(board.legal_moves, key=board.uci))
                extra.append(board.uci(move))
                board.push(move)
                if board.is_game_over(claim_draw=True):
                    break
            if not board.is_game_over(claim_draw=True):
                out.append((fen, moves + extra))
                break
        else:
            raise ValueError(f"no playable opening of {random_plies} random plies "
                             f"after opening {k % len(openings) + 1}")
    return out


def settings(shared, own, rules=Rules()):
    """Everything of the configuration but the engines (the gauntlet's tasks share it): each
    engine's limits from the `Limits` both share and its own (own: the first engine's and the
    second's; engine_limits), and the `Rules`."""
    return match_settings([engine_limits(shared, own[0]), engine_limits(shared, own[1])],
                          rules.margin_ms, rules.hang_s, rules.startup_s, rules.resign,
                          rules.draw, rules.max_plies, rules.chess960)


def match_settings(limits, margin_ms=DEFAULT_MARGIN_MS, hang_s=DEFAULT_HANG_S,
                   startup_s=DEFAULT_STARTUP_S, resign=DEFAULT_RESIGN, draw=None,
                   max_plies=DEFAULT_MAX_PLIES, chess960=False):
    """The configuration but the engines, as the tasks get it: each engine's limits (a list
    of two `engine_limits`), the clock's grace, the time-outs, the adjudications (resign:
    (cp, plies), plies 0 or None never; draw: (after, plies, cp) or None) and the games'
    length."""
    resign = None if resign is None or resign[1] <= 0 else tuple(resign)
    draw = None if draw is None else tuple(draw)
    return {"limits": list(limits), "margin_ms": margin_ms, "hang_s": hang_s,
            "startup_s": startup_s, "resign": resign, "draw": draw, "max_plies": max_plies,
            "chess960": chess960}


def engine_limits_of(tc=None, movetime=None, nodes=None, depth=None):
    """One engine's limits {tc: (base s, increment s), movetime ms, nodes, depth}; with no
    limit at all, the default clock."""
    limits = {"tc": tc, "movetime": movetime, "nodes": nodes, "depth": depth}
    if all(v is None for v in limits.values()):
        limits["tc"] = parse_tc(DEFAULT_TC)
    return limits


def engine_limits(shared, own=Limits()):
    """One engine's limits {tc, movetime, nodes, depth} from the `Limits` both engines share
    and its own: its own limit of a kind where given, else the shared one; its own clock or
    move time replaces both shared time limits (uneven conditions). An engine with no limit
    at all gets the default clock."""
    if own.tc is not None or own.movetime is not None:
        tc, movetime = own.tc, own.movetime
    else:
        tc, movetime = shared.tc, shared.movetime
    nodes = own.nodes if own.nodes is not None else shared.nodes
    depth = own.depth if own.depth is not None else shared.depth
    return engine_limits_of(tc, movetime, nodes, depth)


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


def pgn_game(conf, opening, record, pair, event, date=None):
    """A played game as python-chess's Game (headers, the opening's moves, the engines'
    moves with Cute Chess style comments, the end's reason); dated today unless `date`
    (YYYY.MM.DD) says when it was played."""
    import chess
    import chess.pgn
    board = chess.Board(opening[0], chess960=conf["chess960"])
    game = chess.pgn.Game()
    game.setup(board)
    white = conf["engines"][record["white"]]["name"]
    black = conf["engines"][1 - record["white"]]["name"]
    game.headers.update(Event=event, Site="?", Date=date or time.strftime("%Y.%m.%d"),
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


def read_json_lines(path, torn_last=False):
    """The values of a JSON-lines file (read through lzma where it ends in .xz), blank lines
    skipped. A last line that is not whole (a write torn by a stop) is left out where
    `torn_last`, else refused. ValueError naming the line, or the file where it cannot be
    read; OSError where it cannot be opened."""
    opener = lzma.open if path.endswith(".xz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            texts = [line for line in f if line.strip()]
    except (lzma.LZMAError, EOFError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: unreadable records ({e})") from None
    values = []
    for i, text in enumerate(texts):
        try:
            values.append(json.loads(text))
        except json.JSONDecodeError:
            if torn_last and i == len(texts) - 1 and i > 0:
                break
            raise ValueError(f"{path}: line {i + 1} is not JSON (another kind of file, or a "
                             f"torn one)") from None
    return values


def play_pairs(client, count, task, take, stop, prefix="match", start=0):
    """Game pairs start..count-1 as tasks (task(k): play_pair's arguments (index, opening, conf)),
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

    nxt = start
    try:
        for k in range(start, count):
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
    from black_numba.uci_client import EngineCrash, EngineHang
    if isinstance(e, (MatchConfigError, EngineCrash, EngineHang)):
        return 2, f"the engines cannot play: {e}"
    if isinstance(e, (MatchError, OSError, TimeoutError)):
        return 1, str(e)
    return 1, f"a task failed: {type(e).__name__}: {e}"   # a task's own, raised again by Dask


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def stop_on_signals():
    """SIGTERM (and SIGINT) end a match as Ctrl-C does: the pairs finished so far are
    summed up and written."""
    import threading
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, _interrupt)
