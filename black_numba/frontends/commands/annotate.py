"""`black-numba annotate`: every move of PGN games scored (annotation.py).

    black-numba annotate GAMES.pgn --out OUT.pgn [--nodes 100000 | --time S | --depth D]
        [--threads 1] [--hash 16] [--jobs 1] [--scheduler tcp://HOST:PORT] [--quiet]

The arguments are checked here (nothing is touched when they are bad) and the games
annotated by annotation.annotate_file.
"""
import os
import sys

import chess.engine

from black_numba.frontends.annotation import DEFAULT_NODES, DEFAULT_OPTIONS, annotate_file


def add_arguments(ap):
    """The `black-numba annotate` command line."""
    ap.add_argument("games", metavar="GAMES.pgn", help="the games to annotate")
    ap.add_argument("--out", required=True, metavar="OUT.pgn",
                    help="the annotated games; a stopped run resumes from it")
    lim = ap.add_mutually_exclusive_group()
    lim.add_argument("--nodes", type=int,
                     help=f"nodes a position (default {DEFAULT_NODES:,})")
    lim.add_argument("--time", type=float, metavar="SECONDS", help="seconds a position")
    lim.add_argument("--depth", type=int, help="depth a position")
    ap.add_argument("--threads", type=int, default=DEFAULT_OPTIONS["Threads"],
                    help="search threads (default 1)")
    ap.add_argument("--hash", type=int, default=DEFAULT_OPTIONS["Hash"], metavar="MB",
                    help="transposition table (default 16)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="games at once, as Dask tasks on a local cluster of this many worker "
                         "processes (default 1: in this process, no Dask)")
    ap.add_argument("--scheduler", metavar="ADDRESS",
                    help="a Dask scheduler (tcp://HOST:PORT) whose workers annotate the games")
    ap.add_argument("--quiet", "-q", action="store_true",
                    help="no progress bar (it shows only on a terminal)")


def _limit(args):
    """The search limit a position the arguments give."""
    if args.time is not None:
        return chess.engine.Limit(time=args.time)
    if args.depth is not None:
        return chess.engine.Limit(depth=args.depth)
    return chess.engine.Limit(nodes=args.nodes if args.nodes is not None else DEFAULT_NODES)


def _bad_arguments(args, options):
    """What is wrong with the arguments, or None."""
    for name, value in (("--nodes", args.nodes), ("--depth", args.depth), ("--jobs", args.jobs),
                        ("--threads", args.threads), ("--hash", args.hash)):
        if value is not None and value < 1:
            return f"{name} must be at least 1, not {value}"
    if args.time is not None and not args.time > 0:
        return f"--time must be above 0, not {args.time}"
    if not os.path.isfile(args.games):
        return f"{args.games}: no such file"
    if args.jobs > 1 or args.scheduler:
        try:
            import distributed  # noqa: F401
        except ImportError:
            return ("--jobs and --scheduler need Dask's scheduler: pip install "
                    "'dask[distributed]' (or 'black-numba[datagen]')")
    if os.path.exists(args.out) and os.path.samefile(args.games, args.out):
        return "--out must not be the input file"
    from black_numba.frontends.uci import OPTIONS
    for o in OPTIONS:
        v = options.get(o.name)
        if v is not None and o.min is not None and o.max is not None and not o.min <= v <= o.max:
            return f"{o.name} must be between {o.min} and {o.max}, not {v}"
    return None


def run(args):
    """Annotate; the exit code: 0 every game written, 1 a game skipped or a failed run, 2 bad
    arguments or an output file of another run, 130 stopped by a signal (the same command
    resumes)."""
    options = {"Threads": args.threads, "Hash": args.hash}
    bad = _bad_arguments(args, options)
    if bad:
        print(f"annotate: {bad}", file=sys.stderr)
        return 2
    try:
        done = annotate_file(args.games, args.out, _limit(args), options, jobs=args.jobs,
                             scheduler=args.scheduler, quiet=args.quiet)
    except ValueError as e:
        print(f"annotate: {e}", file=sys.stderr)
        return 2
    if done.interrupted:
        return 130
    return 1 if done.error or done.skipped else 0
