"""`black-numba datagen`: training positions from the engine playing itself.

    black-numba datagen [--positions 1000000] [--nodes 5000] [--jobs 2] [--seed 1]
        [--out DIR] [--eval nnue|tapered] [--evalfile NET] [--rescore ENGINE]
        [--rescore-nodes 5000]

Each job plays games at a fixed node count a move (one thread, a fresh 16 MB table a game,
the shipped network or --evalfile's, or the tapered evaluation)
from a random opening of 8-12 uniformly random plies, and appends the game's kept positions to
``DIR/datagen_s<seed>_j<job>.txt`` as ``<FEN> | <score> | <result>`` (centipawns and result
from White's view, the format ``black-numba train`` reads). Kept are quiet positions past ply
16: side to move not in check, best move neither a capture nor a promotion, no mate score.
Games are adjudicated as won at |score| >= 1500 for 6 plies, drawn at |score| <= 8 for 12
plies after ply 80 and at ply 400, as in the data of record. Game g of a job is seeded by
(seed, job, g): a run is reproducible, and a stopped run resumes where it stopped (each job's
``.progress`` file records the games and bytes written; a partly written game is cut off).
With --rescore every kept position is searched again by a UCI engine (e.g. Stockfish) at
--rescore-nodes and takes its score. The default folder is in the user cache
(``~/.cache/black_numba/black_numba-data/datagen``, beside the compile caches, which
are pruned by name and never touch it), outside the repository.
"""
import json
import multiprocessing as mp
import os
import random
import sys
import time

from black_numba.cache import base_dir
from black_numba.refengine import RefEngine

OPENING_PLIES = (8, 12)          # random plies before the engine plays
MIN_PLY = 16                     # positions before this ply are not kept
WIN_SCORE, WIN_PLIES = 1500, 6   # adjudicated win
DRAW_SCORE, DRAW_PLIES, DRAW_AFTER = 8, 12, 80
MAX_PLIES = 400
OPENING_MAX_SCORE = 400          # an opening the engine scores beyond this is replayed


def default_dir():
    return os.path.join(base_dir(), "black_numba-data", "datagen")


def _paths(out, seed, job, fmt="text"):
    stem = os.path.join(out, f"datagen_s{seed}_j{job}")
    return stem + (".bng" if fmt == "games" else ".txt"), stem + ".progress"


MANIFEST = "manifest.json"


def _commit():
    """The checkout's commit (git), else the package's source hash."""
    import subprocess
    from black_numba.cache import PACKAGE_DIR, source_hash
    try:
        r = subprocess.run(["git", "-C", PACKAGE_DIR, "rev-parse", "HEAD"], capture_output=True,
                           text=True, timeout=10)
        if r.returncode == 0 and r.stdout.strip():
            dirty = subprocess.run(["git", "-C", PACKAGE_DIR, "status", "--porcelain", "--",
                                    "."], capture_output=True, text=True, timeout=10).stdout
            return r.stdout.strip() + ("+changes" if dirty.strip() else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return "source " + source_hash()


def write_manifest(out, argv):
    """manifest.json in out: every data file with its positions, bytes and SHA-256, and the
    commit and command of each run that wrote to it (kept across runs)."""
    import hashlib
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
        h = hashlib.sha256()
        with open(os.path.join(out, name), "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _, _, positions = _read_progress(os.path.join(out, name.rsplit(".", 1)[0] + ".progress"))
        files[name] = {"positions": positions, "bytes": os.path.getsize(os.path.join(out, name)),
                       "sha256": h.hexdigest()}
    runs = old.get("runs", []) + [{"commit": _commit(), "command": ["black-numba"] + argv,
                                   "ended": time.strftime("%Y-%m-%d %H:%M:%S UTC",
                                                          time.gmtime())}]
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"files": files, "runs": runs}, f, indent=1)
    os.replace(tmp, path)
    return path


def _read_progress(path):
    try:
        with open(path) as f:
            p = json.load(f)
        return int(p["games"]), int(p["bytes"]), int(p["positions"])
    except (OSError, ValueError, KeyError):
        return 0, 0, 0


def play_game(searcher, nodes, rng, chess, tables):
    """One game: (kept positions as (fen, white score), result from White's view, start FEN,
    [(move, index of its position in kept or -1)] for every ply played)."""
    from black_numba.limits import Limits
    from black_numba.position import CAPTURE, PROMO, from_fen, make_move, move_to_uci
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
        quiet = not (best >> 12) & (CAPTURE | PROMO)
        keep = board.ply() >= MIN_PLY and not board.is_check() and quiet and not mate
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
        board.push(chess.Move.from_uci(move_to_uci(best)))
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
        from black_numba.gamefile import encode_game
        return encode_game(start, [(m, kept[i][1] if i >= 0 else None) for m, i in plies],
                           result)
    return "".join(f"{fen} | {sc} | {result:.1f}\n" for fen, sc in kept
                   if sc is not None).encode()


