"""Every move of a game scored by the engine: `black_numba.annotate()` for a game,
annotate_file() for a PGN file (`black-numba annotate`, frontends/commands/annotate.py).

Each position of a game is searched once, in game order (a game of n moves costs n + 1
searches; a checkmate or a dead draw on the board needs none), on an engine cleared before the
game. A move's evaluation is the score of the position after it, written as lichess writes it:
``[%eval 0.17]`` (pawns, White's point of view) or ``[%eval #-3]``. Its judgement follows
lichess's ``Advice``: the mover's winning chances, ``2 / (1 + exp(-0.00368208 * cp)) - 1`` of
centipawns capped at +-1000, before the move (the best score) and after it; a drop of 0.1, 0.2
or 0.3 is an inaccuracy (``?!``), a mistake (``?``) or a blunder (``??``). A move into a forced
mate, or one that lets a forced mate go, is judged by the centipawns on the other side of it
(``_mate_judgement``). The engine's own best move is never judged, as on lichess. A mistake or
a blunder gets the engine's better line as a variation. Each side's average centipawn loss (a
mate counting as 1000) goes into the headers ``WhiteACPL`` and ``BlackACPL``, the engine and
the limit into ``Annotator``.

Games come out in input order, each written whole and flushed. A game python-chess cannot
read (a parse error, an illegal move, an illegal or a variant position, or a game that reads
otherwise once written back, as a Result tag that is not a result makes it) is reported on
stderr with its number and skipped. A stopped run resumes: the complete games already in OUT.pgn
(a cut-off last one is removed) are the first that many readable games of the input, which
are skipped. With jobs N (N > 1) or a scheduler, games are Dask tasks on a local cluster of
N worker processes or on a running cluster, as in datagen; with Threads 1 and a node or depth
limit the file is the same bytes whatever the workers.
"""
import io
import itertools
import math
import re
import signal
import sys
import time
import uuid
from dataclasses import dataclass
from typing import Optional

import chess
import chess.engine
import chess.pgn

from black_numba.board.pgn import PgnError, read_game as strict_read_game
from black_numba.cluster import (close as cluster_close, connect as cluster_connect,
                                 result as task_result)

# lichess's winning chances (lila WinPercent.winningChances, scalachess eval.scala): the
# logistic fit of game results to Stockfish centipawns, lila pull request 11148
WIN_CHANCE_SLOPE = 0.00368208
INACCURACY, MISTAKE, BLUNDER = "Inaccuracy", "Mistake", "Blunder"
# (drop in the mover's winning chances on [-1, 1], judgement), worst first (lila Advice.scala)
JUDGEMENTS = ((0.3, BLUNDER), (0.2, MISTAKE), (0.1, INACCURACY))
NAGS = {INACCURACY: chess.pgn.NAG_DUBIOUS_MOVE, MISTAKE: chess.pgn.NAG_MISTAKE,
        BLUNDER: chess.pgn.NAG_BLUNDER}
# a move into a forced mate (or letting one go) is milder where the position was already lost
# (or stays won) by more than these centipawns (lila MateAdvice)
MATE_MILD_CP, MATE_MEDIUM_CP = 999, 700
CP_CEILING = 1000            # scores are capped here (lichess's ceiled cp); a mate counts as it
VARIATION_PLIES = 12         # the better line's length at most
DEFAULT_NODES = 100_000      # the default limit a position
# the engine's options for a file: one thread (with a node or depth limit, the same bytes
# whatever the workers) and a 16 MB table
DEFAULT_OPTIONS = {"Threads": 1, "Hash": 16}
ASSESSMENT_NAGS = range(1, 7)   # the input's own !, ?, !!, ??, !?, ?! give way to the engine's
TASKS_IN_FLIGHT = 2          # games submitted ahead, per worker thread
PROGRESS_EVERY_S = 0.5       # the progress bar's refresh, at most


class AnnotateError(RuntimeError):
    """A run that cannot go on (an output file from another input, workers that differ)."""


