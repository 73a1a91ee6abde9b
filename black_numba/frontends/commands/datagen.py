"""`black-numba datagen`: training positions from self-play at fixed nodes (datagen.py).

    black-numba datagen [--positions 1000000] [--nodes 2000] [--jobs 2] [--seed 1]
        [--out DIR] [--eval nnue|tapered] [--evalfile NET] [--rescore ENGINE]
        [--rescore-nodes 5000] [--format text|games] [--scheduler tcp://HOST:PORT]
        [--task-games 8] [--verify GAMES] [--opponent ENGINE]
        [--opponent-nodes 1000 | --opponent-depth D]

The arguments are checked here and made into a DatagenConfig for datagen.generate, or with
--verify datagen.verify.
"""
import sys

from black_numba.training import datagen
from black_numba.training.datagen import DatagenConfig

D = DatagenConfig         # the defaults are the config's


def add_arguments(ap):
    """The `black-numba datagen` command line."""
    ap.add_argument("--positions", type=int, default=D.positions, help="positions in all")
    ap.add_argument("--nodes", type=int, default=D.nodes,
                    help="nodes a move; without --rescore the search's score is the label")
    ap.add_argument("--jobs", type=int, default=D.jobs,
                    help="worker processes of the local cluster (not with --scheduler)")
    ap.add_argument("--seed", type=int, default=D.seed)
    ap.add_argument("--out", help=f"folder (default {datagen.default_dir()})")
    ap.add_argument("--eval", choices=("nnue", "tapered"), default=D.evaluation,
                    help="evaluation the games are played with (default: the network)")
    ap.add_argument("--evalfile", help="network file (default: the shipped network)")
    ap.add_argument("--rescore", metavar="ENGINE", help="UCI engine that re-scores positions")
    ap.add_argument("--rescore-nodes", type=int, default=D.rescore_nodes)
    ap.add_argument("--opponent", metavar="ENGINE",
                    help="UCI engine (e.g. Stockfish) that plays one side of every game, White "
                         "in odd games, Black in even ones; our search still labels every "
                         "position (or --rescore does)")
    ap.add_argument("--opponent-nodes", type=int, default=D.opponent_nodes,
                    help="the opponent's nodes a move")
    ap.add_argument("--opponent-depth", type=int, metavar="D",
                    help="the opponent's depth a move instead of nodes, for an engine that "
                         "ignores `go nodes` (Ethereal 12: checked when a worker starts it)")
    ap.add_argument("--format", choices=("text", "games"), default=D.format,
                    help="text: 'FEN | score | result' lines of the kept positions (.txt); "
                         "games: whole games, about 4 bytes a position (.bng, gamefile.py)")
    ap.add_argument("--scheduler", metavar="ADDRESS",
                    help="a Dask scheduler (tcp://HOST:PORT) whose workers play the games "
                         "(default: a local cluster of --jobs workers)")
    ap.add_argument("--task-games", type=int, default=D.task_games,
                    help="games a task (a resumed run keeps its own)")
    ap.add_argument("--first-game", type=int, default=D.first_game, metavar="G",
                    help="a new run's first game (a multiple of --task-games): continues a "
                         "seed whose earlier games are already in data/")
    ap.add_argument("--verify", type=int, metavar="GAMES",
                    help="make the first GAMES games of the folder's file again and compare")


def _bad_arguments(args):
    """What is wrong with the arguments, or None."""
    for name, value in (("--positions", args.positions), ("--nodes", args.nodes),
                        ("--jobs", args.jobs), ("--task-games", args.task_games),
                        ("--rescore-nodes", args.rescore_nodes),
                        ("--opponent-nodes", args.opponent_nodes)):
        if value < 1:
            return f"{name} must be at least 1, not {value}"
    if args.opponent_depth is not None and args.opponent_depth < 1:
        return f"--opponent-depth must be at least 1, not {args.opponent_depth}"
    if args.opponent_depth is not None and not args.opponent:
        return "--opponent-depth needs --opponent"
    if args.verify is not None and args.verify < 1:
        return f"--verify must be at least 1, not {args.verify}"
    if args.first_game < 0 or args.first_game % args.task_games:
        return (f"--first-game must be a multiple of --task-games ({args.task_games}), not "
                f"{args.first_game}")
    return None


def _error(text):
    print(f"datagen: {text}", file=sys.stderr)
    return 2


def run(args):
    """Generate, or with --verify compare; the exit code: 0 done (or stopped by a signal,
    the finished tasks written; with --verify: identical), 1 a failed run (or different
    games), 2 bad arguments, a folder of another run or a network that cannot be read."""
    bad = _bad_arguments(args)
    if bad:
        return _error(bad)
    config = DatagenConfig(
        positions=args.positions, nodes=args.nodes, jobs=args.jobs, seed=args.seed,
        out=args.out, evaluation=args.eval, evalfile=args.evalfile, rescore=args.rescore,
        rescore_nodes=args.rescore_nodes, opponent=args.opponent,
        opponent_nodes=args.opponent_nodes, opponent_depth=args.opponent_depth,
        format=args.format, scheduler=args.scheduler,
        task_games=args.task_games, first_game=args.first_game)
    if args.verify:
        try:
            return 0 if datagen.verify(config, args.verify) else 1
        except (OSError, ValueError) as e:                 # NetError is a ValueError
            return _error(e)
    try:
        import distributed  # noqa: F401
    except ImportError:
        return _error("needs Dask's scheduler: pip install 'dask[distributed]' "
                      "(or 'black-numba[datagen]')")
    try:
        done = datagen.generate(config, sys.argv[1:])
    except (OSError, ValueError) as e:                     # NetError is a ValueError
        return _error(e)
    return 1 if done.error else 0
