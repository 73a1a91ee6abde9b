"""`black-numba label GAMES.pgn [MORE.pgn ...] --out labels.txt [--engine
/usr/games/stockfish] [--depth 8] [--jobs 2] [--limit N]`: the arguments checked here, the
labels made by label.label_positions."""
import os
import sys
import time

from black_numba.training.label import label_positions


def add_arguments(ap):
    """The `black-numba label` command line."""
    ap.add_argument("pgn", nargs="+", help="games to take positions from")
    ap.add_argument("--out", required=True, help="labelled positions are written here")
    ap.add_argument("--engine", default="/usr/games/stockfish", help="reference UCI engine")
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="label at most this many positions")


def run(args):
    """Label the positions; returns the exit code (2 for bad arguments)."""
    if not (os.path.isfile(args.engine) and os.access(args.engine, os.X_OK)):
        print(f"black-numba label: engine {args.engine!r} is not an executable file",
              file=sys.stderr)
        return 2
    if args.depth < 1 or args.jobs < 1 or args.limit < 0:
        print("black-numba label: --depth and --jobs must be at least 1, --limit not negative",
              file=sys.stderr)
        return 2
    t0 = time.time()
    searched, lines = label_positions(args.pgn, args.engine, args.depth, args.jobs, args.limit)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{searched} positions searched, {len(lines)} kept, {time.time() - t0:.0f} s")
    return 0