# -- judging ---------------------------------------------------------------------------------
def winning_chances(cp):
    """lichess's winning chances of a centipawn score (capped at +-CP_CEILING), on [-1, 1]."""
    cp = max(-CP_CEILING, min(CP_CEILING, cp))
    return 2 / (1 + math.exp(-WIN_CHANCE_SLOPE * cp)) - 1


def _mate_judgement(before, after):
    """lichess's MateAdvice: before and after are the mover's PovScore views."""
    mb, ma = before.mate(), after.mate()
    cp_before = before.score() if mb is None else 0
    cp_after = after.score() if ma is None else 0
    if mb is None and ma is not None and ma < 0:              # walked into a forced mate
        return (INACCURACY if cp_before < -MATE_MILD_CP else
                MISTAKE if cp_before < -MATE_MEDIUM_CP else BLUNDER)
    if mb is not None and mb > 0 and ma is None:              # let a forced mate go
        return (INACCURACY if cp_after > MATE_MILD_CP else
                MISTAKE if cp_after > MATE_MEDIUM_CP else BLUNDER)
    if mb is not None and mb > 0 and ma is not None and ma < 0:   # and is mated instead
        return BLUNDER
    return None


def judgement(before, after, mover):
    """The judgement (INACCURACY, MISTAKE, BLUNDER or None) of a move by mover from a position
    scored `before` (the best line) to one scored `after` (PovScores), as lichess's Advice."""
    b, a = before.pov(mover), after.pov(mover)
    if b.mate() is None and a.mate() is None:
        drop = winning_chances(b.score()) - winning_chances(a.score())
        return next((name for least, name in JUDGEMENTS if drop >= least), None)
    return _mate_judgement(b, a)


def capped_cp(score):
    """White's centipawns capped at +-CP_CEILING, a mate as the cap (lichess's ceiled cp)."""
    cp = score.white().score(mate_score=10 * CP_CEILING)
    return max(-CP_CEILING, min(CP_CEILING, cp))


def average_loss(losses):
    """lichess's ACPL: the mean loss rounded half up."""
    return math.floor(sum(losses) / len(losses) + 0.5)


# -- one game --------------------------------------------------------------------------------
def read_game(handle, lenient=False):
    """The next game of a PGN stream (None at its end), read strictly (board/pgn.py): a game
    that cannot be is an empty game with the reason in game.errors, and the stream goes on at
    the next game; lenient: python-chess's reading, its errors in game.errors."""
    try:
        return strict_read_game(handle, lenient=lenient)
    except PgnError as e:
        game = chess.pgn.Game()
        game.errors.append(e)
        return game


def game_problem(game):
    """Why a game cannot be annotated (a parse error, a variant, an illegal position or move),
    or None."""
    if game.errors:
        return str(game.errors[0])
    try:
        board = game.board()
    except ValueError as e:
        return f"bad FEN: {e}"
    if board.uci_variant != "chess":
        return f"variant {game.headers.get('Variant', board.uci_variant)!r} is not supported"
    if not board.is_valid():
        return f"illegal position {board.fen()!r} ({board.status()!r})"
    for ply, move in enumerate(game.mainline_moves()):
        if not board.is_legal(move):
            return f"illegal move {move.uci()} at ply {ply + 1} in {board.fen()}"
        board.push(move)
    return None


def describe_limit(limit):
    parts = []
    if limit.nodes is not None:
        parts.append(f"{limit.nodes} nodes")
    if limit.depth is not None:
        parts.append(f"depth {limit.depth}")
    if limit.time is not None:
        parts.append(f"{limit.time:g} s")
    return (", ".join(parts) or "no limit") + " a position"


def _score(engine, board, limit, token):
    """(PovScore, best line) of a position: the game's own end where it is over."""
    outcome = board.outcome()
    if outcome is not None:
        if outcome.termination == chess.Termination.CHECKMATE:
            return chess.engine.PovScore(chess.engine.Mate(0), board.turn), []
        return chess.engine.PovScore(chess.engine.Cp(0), board.turn), []
    info = engine.analyse(board, limit, game=token)
    if "score" not in info:
        raise RuntimeError(f"the engine gave no score for {board.fen()}")
    return info["score"], list(info.get("pv", []))


