"""Training positions from the engine playing itself, as Dask tasks (`black-numba datagen`).

    from black_numba.training.datagen import DatagenConfig, generate, verify
    generate(DatagenConfig(positions=100_000, nodes=2000, seed=1, out="run"))

Games are played at a fixed node count a move (one thread, a fresh 16 MB table a game,
the shipped network or `evalfile`'s, or the tapered evaluation) from a random opening of 8-12
uniformly random plies. Kept are quiet positions past ply 16: side to move not in check, best
move neither a capture nor a promotion, no mate score; each is written as
``<FEN> | <score> | <result>`` (centipawns and result from White's view, the format
``black-numba train`` reads) or, with format "games", as part of its whole game (gamefile.py).
Games are adjudicated as won at |score| >= 1500 for 6 plies, drawn at |score| <= 8 for 12
plies after ply 80 and at ply 400, as in the data of record. With `rescore` every kept
position is searched again by a UCI engine (e.g. Stockfish) at `rescore_nodes` and takes its
score. With `opponent` a UCI engine at `opponent_nodes` (or `opponent_depth`, for an engine
that ignores `go nodes`: checked when a worker starts it) plays one side (White in odd games,
Black in even ones), so the positions are those games against another engine reach (our
network errs most on them); our search still scores every position.

Game g of a seed is seeded by (seed, g) alone. A task is a range of `task_games` games, run by
Dask's distributed scheduler: on a local cluster of `jobs` worker processes, or with
`scheduler` on a cluster started with ``dask scheduler`` and ``dask worker`` (any number of
machines; a worker's $BLACK_NUMBA_RESCORE names its labelling engine). Results travel back
to this process, which writes whole tasks in game order to ``DIR/datagen_s<seed>.txt``
(``.bng``) and records games, bytes and positions in ``.progress``: the file is the same bytes
whatever the number of workers, a worker lost mid-task costs only that task (run again
elsewhere), and a stopped run resumes where it stopped. verify() makes the first games
again and compares them byte for byte. The default folder, ``$BLACK_NUMBA_DATA`` else
``~/.local/share/black_numba/datagen``, is outside every cache. Commits up to d667002 wrote
one file per job (``datagen_s<seed>_j<job>.txt``, game g of job j seeded by (seed, j, g)); the
trainer still reads them, and that commit makes them again (docs/training.md).
"""
import contextlib
import itertools
import json
import math
import os
import random
import shutil
import signal
import sys
import time
import uuid
from dataclasses import dataclass
from typing import Optional

from black_numba.cluster import (close as cluster_close, connect as cluster_connect,
                                 result as task_result)
from black_numba.training.refengine import EngineError, RefEngine
from black_numba.uci_client import nodes_ignored

OPENING_PLIES = (8, 12)          # random plies before the engine plays
MIN_PLY = 16                     # positions before this ply are not kept
WIN_SCORE, WIN_PLIES = 1500, 6   # adjudicated win
DRAW_SCORE, DRAW_PLIES, DRAW_AFTER = 8, 12, 80
MAX_PLIES = 400
OPENING_MAX_SCORE = 400          # an opening the engine scores beyond this is replayed
SEARCH_HASH_MB = 16              # each worker's table, cleared every game
# The default recipe, the winner of the recipe comparison (docs/training.md#recipes): games at
# 2,000 nodes a move labelled by that search's own score, no reference engine
PLAY_NODES = 2000
TASK_GAMES = 8                   # games a task (about 4 s at 2,000 nodes with Stockfish labels)
TASKS_IN_FLIGHT = 4              # tasks submitted ahead, per worker thread
RESCORE_ENV = "BLACK_NUMBA_RESCORE"
OPPONENT_ENV = "BLACK_NUMBA_OPPONENT"
OPPONENT_NODES = 1000            # the opponent's nodes a move (Stockfish: about our 2,000)
RESCORE_NODES = 5000             # the labelling engine's nodes a position
DEFAULT_JOBS = max(1, os.cpu_count() or 1)   # a local cluster's workers: one a core
DATA_ENV = "BLACK_NUMBA_DATA"


