"""One game pair between two UCI engines: the task a match runner's worker runs (match.py).

A pair is one opening played twice, the first engine White in the first game and Black in
the second. Each worker thread keeps its two engine processes from pair to pair and sends
`ucinewgame` + `isready` before every game, so that a game starts from a fresh table and
histories: at fixed nodes with Threads 1 a game is then the same whichever worker plays it
and whatever it played before. An engine that crashed, hung or played an illegal move is
killed and started afresh before the next game.

Each engine plays under its own limits (conf["limits"], one per engine: a clock, a move
time, nodes, a depth), the same for both in an even match: its `go` carries its own, a clock
is kept and a time loss judged for each side by its own time control.

A game ends by the rules (python-chess's outcome, and the draws a player may claim once they
stand on the board: a position there for the third time, a hundred plies without a capture or
pawn move; not the claims of a move still to be played, which are the mover's to make), by a
fault (the faulty engine loses: an illegal or unreadable move,
a time loss, a crash, a hang), or by adjudication: a win when both engines' scores agree
beyond a bound for a number of plies, a draw when both are near zero for a number of plies
after a given ply, a draw at the ply limit.
"""
import threading

import chess

from black_numba.uci_client import MATE_CP, EngineCrash, EngineHang, UciProcess, \
    nodes_ignored

MATE_SHOWN = 1000            # scores this close to MATE_CP are shown as mates in the PGN
FLAG_GRACE_S = 2.0           # past the clock (and margin) a move is a time loss; this much
                             # later still, the engine is a hang and is killed

# Fault kinds, as counted in the summary
ILLEGAL, TIME_LOSS, CRASH, HANG = "illegal move", "time loss", "crash", "hang"
FAULTS = (ILLEGAL, TIME_LOSS, CRASH, HANG)

# PGN Termination tag values (the PGN standard's)
NORMAL, ADJUDICATION = "normal", "adjudication"
TERMINATION = {ILLEGAL: "rules infraction", TIME_LOSS: "time forfeit", CRASH: "abandoned",
               HANG: "abandoned"}


class MatchConfigError(RuntimeError):
    """The engines cannot play as configured (an unknown option, no Chess960): no game can."""


NODES_PROBE_MIN = 1000       # node limits probed by probe() (a depth-1 search may take 100)
_PLAYERS = {}                # (thread id, spec key) -> UciProcess, least recently used first
_PLAYERS_LOCK = threading.Lock()
PLAYERS_PER_THREAD = 8       # engines a worker thread keeps running (a gauntlet's builds and
                             # opponents take turns: each stays up between its games)


def _spec_key(spec, conf):
    return (spec["cmd"], spec["name"], tuple(map(tuple, spec["options"])), conf["chess960"])


def start_engine(spec, conf):
    """A started engine with its options set, ready; MatchConfigError for an option it does
    not have (or UCI_Chess960 missing in a Chess960 match)."""
    proc = UciProcess(spec["cmd"], spec["name"])
    try:
        proc.handshake(conf["startup_s"])
        options = list(spec["options"])
        if conf["chess960"]:
            if "UCI_Chess960" not in proc.options:
                raise MatchConfigError(f"{spec['name']} has no UCI_Chess960 option")
            options.append(("UCI_Chess960", "true"))
        for name, value in options:
            if name not in proc.options:
                known = ", ".join(sorted(proc.options)) or "none"
                raise MatchConfigError(f"{spec['name']} has no option {name!r} (it has: {known})")
            proc.set_option(name, value)
        proc.ready(conf["startup_s"])
    except BaseException:
        proc.kill()
        raise
    return proc


def _player(i, conf):
    """This thread's engine i, started when needed and kept for its next game (an engine of
    the same command, name and options); the thread's least recently used engine quits when
    it holds more than PLAYERS_PER_THREAD."""
    spec = conf["engines"][i]
    key = (threading.get_ident(), _spec_key(spec, conf))
    with _PLAYERS_LOCK:
        held = _PLAYERS.pop(key, None)
    if held is not None:
        if held.proc.poll() is None:
            with _PLAYERS_LOCK:
                _PLAYERS[key] = held            # again the most recently used
            return held
        held.close()                # it died after its last move: a crash all the same
        raise EngineCrash(f"{spec['name']} exited after its last game")
    proc = start_engine(spec, conf)
    with _PLAYERS_LOCK:
        _PLAYERS[key] = proc
        mine = [k for k in _PLAYERS if k[0] == key[0]]
        spare = [_PLAYERS.pop(k) for k in mine[:max(0, len(mine) - PLAYERS_PER_THREAD)]]
    for old in spare:
        old.close()
    return proc


def _drop(i, conf):
    """Kill this thread's engine i (after a fault): the next game starts it afresh."""
    with _PLAYERS_LOCK:
        held = _PLAYERS.pop((threading.get_ident(), _spec_key(conf["engines"][i], conf)), None)
    if held is not None:
        held.kill()