def _set_eval(node, score):
    """[%eval] as lichess writes it; a checkmate on the board is #0 (python-chess reads it
    as the side to move mated), which set_eval itself leaves out."""
    if score.white().mate() == 0:
        node.set_eval(None)
        node.comment = (node.comment + " " if node.comment else "") + "[%eval #0]"
    else:
        node.set_eval(score)


def _add_line(parent, board, pv, score):
    """The engine's line from parent's position as a variation, its first move carrying the
    line's evaluation."""
    node, b = parent, board.copy()
    for i, move in enumerate(pv[:VARIATION_PLIES]):
        if not b.is_legal(move):
            break
        node = node.add_variation(move)
        if i == 0:
            _set_eval(node, score)
        b.push(move)


def annotate(game, limit=None, engine=None, *, options=None, progress=None):
    """A new python-chess Game: game's headers and main line (its comments kept; its own
    variations and move-assessment NAGs left out) with every move's evaluation as
    ``[%eval ...]``, lichess's judgements as NAGs (?!, ?, ??) and comments, the engine's
    better line after a mistake or a blunder, and the headers WhiteACPL, BlackACPL and
    Annotator. The input is left untouched.

    limit: a chess.engine.Limit a position (default: 100,000 nodes). engine: a
    black_numba.Engine or any python-chess SimpleEngine (default: a black_numba.Engine made
    with options, and closed after). It is cleared before the game (Clear Hash, and a new game
    as python-chess tells it). progress(positions) is called after each position.
    ValueError for a game that cannot be annotated (see game_problem)."""
    problem = game_problem(game)
    if problem:
        raise ValueError(problem)
    limit = limit if limit is not None else chess.engine.Limit(nodes=DEFAULT_NODES)
    own = engine is None
    if own:
        from black_numba.frontends.api import Engine
        engine = Engine(options or {})
    elif options:
        engine.configure(options)
    try:
        moves = list(game.mainline_moves())
        scores, lines = [], []
        if moves:
            # a new game for the engine: results depend neither on the games before nor on
            # the worker (Clear Hash empties the table and histories now; the game token makes
            # python-chess's engines, ours included, send ucinewgame at the first search)
            if "Clear Hash" in engine.options:
                engine.configure({"Clear Hash": None})
            token = object()
            board = game.board()
            for i in range(len(moves) + 1):
                score, pv = _score(engine, board, limit, token)
                scores.append(score)
                lines.append(pv)
                if progress is not None:
                    progress(i + 1)
                if i < len(moves):
                    board.push(moves[i])
        name = engine.id.get("name", "engine")
    finally:
        if own:
            engine.quit()
    return _build(game, moves, scores, lines, f"{name}, {describe_limit(limit)}")


def _build(game, moves, scores, lines, annotator):
    out = chess.pgn.Game(game.headers)
    out.comment = game.comment
    out.headers["Annotator"] = annotator
    board = out.board()
    losses = {chess.WHITE: [], chess.BLACK: []}
    node, src = out, game
    for i, move in enumerate(moves):
        src = src.next()
        mover = board.turn
        before, after = scores[i], scores[i + 1]
        best = lines[i][0] if lines[i] else None
        child = node.add_variation(move, comment=src.comment,
                                   nags=[n for n in src.nags if n not in ASSESSMENT_NAGS])
        losses[mover].append(max(0, (capped_cp(before) - capped_cp(after))
                                 * (1 if mover == chess.WHITE else -1)))
        # the engine's own move is never judged (lichess: no better line, no advice)
        verdict = judgement(before, after, mover) if best is not None and best != move else None
        if verdict is not None:
            child.nags.add(NAGS[verdict])
            text = f"{verdict}. {board.san(best)} was best."
            child.comment = f"{child.comment} {text}" if child.comment else text
        _set_eval(child, after)
        if verdict in (MISTAKE, BLUNDER):
            _add_line(node, board, lines[i], before)
        board.push(move)
        node = child
    for color, tag in ((chess.WHITE, "WhiteACPL"), (chess.BLACK, "BlackACPL")):
        out.headers.pop(tag, None)
        if losses[color]:
            out.headers[tag] = str(average_loss(losses[color]))
    return out