def default_dir():
    """$BLACK_NUMBA_DATA, else $XDG_DATA_HOME/black_numba/datagen (~/.local/share): data is
    kept apart from the caches, which are pruned."""
    base = os.environ.get(DATA_ENV)
    if base:
        return base
    return os.path.join(os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"),
                        "black_numba", "datagen")


def _paths(out, seed, fmt="text"):
    stem = os.path.join(out, f"datagen_s{seed}")
    return stem + (".bng" if fmt == "games" else ".txt"), stem + ".progress"


MANIFEST = "manifest.json"


def _commit():
    """The checkout's commit (git), else the package's source hash."""
    from black_numba.cache import source_hash
    from black_numba.provenance import git_commit
    return git_commit(mark_changes=True) or "source " + source_hash()


def write_manifest(out, argv):
    """manifest.json in out: every data file with its positions, bytes and SHA-256, and the
    commit and command of each run that wrote to it (kept across runs)."""
    from black_numba.provenance import file_sha256
    path = os.path.join(out, MANIFEST)
    try:
        with open(path) as f:
            old = json.load(f)
    except (OSError, ValueError):
        old = {}
    files = {}
    for name in sorted(os.listdir(out)):
        if not name.startswith("datagen_") or not name.endswith((".txt", ".bng")):
            continue
        _, _, positions = _read_progress(os.path.join(out, name.rsplit(".", 1)[0] + ".progress"))
        files[name] = {"positions": positions, "bytes": os.path.getsize(os.path.join(out, name)),
                       "sha256": file_sha256(os.path.join(out, name))}
    runs = old.get("runs", []) + [{"commit": _commit(), "command": ["black-numba"] + argv,
                                   "ended": time.strftime("%Y-%m-%d %H:%M:%S UTC",
                                                          time.gmtime())}]
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"files": files, "runs": runs}, f, indent=1)
    os.replace(tmp, path)
    return path


def _read_progress(path):
    """(games, bytes, positions) a progress file records, zeros when there is none."""
    p = _read_progress_full(path)
    return int(p.get("games", 0)), int(p.get("bytes", 0)), int(p.get("positions", 0))