def _job(job, args, queue):
    """Worker process: play this job's games until its share of positions is reached."""
    import chess
    from black_numba.bitboard import TABLES
    from black_numba.engine import Searcher
    fmt = args.get("format", "text")
    text, prog = _paths(args["out"], args["seed"], job, fmt)
    games, size, count = _read_progress(prog)
    with open(text, "ab") as f:
        f.truncate(size)
        if fmt == "games" and size == 0:
            from black_numba.gamefile import GAME_MAGIC
            f.write(GAME_MAGIC)
    from black_numba.bench import network
    searcher = Searcher(16)
    searcher.set_network(network(args["eval"], args["evalfile"]))
    engine = None
    if args["rescore"]:
        engine = RefEngine(args["rescore"], {"Threads": 1, "Hash": 16})
    queue.put((job, count, 0))
    parent = os.getppid()
    try:
        # a worker whose parent is gone (killed, interrupted) stops after its current game
        while count < args["share"] and os.getppid() == parent:
            rng = random.Random(f"{args['seed']}-{job}-{games}")
            kept, result, start, plies = play_game(searcher, args["nodes"], rng, chess, TABLES)
            if engine is not None:
                kept = _rescore(engine, kept, args["rescore_nodes"], games)
            with open(text, "ab") as f:
                f.write(_encode(fmt, kept, result, start, plies))
                f.flush()
                size = f.tell()
            games += 1
            count += sum(1 for _, sc in kept if sc is not None)
            tmp = prog + ".tmp"
            with open(tmp, "w") as f:
                json.dump({"games": games, "bytes": size, "positions": count}, f)
            os.replace(tmp, prog)
            queue.put((job, count, 1))
    finally:
        if engine is not None:
            engine.close()
    queue.put((job, None, 0))


def run(args):
    from tqdm import tqdm
    out = args.out or default_dir()
    os.makedirs(out, exist_ok=True)
    jobs = max(1, args.jobs)
    share = -(-args.positions // jobs)
    conf = {"out": out, "seed": args.seed, "nodes": args.nodes, "share": share,
            "rescore": args.rescore, "rescore_nodes": args.rescore_nodes, "eval": args.eval,
            "evalfile": args.evalfile, "format": args.format}
    print(f"datagen: {args.positions:,} positions in {jobs} jobs at {args.nodes} nodes a move, "
          f"evaluation {args.eval}, seed {args.seed}, into {out}" + (f", rescored by {args.rescore}" if args.rescore
                                             else ""), file=sys.stderr)
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_job, args=(j, conf, queue), daemon=True) for j in range(jobs)]
    for p in procs:
        p.start()
    counts = [0] * jobs
    live = jobs
    t0 = time.time()
    new = 0
    bar = tqdm(total=share * jobs, unit="pos", file=sys.stderr, smoothing=0.05)
    try:
        while live:  # Ctrl-C: the finally below stops the workers (each keeps whole games)
            try:
                job, count, game = queue.get(timeout=5)
            except Exception:
                if not any(p.is_alive() for p in procs):
                    break
                continue
            if count is None:
                live -= 1
                continue
            if game:
                new += count - counts[job]
            counts[job] = count
            bar.n = min(sum(counts), bar.total)
            bar.refresh()
    finally:
        bar.close()
        # jobs that reported their end are only exiting (slowly on a loaded machine): wait;
        # after an interruption they get a second, then SIGTERM mid-game (that game's lines
        # were never written)
        for p in procs:
            p.join(timeout=None if live == 0 else 1)
        for p in procs:
            if p.is_alive():
                p.terminate()
                p.join(timeout=10)
    dt = time.time() - t0
    print(f"datagen: {sum(counts):,} positions in {out} ({new:,} new in {dt:.0f} s, "
          f"{new / max(dt, 1e-9) * 3600:,.0f} an hour)", file=sys.stderr)
    write_manifest(out, sys.argv[1:])
    failed = [p.exitcode for p in procs if p.exitcode not in (0, None)]
    return 1 if failed else 0


def add_arguments(ap):
    ap.add_argument("--positions", type=int, default=1_000_000, help="positions in all")
    ap.add_argument("--nodes", type=int, default=5000, help="nodes a move")
    ap.add_argument("--jobs", type=int, default=max(1, os.cpu_count() or 1))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help=f"folder (default {default_dir()})")
    ap.add_argument("--eval", choices=("nnue", "tapered"), default="nnue",
                    help="evaluation the games are played with (default: the network)")
    ap.add_argument("--evalfile", help="network file (default: the shipped network)")
    ap.add_argument("--rescore", metavar="ENGINE", help="UCI engine that re-scores positions")
    ap.add_argument("--rescore-nodes", type=int, default=5000)
    ap.add_argument("--format", choices=("text", "games"), default="text",
                    help="text: 'FEN | score | result' lines of the kept positions (.txt); "
                         "games: whole games, about 4 bytes a position (.bng, gamefile.py)")