def annotate_text(text, limit, engine, progress=None):
    """(the annotated game's PGN, positions searched or scored) of one game's PGN text: the
    unit of work of both the in-process run and a Dask task, so that both make the same
    bytes."""
    game = read_game(io.StringIO(text))
    out = annotate(game, limit, engine, progress=progress)
    return str(out), len(list(game.mainline_moves())) + 1


# -- the output file: complete games and resuming ---------------------------------------------
GAME_START = re.compile(r'^\[Event "', re.M)
RESULT_TAG = re.compile(r'^\[Result "([^"]*)"\]', re.M)


def complete_games(text):
    """(count, length) of the complete games at the start of an output file's text: each was
    written as one block, its PGN and a blank line, ending with its Result tag's result."""
    starts = [m.start() for m in GAME_START.finditer(text)] + [len(text)]
    count = end = 0
    if starts[0] != 0:
        return 0, 0
    for a, b in zip(starts, starts[1:]):
        block = text[a:b]
        result = RESULT_TAG.search(block)
        head, sep, body = block.partition("\n\n")
        if not (result and sep and block.endswith("\n\n") and body.strip()
                and body.rstrip().endswith(result.group(1))):
            break
        count, end = count + 1, b
    return count, end


def _resume_point(path):
    """(games, bytes, the last game's PGN, the text after it) of the output file: its
    complete games and what follows them (nothing, or a game cut off)."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except FileNotFoundError:
        return 0, 0, None, ""
    count, end = complete_games(text)
    last = None
    if count:
        last = text[[m.start() for m in GAME_START.finditer(text, 0, end)][-1]:end]
    return count, len(text[:end].encode("utf-8")), last, text[end:]


def _resume_problem(source, out, done, last, rest, annotator, games):
    """(why the output file `out` cannot be continued from the input `source` at this limit
    or None, the input games read): skips the input games it holds already (the first
    `done` readable ones) and says so."""
    if rest and not rest.startswith('[Event "'):
        return (f"{out} ends with text that is no game of an annotate run (use another "
                f"--out)", 0)
    if not done:
        return None, 0
    made = read_game(io.StringIO(last)).headers.get("Annotator")
    if made != annotator:
        return (f"{out} was annotated by {made!r}, this run is {annotator!r} (the same "
                f"limit resumes it; else use another --out)", 0)
    seen = 0
    for number, text, problem in games:
        if text is None:
            continue
        seen += 1
        if seen == done:
            if not _same_game(last, text):
                return (f"{out}'s game {done} is not the annotation of {source}'s "
                        f"game {number}: another input's output? (use another --out)", number)
            print(f"annotate: resuming after the {done} games already in {out} (input "
                  f"games 1..{number})", file=sys.stderr)
            return None, number
    return (f"{out} holds {done} games, more than {source}'s readable ones: another "
            f"input's output? (use another --out)", 0)


def _input(path):
    """(number, PGN text or None, problem or None) of each game of the input, numbered from 1."""
    with open(path, encoding="utf-8-sig", errors="replace") as f:
        for number in itertools.count(1):
            try:
                game = read_game(f)
            except Exception as e:          # python-chess gave up: the rest cannot be told apart
                yield number, None, f"unreadable, and so is the rest of the file: {e}"
                return
            if game is None:
                return
            problem = game_problem(game)
            text = None if problem else str(game)
            if text is not None:
                # each game is annotated from its text as written back (annotate_text), which
                # must read as the same game: an odd Result tag becomes the movetext's end
                back = read_game(io.StringIO(text))
                again = game_problem(back) or (
                    None if list(back.mainline_moves()) == list(game.mainline_moves())
                    else "other moves")
                if again:
                    problem, text = (f"it reads otherwise once written back ({again}); its "
                                     f"Result tag is {game.headers.get('Result')!r}"), None
            yield number, text, problem


def _count_games(path):
    with open(path, encoding="utf-8-sig", errors="replace") as f:
        n = 0
        while chess.pgn.skip_game(f):
            n += 1
        return n


def _same_game(done_pgn, text):
    """Whether an annotated game of the output file is the annotation of an input game: the
    same start and main-line moves."""
    a, b = read_game(io.StringIO(done_pgn)), read_game(io.StringIO(text))
    return (a.board().fen() == b.board().fen()
            and list(a.mainline_moves()) == list(b.mainline_moves()))


# -- running on a Dask cluster -----------------------------------------------------------------
_WORKER = {}     # per worker process: the engine, kept across games


def annotate_task(text, limit, options):
    """A Dask task: one game annotated on this worker's engine (made on its first game)."""
    key = tuple(sorted(options.items()))
    if _WORKER.get("key") != key:
        if _WORKER.get("engine") is not None:
            _WORKER["engine"].quit()
        from black_numba.frontends.api import Engine
        from black_numba.training.datagen import code_hash
        _WORKER.update(key=key, engine=Engine(options), code=code_hash())
    pgn, positions = annotate_text(text, limit, _WORKER["engine"])
    return {"pgn": pgn, "positions": positions, "code": _WORKER["code"]}