def play_game(searcher, nodes, rng, chess, tables, opponent=None):
    """One game: (kept positions as (fen, white score), result from White's view, start FEN,
    [(move, index of its position in kept or -1)] for every ply played). With opponent, a
    tuple (RefEngine, its colour, its limit a move (nodes or a go line), the game's number),
    the opponent chooses that colour's moves; our search still scores (and filters) every position."""
    from black_numba.search.limits import Limits
    from black_numba.board.move import is_quiet
    from black_numba.board.movegen import parse_uci_move
    from black_numba.board.position import from_fen, make_move, move_to_uci
    while True:
        board = chess.Board()
        for _ in range(rng.randint(*OPENING_PLIES)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if board.is_game_over():
            continue
        pos = from_fen(board.fen())
        searcher.clear()
        searcher.prepare()
        _, _, score = searcher.search(pos, Limits(nodes=nodes))
        if abs(score) <= OPENING_MAX_SCORE:
            break
    start = board.fen()
    plies = []
    played = []                 # the game's moves as UCI texts, for the opponent
    kept = []
    win_run = draw_run = 0
    result = None
    while result is None:
        if board.is_checkmate():
            result = 0.0 if board.turn == chess.WHITE else 1.0
            break
        if board.is_stalemate() or board.is_insufficient_material() or \
                board.halfmove_clock >= 100 or board.is_repetition(3) or board.ply() >= MAX_PLIES:
            result = 0.5
            break
        searcher.prepare()
        best, _, score = searcher.search(pos, Limits(nodes=nodes))
        white = score if board.turn == chess.WHITE else -score
        mate = abs(score) >= 30000
        quiet = is_quiet(best)
        keep = board.ply() >= MIN_PLY and not board.is_check() and quiet and not mate
        if opponent is not None and board.turn == opponent[1]:
            # the opponent's move (a search of the whole game, so it sees repetitions)
            engine, _, opp_limit, game = opponent
            best = parse_uci_move(pos, engine.bestmove(start, played, opp_limit, game))
        plies.append((int(best), len(kept) if keep else -1))
        if keep:
            kept.append((board.fen(), white))
        win_run = win_run + 1 if abs(score) >= WIN_SCORE else 0
        draw_run = draw_run + 1 if abs(score) <= DRAW_SCORE and board.ply() >= DRAW_AFTER else 0
        if win_run >= WIN_PLIES:
            result = 1.0 if white > 0 else 0.0
        elif draw_run >= DRAW_PLIES:
            result = 0.5
        make_move(tables, pos, best)
        played.append(move_to_uci(best))
        board.push(chess.Move.from_uci(played[-1]))
    return kept, result, start, plies


def _rescore(engine, kept, nodes, game):
    """Kept positions with the reference engine's scores from White's view, None for a mate
    score (such a position is then dropped). A new game id sends ucinewgame, so the scores of
    a game do not depend on the games before it (a resumed run rescores as a fresh one)."""
    out = []
    for fen, _ in kept:
        sc = engine.score(fen, nodes, game)
        out.append((fen, None if sc is None else sc if fen.split()[1] == "w" else -sc))
    return out


def _encode(fmt, kept, result, start, plies):
    """A finished game's bytes: the text lines of its kept positions, or the whole game
    (gamefile.py) with a skip mark on every position not kept."""
    if fmt == "games":
        from black_numba.training.gamefile import encode_game
        return encode_game(start, [(m, kept[i][1] if i >= 0 else None) for m, i in plies],
                           result)
    return "".join(f"{fen} | {sc} | {result:.1f}\n" for fen, sc in kept
                   if sc is not None).encode()


def code_hash():
    """SHA-256 (16 hex) of the package's Python sources and shipped networks, by name and
    content: workers with equal hashes play equal games."""
    import hashlib
    from black_numba.cache import PACKAGE_DIR, hash_sources
    h = hashlib.sha256()
    hash_sources(h, PACKAGE_DIR, (".py", ".bnn"))
    return h.hexdigest()[:16]


_WORKER = {}     # per worker process: the searcher and labelling engine, kept across tasks


def _labeller_path(name):
    """The labelling engine on this worker: $BLACK_NUMBA_RESCORE (a worker setting, since
    machines install engines in different places), else the client's --rescore."""
    path = os.environ.get(RESCORE_ENV) or name
    return shutil.which(path) or path


def _opponent_path(name):
    """The opponent engine on this worker: $BLACK_NUMBA_OPPONENT, else the client's
    --opponent."""
    path = os.environ.get(OPPONENT_ENV) or name
    return shutil.which(path) or path


def _worker_state(conf, net):
    """This process's (searcher, labelling engine or None), made on its first task."""
    import atexit
    from black_numba.evaluation import netfile, nnue
    from black_numba.search.driver import Searcher
    key = (conf["eval"], conf["net_sha"], conf["rescore"], conf.get("opponent"),
           conf.get("opponent_depth"))
    if _WORKER.get("key") != key:
        for name in ("engine", "opponent"):
            if _WORKER.get(name) is not None:
                _WORKER[name].close()
        searcher = Searcher(SEARCH_HASH_MB)
        searcher.set_network(nnue.NO_NET if conf["eval"] == "tapered"
                             else netfile.loads(net, "the client's network")[0])
        engine = None
        if conf["rescore"]:
            engine = RefEngine(_labeller_path(conf["rescore"]), {"Threads": 1, "Hash": 16})
            atexit.register(engine.close)
        opponent = None
        if conf.get("opponent"):
            # its own process: the labeller's table and game marks must not touch its play
            opponent = RefEngine(_opponent_path(conf["opponent"]), {"Threads": 1, "Hash": 16},
                                 analyse=False)
            atexit.register(opponent.close)
            if not conf.get("opponent_depth"):
                _check_nodes_honoured(opponent, conf["opponent_nodes"])
        _WORKER.update(key=key, searcher=searcher, engine=engine, opponent=opponent,
                       code=code_hash())
    return _WORKER["searcher"], _WORKER["engine"]


def _check_nodes_honoured(opponent, nodes):
    """EngineError where the opponent searches far fewer nodes than `go nodes` asks (it
    ignores the limit, and every game would be against its depth-1 moves)."""
    seen = opponent.searched_nodes(nodes)
    if nodes_ignored(seen, nodes):
        opponent.close()
        raise EngineError(f"{opponent.name} searched {seen} nodes at `go nodes {nodes}`: it "
                          f"ignores the node limit; give --opponent-depth instead")


def opponent_limit(conf):
    """The opponent's limit a move for RefEngine: a depth's go line, else its nodes."""
    depth = conf.get("opponent_depth")
    return f"go depth {depth}" if depth else conf["opponent_nodes"]


def play_task(seed, first, count, conf, net):
    """A Dask task: games first..first+count-1 of a seed, each seeded by (seed, its number)
    alone, so a task gives the same bytes on any worker. Returns the bytes in game order,
    the positions kept, and the worker's code hash and labelling engine (checked by the
    client)."""
    import chess
    from black_numba.board.bitboard import TABLES
    searcher, engine = _worker_state(conf, net)
    parts = []
    positions = 0
    for g in range(first, first + count):
        rng = random.Random(f"{seed}-{g}")
        opponent = None
        if _WORKER["opponent"] is not None:
            # the opponent plays White in odd games and Black in even ones
            _WORKER["opponent"].game = None
            opponent = (_WORKER["opponent"], g % 2 == 1, opponent_limit(conf), g)
        kept, result, start, plies = play_game(searcher, conf["nodes"], rng, chess, TABLES,
                                               opponent)
        if engine is not None:
            # ucinewgame before every game, also a game this worker played before (a task
            # cancelled mid-run by an earlier client goes on and may repeat the next one's)
            engine.game = None
            kept = _rescore(engine, kept, conf["rescore_nodes"], g)
        parts.append(_encode(conf["format"], kept, result, start, plies))
        positions += sum(1 for _, sc in kept if sc is not None)
    return {"data": b"".join(parts), "positions": positions, "code": _WORKER["code"],
            "labeller": engine.name if engine is not None else None,
            "opponent": (_WORKER["opponent"].name if _WORKER["opponent"] is not None
                         else None)}


class DatagenError(RuntimeError):
    """A task failed for a reason that running it again will not mend."""


def _generate(client, conf, net, seed, done_games, task_games, stop, write, needed=None):
    """Tasks from game done_games on, written in game order by write(result) until stop()
    says enough; results that arrive out of order wait. needed() (if given) says about how
    many more tasks the run wants, or None before it can tell: no more are in flight than
    that (one a worker thread before it can tell), since games in flight when the run ends
    are thrown away. A lost worker's task runs again
    elsewhere (Dask's scheduler), and a task the cluster cancels or forgets (a client paused
    past the scheduler's patience, a task that killed its workers) is submitted again: none
    is lost, none is written twice."""
    threads = max(1, sum(client.nthreads().values()))
    window = max(2, TASKS_IN_FLIGHT * threads)

    def send_net():
        # a new key each time: a network lost with its workers is sent again, not looked up
        return client.scatter(net, broadcast=True, hash=False) if net is not None else None

    net_f = send_net()
    pending = {}

    def submit(t):
        return client.submit(play_task, seed, t * task_games, task_games, conf, net_f,
                             pure=False, key=f"datagen-s{seed}-t{t}-{uuid.uuid4().hex}")

    first_task = done_games // task_games
    nxt = first_task
    code = labeller = None
    try:
        for t in itertools.count(first_task):
            if stop():
                return
            want = needed() if needed is not None else window
            limit = min(window, max(1, threads if want is None else want))
            while len(pending) < limit:
                pending[nxt] = submit(nxt)
                nxt += 1
            def resubmit(t=t):
                # the workers that held the network may be gone ("lost dependencies"), or
                # every task that needs it fails the same way (a loss is rare)
                nonlocal net_f
                net_f = send_net()
                pending[t] = submit(t)
                return pending[t]
            res = task_result(pending[t], resubmit, f"task {t} (games {t * task_games}..)",
                              DatagenError, "datagen")
            del pending[t]
            if code is None:
                code, labeller = res["code"], res["labeller"]
            if (res["code"], res["labeller"]) != (code, labeller):
                raise DatagenError(
                    f"workers differ: code {code} labelled by {labeller!r} against code "
                    f"{res['code']} labelled by {res['labeller']!r}; the same seed would not "
                    f"give the same games (install the same black_numba and labeller on all)")
            write(res)
    finally:
        client.cancel(list(pending.values()))


@dataclass
class DatagenConfig:
    """A datagen run: `positions` in all at `nodes` a move (the search's score is the label
    without `rescore`), games seeded by `seed`, written into the folder `out` (None: the
    default_dir()). evaluation: "nnue" (the network in `evalfile`, None the shipped one) or
    "tapered"; rescore: a UCI engine that labels every kept position at `rescore_nodes`;
    opponent: a UCI engine that plays one side of every game at `opponent_nodes`, or at
    `opponent_depth` where given (White in odd
    games, Black in even ones); format: "text" lines or whole "games" (gamefile.py);
    scheduler: a Dask scheduler's address, else a local cluster of `jobs` workers;
    task_games: games a task (a resumed run keeps its own); first_game: a new run's first
    game (a multiple of task_games)."""
    positions: int = 1_000_000
    nodes: int = PLAY_NODES
    jobs: int = DEFAULT_JOBS
    seed: int = 1
    out: Optional[str] = None
    evaluation: str = "nnue"
    evalfile: Optional[str] = None
    rescore: Optional[str] = None
    rescore_nodes: int = RESCORE_NODES
    opponent: Optional[str] = None
    opponent_nodes: int = OPPONENT_NODES
    opponent_depth: Optional[int] = None
    format: str = "text"
    scheduler: Optional[str] = None
    task_games: int = TASK_GAMES
    first_game: int = 0


@dataclass
class DatagenRun:
    """What a generate() run did: its data file, the positions in it now, those this run
    added, its seconds; interrupted by a stop signal (the finished tasks are written), or the
    error that stopped it short (a task failed, workers that differ)."""
    path: str
    positions: int
    new: int
    seconds: float
    interrupted: bool = False
    error: Optional[str] = None


def generate(config, command=()):
    """Play and write games until the folder's file holds config.positions positions,
    resuming a run stopped before; progress and a summary go to stderr, and the folder's
    manifest records the run with `command` (its arguments after `black-numba`). A stop
    signal (SIGTERM, SIGINT) ends the run after the tasks written so far. ValueError (or
    OSError) before any game is played for a network that cannot be read or a folder whose
    run is another's (another first game, network or opponent)."""
    c = config
    out = c.out or default_dir()
    os.makedirs(out, exist_ok=True)
    data_path, prog = _paths(out, c.seed, c.format)
    p = _read_progress_full(prog)
    task_games = p.get("task_games") or c.task_games
    conf, net = _conf(c)
    if p and c.first_game and c.first_game != p.get("first_game", 0):
        raise ValueError(f"{prog} is a run from game {p.get('first_game', 0)}; --first-game "
                         f"{c.first_game} needs another folder")
    if p.get("network") and p["network"] != conf["network"]:
        raise ValueError(f"{prog} is a run played by the network {p['network'][:8]}; this one "
                         f"plays with {conf['network'][:8]}: give its --evalfile or another "
                         f"folder")
    # a run at nodes records [engine, nodes] (as before depths), one at a depth [engine, "depth D"]
    opponent = ([c.opponent, f"depth {c.opponent_depth}" if c.opponent_depth
                 else c.opponent_nodes] if c.opponent else None)
    if p and p.get("opponent") != opponent:
        raise ValueError(f"{prog} is a run against {p.get('opponent') or 'no opponent'}; this "
                         f"one plays against {opponent or 'no opponent'}: another folder")
    first_game = p.get("first_game", 0) if p else c.first_game
    games = p.get("games", first_game)
    size, count = p.get("bytes", 0), p.get("positions", 0)
    with open(data_path, "ab") as f:
        f.truncate(size)                                    # a partly written task is cut off
        if c.format == "games" and size == 0:
            from black_numba.training.gamefile import GAME_MAGIC
            f.write(GAME_MAGIC)
            size = f.tell()
    where = c.scheduler or f"a local cluster of {max(1, c.jobs)} workers"
    print(f"datagen: {c.positions:,} positions at {c.nodes} nodes a move, evaluation "
          f"{c.evaluation}, seed {c.seed}, {task_games} games a task on {where}, into {out}"
          + (f", labelled by {c.rescore} at {c.rescore_nodes} nodes" if c.rescore else "")
          + (f", against {c.opponent} at " + (f"depth {c.opponent_depth}" if c.opponent_depth
                                              else f"{c.opponent_nodes} nodes")
             if c.opponent else ""),
          file=sys.stderr)
    from tqdm import tqdm
    t0 = time.time()
    start_count = count
    bar = None
    state = {"games": games, "bytes": size, "positions": count}
    # the commit and command of every run that wrote here, for `black-numba data pack`
    run_info = {"commit": _commit(), "command": ["black-numba"] + list(command)}
    runs = p.get("runs", []) + ([run_info] if run_info not in p.get("runs", []) else [])

    def write(res):
        with _signals_deferred():
            with open(data_path, "ab") as f:
                f.write(res["data"])
                state["bytes"] = f.tell()
            state["games"] += task_games
            state["positions"] += res["positions"]
            tmp = prog + ".tmp"
            with open(tmp, "w") as f:
                json.dump(dict(state, task_games=task_games, first_game=first_game,
                               labeller=res["labeller"], code=res["code"], opponent=opponent,
                               opponent_name=res.get("opponent"),
                               network=conf["network"], runs=runs), f)
            os.replace(tmp, prog)
        if bar is not None:
            bar.update(min(state["positions"], c.positions) - bar.n)

    def needed():
        # tasks still wanted at this run's positions a task so far (None before the first)
        written = (state["games"] - games) // task_games
        if written == 0:
            return None
        per_task = max(1.0, (state["positions"] - start_count) / written)
        return math.ceil((c.positions - state["positions"]) / per_task)

    interrupted, error = False, None
    client = cluster = None
    _stop_on_signals()
    try:
        client, cluster = cluster_connect(c.scheduler, c.jobs)
        bar = tqdm(total=c.positions, initial=min(count, c.positions), unit="pos",
                   file=sys.stderr, smoothing=0.05)
        _generate(client, conf, net, c.seed, games, task_games,
                  lambda: state["positions"] >= c.positions, write, needed)
    except KeyboardInterrupt:
        interrupted = True
        print("datagen: interrupted; every finished task is written", file=sys.stderr)
    except (DatagenError, EngineError, OSError, TimeoutError) as e:
        error = str(e)
        print(f"datagen: {e}", file=sys.stderr)
    except Exception as e:  # a task's own error, raised again by Dask in the client
        error = f"a task failed: {type(e).__name__}: {e}"
        print(f"datagen: {error}", file=sys.stderr)
    finally:
        if bar is not None:
            bar.close()
        cluster_close(client, cluster)
    dt = time.time() - t0
    new = state["positions"] - start_count
    print(f"datagen: {state['positions']:,} positions in {data_path} ({new:,} new in "
          f"{dt:.0f} s, {new / max(dt, 1e-9) * 3600:,.0f} an hour)", file=sys.stderr)
    write_manifest(out, list(command))
    return DatagenRun(data_path, state["positions"], new, dt, interrupted, error)


# A stop signal that lands while a task is being written waits for the write's end
_SIGNALS = {"defer": False, "pending": False}


def _interrupt(signum, frame):
    if _SIGNALS["defer"]:
        _SIGNALS["pending"] = True
        return
    raise KeyboardInterrupt


@contextlib.contextmanager
def _signals_deferred():
    """A task's data and its progress are written as one: a stop signal (SIGTERM, SIGINT)
    arriving between them is raised once both are on disk, so that a stopped run's files
    agree (a resume would cut the extra bytes, but `data pack` or a reader may come first)."""
    _SIGNALS.update(defer=True, pending=False)
    try:
        yield
    finally:
        _SIGNALS["defer"] = False
    if _SIGNALS["pending"]:
        _SIGNALS["pending"] = False
        raise KeyboardInterrupt


def _stop_on_signals():
    """SIGTERM (and SIGINT, which a shell ignores in commands it starts in the background)
    stop a run as Ctrl-C does: the tasks finished so far are written, the manifest too."""
    import threading
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, _interrupt)