def close_engines():
    """Quit every engine this process holds (run on each worker at the end of a match)."""
    with _PLAYERS_LOCK:
        held = list(_PLAYERS.values())
        _PLAYERS.clear()
    for proc in held:
        proc.close()
    return len(held)


def probe(conf):
    """Start both engines as configured: a task run once before the games, so that a wrong
    command or option is one clear error. Returns {"names": their `id name`s} or
    {"error": why} (returned, not raised: a task's exception is logged by its worker with
    a traceback)."""
    names = []
    try:
        for i in range(2):
            proc = _player(i, conf)
            names.append(proc.id_name or conf["engines"][i]["name"])
            ignored = _ignored_nodes(i, proc, conf)
            if ignored:
                return {"error": f"{names[-1]} searched {ignored[0]} nodes at `go nodes "
                                 f"{ignored[1]}`: it ignores the node limit (give it a clock "
                                 f"or a depth)"}
    except (MatchConfigError, EngineCrash, EngineHang) as e:
        return {"error": str(e)}
    return {"names": names}


def _ignored_nodes(i, proc, conf):
    """(nodes searched, nodes asked) where engine i plays on a node limit alone of at least
    NODES_PROBE_MIN and searches under a tenth of it (it ignores `go nodes` and would play
    every game at depth 1: Ethereal 12), else None. An engine that crashes or hangs in this
    search is left to the games, which count it."""
    own = conf["limits"][i]
    if own["nodes"] is None or own["nodes"] < NODES_PROBE_MIN or \
            any(own[k] is not None for k in ("tc", "movetime", "depth")):
        return None
    try:
        seen = proc.searched_nodes(own["nodes"], conf["hang_s"])
    except (EngineCrash, EngineHang):
        _drop(i, conf)
        return None
    return (seen, own["nodes"]) if nodes_ignored(seen, own["nodes"]) else None


def _go_command(limits, clocks, side):
    """The `go` line for the side to move, from its own limits: its node, depth and move-time
    limits, and where it plays on a clock, each side's clock that runs (wtime and winc,
    btime and binc from that side's own time control). An engine without a clock gets no
    clock at all, the opponent's neither: an engine that sees any clock manages its time."""
    own = limits[side]
    parts = ["go"]
    if own["tc"] is not None:
        timed = [c for c in (chess.WHITE, chess.BLACK) if limits[c]["tc"] is not None]
        for c in timed:
            parts += ["wtime" if c == chess.WHITE else "btime",
                      str(max(1, round(clocks[c] * 1000)))]
        for c in timed:
            parts += ["winc" if c == chess.WHITE else "binc",
                      str(round(limits[c]["tc"][1] * 1000))]
    if own["movetime"] is not None:
        parts += ["movetime", str(own["movetime"])]
    if own["nodes"] is not None:
        parts += ["nodes", str(own["nodes"])]
    if own["depth"] is not None:
        parts += ["depth", str(own["depth"])]
    return " ".join(parts)


def _time_allowed(own, clock):
    """Seconds the mover may take under its own limits (None: no limit in time)."""
    allowed = []
    if own["tc"] is not None:
        allowed.append(clock)
    if own["movetime"] is not None:
        allowed.append(own["movetime"] / 1000)
    return min(allowed) if allowed else None


def comment(score, depth, seconds):
    """A move's PGN comment as Cute Chess writes it: the mover's score in pawns (or +M3,
    -M2), depth, seconds."""
    if score is None:
        text = "book" if seconds is None else "-"
    elif abs(score) >= MATE_CP - MATE_SHOWN:
        text = ("+M" if score > 0 else "-M") + str(MATE_CP - abs(score))
    else:
        text = f"{score / 100:+.2f}"
    if depth is not None:
        text += f"/{depth}"
    return text if seconds is None else f"{text} {seconds:.3f}s"


class _Adjudicator:
    """Counts the plies for which both engines' scores (White's view) agree on a win, or sit
    near zero, and says when a game is decided."""

    def __init__(self, conf):
        self.resign, self.draw = conf["resign"], conf["draw"]
        self.win_run = self.draw_run = 0
        self.last = None

    def update(self, white_view, ply):
        """'1-0', '0-1', '1/2-1/2' or None after a move with this score (None: no score)."""
        if self.resign is not None:
            cp, plies = self.resign
            if white_view is None or abs(white_view) < cp:
                self.win_run = 0
            elif self.win_run and (white_view > 0) == (self.last > 0):
                self.win_run += 1
            else:
                self.win_run = 1                  # a run starts (or turns to the other side)
            if self.win_run >= plies:
                return "1-0" if white_view > 0 else "0-1"
        if self.draw is not None:
            after, plies, cp = self.draw
            if white_view is not None and ply >= after and abs(white_view) <= cp:
                self.draw_run += 1
            else:
                self.draw_run = 0
            if self.draw_run >= plies:
                return "1/2-1/2"
        self.last = white_view
        return None