def _on_cluster(client, games, limit, options, write, skip):
    """Games as Dask tasks, a window of them in flight, written (or their problems reported)
    in input order; a game the cluster cancels or loses (a lost worker) is submitted again:
    none is lost, none is written twice."""
    threads = max(1, sum(client.nthreads().values()))
    window = max(2, TASKS_IN_FLIGHT * threads)
    queue = []              # [number, text, problem, future] in input order
    code = None

    def submit(number, text):
        return client.submit(annotate_task, text, limit, options, pure=False,
                             key=f"annotate-{number}-{uuid.uuid4().hex}")

    games = iter(games)
    exhausted = False
    try:
        while True:
            while not exhausted and sum(e[3] is not None for e in queue) < window:
                try:
                    number, text, problem = next(games)
                except StopIteration:
                    exhausted = True
                    break
                queue.append([number, text, problem, submit(number, text) if text else None])
            if not queue:
                return
            number, text, problem, future = queue.pop(0)
            if future is None:
                skip(number, problem)
                continue
            res = task_result(future, lambda number=number, text=text: submit(number, text),
                              f"game {number}", AnnotateError, "annotate")
            code = code or res["code"]
            if res["code"] != code:
                raise AnnotateError(f"workers differ: code {code} against {res['code']}; "
                                    f"install the same black_numba on all")
            write(res["pgn"], res["positions"])
    finally:
        client.cancel([e[3] for e in queue if e[3] is not None])