def _conf(config):
    """What every task needs to play and label its games, and the network's bytes (sent to
    the workers once, so that they need no copy of the file)."""
    import hashlib
    from black_numba.evaluation import netfile
    net = None
    if config.evaluation != "tapered":
        path = config.evalfile or netfile.DEFAULT_NET
        with open(path, "rb") as f:
            net = f.read()
        header = netfile.loads(net, path)[1]               # a bad file stops us here
    conf = {"nodes": config.nodes, "eval": config.evaluation, "rescore": config.rescore,
            "rescore_nodes": config.rescore_nodes, "format": config.format,
            "opponent": config.opponent, "opponent_nodes": config.opponent_nodes,
            "opponent_depth": config.opponent_depth,
            "net_sha": hashlib.sha256(net).hexdigest() if net else None,
            # the weights hash of the network that plays, for the progress file and the
            # chunks' manifest ("tapered" for the hand-written evaluation)
            "network": header["weights_sha256"] if net else "tapered"}
    return conf, net


def verify(config, games):
    """The first `games` games of the folder's file made again (on the same cluster
    settings) and compared byte for byte: True when identical. The manifest's commits are
    printed beside this checkout's, since only the recorded code makes the same games.
    ValueError where the folder holds no run of the seed or the network cannot be read."""
    c = config
    out = c.out or default_dir()
    data_path, prog = _paths(out, c.seed, c.format)
    p = _read_progress_full(prog)
    if not p:
        raise ValueError(f"no run of seed {c.seed} in {out} to verify")
    task_games = p["task_games"]
    first = p.get("first_game", 0)
    want = min(-(-games // task_games), (p["games"] - first) // task_games)
    try:
        with open(os.path.join(out, MANIFEST)) as f:
            commits = sorted({r["commit"] for r in json.load(f).get("runs", [])})
    except (OSError, ValueError):
        commits = []
    print(f"datagen: verifying games {first}.. ({want * task_games}) of {data_path} (made at "
          f"{', '.join(commits) or 'an unrecorded commit'}; this checkout is {_commit()}, "
          f"code {code_hash()}, the file's {p.get('code')})", file=sys.stderr)
    conf, net = _conf(c)
    parts = []
    client = cluster = None
    try:
        client, cluster = cluster_connect(c.scheduler, c.jobs)
        _generate(client, conf, net, c.seed, first, task_games,
                  lambda: len(parts) >= want, lambda res: parts.append(res["data"]),
                  lambda: want - len(parts))
    finally:
        cluster_close(client, cluster)
    made = b"".join(parts)
    if c.format == "games":
        from black_numba.training.gamefile import GAME_MAGIC
        made = GAME_MAGIC + made
    with open(data_path, "rb") as f:
        have = f.read(len(made))
    if have == made:
        print(f"datagen: identical: {len(made):,} bytes, {want * task_games} games",
              file=sys.stderr)
        return True
    at = next(i for i, (a, b) in enumerate(zip(have, made)) if a != b) \
        if len(have) == len(made) else min(len(have), len(made))
    print(f"datagen: DIFFERENT from byte {at:,} on (of {len(made):,} remade)", file=sys.stderr)
    return False


def _read_progress_full(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}