def rules_outcome(board):
    """The game's end by the rules, a chess.Outcome or None: python-chess's outcome (mate first,
    even on the hundredth ply), then threefold repetition and the fifty-move rule as they stand
    on the board. python-chess's claim_draw also grants a claim announced with a move still to
    be played, which is the mover's right: a side to move with a mate on its hundredth ply
    would lose its win to a claim nobody made."""
    outcome = board.outcome()
    if outcome is not None:
        return outcome
    if board.halfmove_clock >= 100:
        return chess.Outcome(chess.Termination.FIFTY_MOVES, None)
    if board.is_repetition(3):
        return chess.Outcome(chess.Termination.THREEFOLD_REPETITION, None)
    return None


def _outcome_reason(outcome):
    return outcome.termination.name.lower().replace("_", " ")


def play_game(opening, white, conf):
    """One game from opening (root FEN, [UCI moves]) with engine `white` (0 or 1) as White.
    Returns a dict: result, termination, reason, moves and comments (the engines' moves),
    faults [(engine index, kind)]."""
    root_fen, opening_moves = opening
    board = chess.Board(root_fen, chess960=conf["chess960"])
    ucis = []
    for text in opening_moves:
        move = board.parse_uci(text)
        ucis.append(board.uci(move))
        board.push(move)
    index = {chess.WHITE: white, chess.BLACK: 1 - white}
    record = {"white": white, "moves": [], "comments": [], "faults": []}

    def lose(color, kind, why):
        i = index[color]
        record["faults"].append((i, kind))
        if kind != TIME_LOSS:
            _drop(i, conf)
        return ("0-1" if color == chess.WHITE else "1-0"), TERMINATION[kind], why

    def finish(result, termination, reason):
        record.update(result=result, termination=termination, reason=reason)
        return record

    engines = {}
    for color in (chess.WHITE, chess.BLACK):
        i = index[color]
        name = conf["engines"][i]["name"]
        try:
            engines[color] = _player(i, conf)
            engines[color].new_game(conf["startup_s"])
        except EngineHang:
            return finish(*lose(color, HANG, f"{name} did not answer isready"))
        except EngineCrash as e:
            return finish(*lose(color, CRASH, f"{name} crashed before the game: {e}"))

    # each side's own limits and clock (an uneven match gives the engines different ones)
    limits = {color: conf["limits"][index[color]] for color in (chess.WHITE, chess.BLACK)}
    clocks = {color: None if limits[color]["tc"] is None else limits[color]["tc"][0]
              for color in (chess.WHITE, chess.BLACK)}
    margin = conf["margin_ms"] / 1000
    adjudicator = _Adjudicator(conf)
    plies = 0
    while True:
        outcome = rules_outcome(board)
        if outcome is not None:
            return finish(outcome.result(), NORMAL, _outcome_reason(outcome))
        if plies >= conf["max_plies"]:
            return finish("1/2-1/2", ADJUDICATION, f"draw at the ply limit ({plies} plies)")
        side = board.turn
        i = index[side]
        name = conf["engines"][i]["name"]
        allowed = _time_allowed(limits[side], clocks[side])
        timeout = conf["hang_s"] if allowed is None else allowed + margin + FLAG_GRACE_S
        position = f"position fen {board.root().fen()}" + \
            (" moves " + " ".join(ucis) if ucis else "")
        try:
            text, score, depth, elapsed = engines[side].go(
                position, _go_command(limits, clocks, side), timeout)
        except EngineHang:
            return finish(*lose(side, HANG, f"{name} gave no move in {timeout:.1f} s"))
        except EngineCrash as e:
            return finish(*lose(side, CRASH, f"{name} crashed: {e}"))
        if allowed is not None and elapsed > allowed + margin:
            return finish(*lose(side, TIME_LOSS, f"{name} lost on time ({elapsed:.3f} s of "
                                                 f"{allowed:.3f} s)"))
        try:
            move = board.parse_uci(text)
            if not move or not board.is_legal(move):
                raise ValueError
        except ValueError:
            return finish(*lose(side, ILLEGAL, f"{name} played an illegal move {text!r}"))
        if limits[side]["tc"] is not None:
            clocks[side] = clocks[side] - elapsed + limits[side]["tc"][1]
        record["moves"].append(board.uci(move))
        record["comments"].append(comment(score, depth, elapsed))
        ucis.append(board.uci(move))
        board.push(move)
        plies += 1
        white_view = None if score is None else score if side == chess.WHITE else -score
        verdict = adjudicator.update(white_view, plies)
        if verdict is not None:
            why = "both engines' scores agree" if verdict != "1/2-1/2" else \
                "both engines' scores near zero"
            return finish(verdict, ADJUDICATION, why)


def points(result, white):
    """The first engine's points from a game's result and who was White."""
    p = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
    return p if white == 0 else 1.0 - p


def play_pair(index, opening, conf):
    """The task: both games of opening number `index` (the first engine White, then Black).
    Returns {"index", "games": [record, record]}, each record with its "points" for the
    first engine."""
    games = []
    for white in (0, 1):
        record = play_game(opening, white, conf)
        record["points"] = points(record["result"], white)
        games.append(record)
    return {"index": index, "games": games}
