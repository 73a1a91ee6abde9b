"""`black-numba tune GAMES.pgn ... [--labels [--mix M]] [--out weights.py] [--lam L]
[--rounds R] [--steps S]`: the arguments here, the tuning in texel.tune."""
import sys

from black_numba.training import texel


def add_arguments(ap):
    """The `black-numba tune` command line."""
    ap.add_argument("pgn", nargs="+", help="games, or with --labels labelled positions")
    ap.add_argument("--labels", action="store_true",
                    help="inputs are `black-numba label` files, not PGN")
    ap.add_argument("--mix", type=float, default=1.0,
                    help="with --labels: weight of the engine score against the game result")
    ap.add_argument("--out",
                    help="write the weights module here (black_numba/evaluation/weights.py)")
    ap.add_argument("--lam", type=float, default=2e-7, help="L2 pull towards current weights")
    ap.add_argument("--rounds", type=int, default=2, help="linearise-and-minimise rounds")
    ap.add_argument("--steps", type=int, default=1500)


def run(args):
    """Tune; returns the exit code (2 when the inputs hold no usable position)."""
    try:
        weights = texel.tune(args.pgn, args.labels, args.mix, args.lam, args.rounds,
                             args.steps)
    except ValueError as e:
        print(f"black-numba tune: {e}", file=sys.stderr)
        return 2
    if args.out:
        texel.write_module(weights, args.out)
        print("wrote", args.out)
    return 0