# -- a whole file ---------------------------------------------------------------------------------
@dataclass
class AnnotateRun:
    """What annotate_file did: games written and positions searched, games skipped (that
    could not be annotated), its seconds; interrupted by a stop signal (every finished game
    is written), or the error that stopped it (an engine's, workers that differ)."""
    games: int
    positions: int
    skipped: int
    seconds: float
    interrupted: bool = False
    error: Optional[str] = None


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def annotate_file(source, out, limit=None, options=None, *, jobs=1, scheduler=None,
                  quiet=False):
    """Annotate every game of the PGN file `source` into `out`, in input order, each game
    written whole and flushed; a game that cannot be annotated is reported on stderr and
    skipped. A stopped run resumes: the complete games already in `out` are the first that
    many readable games of the input, which are skipped. limit: a chess.engine.Limit a
    position (default: DEFAULT_NODES nodes); options: the engine's UCI options (over
    DEFAULT_OPTIONS); with jobs > 1 or a scheduler's address, games are Dask tasks on a local
    cluster of `jobs` workers or on that cluster. A progress bar shows on a terminal unless
    quiet; a stop signal (SIGTERM, SIGINT) ends the run after the games written. ValueError
    when `out` holds another input's or another limit's games (nothing is touched then)."""
    limit = limit if limit is not None else chess.engine.Limit(nodes=DEFAULT_NODES)
    options = {**DEFAULT_OPTIONS, **(options or {})}
    parallel = jobs > 1 or scheduler
    from black_numba.frontends.uci import ENGINE_NAME
    annotator = f"{ENGINE_NAME}, {describe_limit(limit)}"
    done, size, last, rest = _resume_point(out)
    games = _input(source)
    problem, skipped = _resume_problem(source, out, done, last, rest, annotator, games)
    if problem:
        raise ValueError(problem)
    where = (scheduler or f"a local cluster of {jobs} workers") if parallel else "this process"
    print(f"annotate: {source} into {out}, {describe_limit(limit)}, Threads "
          f"{options.get('Threads')}, Hash {options.get('Hash')} MB, on {where}",
          file=sys.stderr)
    show = sys.stderr.isatty() and not quiet
    total = _count_games(source) - skipped if show else None
    from tqdm import tqdm
    bar = tqdm(total=total, unit="game", file=sys.stderr, disable=not show, smoothing=0.05,
               desc="annotate")
    state = {"games": 0, "positions": 0, "bad": 0, "t0": time.time(), "shown": 0.0}

    def show_positions(partial=0, force=False):
        now = time.time()
        if show and (force or now - state["shown"] >= PROGRESS_EVERY_S):
            state["shown"] = now
            n = state["positions"] + partial
            bar.set_postfix_str(f"{n:,} positions, {n / max(now - state['t0'], 1e-9):,.1f}/s",
                                refresh=False)
            bar.refresh()

    with open(out, "ab") as f:
        f.truncate(size)                            # a cut-off last game goes
    handle = open(out, "a", encoding="utf-8", newline="")

    def write(pgn, positions):
        handle.write(pgn + "\n\n")
        handle.flush()
        state["games"] += 1
        state["positions"] += positions
        bar.update(1)
        show_positions()

    def skip(number, problem):
        state["bad"] += 1
        bar.update(1)
        tqdm.write(f"annotate: game {number} skipped: {problem}", file=sys.stderr)

    interrupted, error = False, None
    engine = client = cluster = None
    if _main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, _interrupt)
    try:
        if parallel:
            client, cluster = cluster_connect(scheduler, jobs)
            _on_cluster(client, games, limit, options, write, skip)
        else:
            from black_numba.frontends.api import Engine
            engine = Engine(options)
            for number, text, problem in games:
                if text is None:
                    skip(number, problem)
                    continue
                pgn, positions = annotate_text(text, limit, engine, progress=show_positions)
                write(pgn, positions)
    except KeyboardInterrupt:
        print(f"\nannotate: interrupted; every finished game is in {out}, and the same "
              f"command resumes", file=sys.stderr)
        interrupted = True
    except (AnnotateError, chess.engine.EngineError, OSError, TimeoutError) as e:
        error = str(e)
        print(f"annotate: {e}", file=sys.stderr)
    except Exception as e:    # a task's own error, raised again by Dask here
        error = f"a game failed: {type(e).__name__}: {e}"
        print(f"annotate: {error}", file=sys.stderr)
    finally:
        show_positions(force=True)
        bar.close()
        handle.close()
        if engine is not None:
            engine.quit()
        cluster_close(client, cluster)
    dt = time.time() - state["t0"]
    print(f"annotate: {state['games']} games ({state['positions']:,} positions, "
          f"{state['positions'] / max(dt, 1e-9):,.1f} a second) written, {state['bad']} "
          f"skipped, in {dt:.0f} s", file=sys.stderr)
    return AnnotateRun(state["games"], state["positions"], state["bad"], dt, interrupted, error)


def _main_thread():
    import threading
    return threading.current_thread() is threading.main_thread()
