"""`black-numba tune`: the arguments here, the tuning below.

    black-numba tune GAMES.pgn ... [--labels [--mix M]] [--out weights.py] [--lam L]
        [--rounds R] [--steps S]                    Texel: the evaluation weights (texel.tune)
    black-numba tune --spsa LOG --openings FILE [--games N] [--params A,B] [--nodes N] ...
    black-numba tune --spsa LOG --write-params PARAMS_PY
                                                    SPSA: the search's numbers (arena/spsa.py)
"""
import json
import shlex
import sys

from black_numba.arena import spsa
from black_numba.search.params import SPSA_DEFAULT
from black_numba.training import texel


def add_arguments(ap):
    """The `black-numba tune` command line."""
    ap.add_argument("pgn", nargs="*", help="Texel: games, or with --labels labelled positions")
    t = ap.add_argument_group("Texel tuning of the evaluation weights")
    t.add_argument("--labels", action="store_true",
                   help="inputs are `black-numba label` files, not PGN")
    t.add_argument("--mix", type=float, default=1.0,
                   help="with --labels: weight of the engine score against the game result")
    t.add_argument("--out",
                   help="write the weights module here (black_numba/evaluation/weights.py)")
    t.add_argument("--lam", type=float, default=2e-7, help="L2 pull towards current weights")
    t.add_argument("--rounds", type=int, default=2, help="linearise-and-minimise rounds")
    t.add_argument("--steps", type=int, default=1500)
    s = ap.add_argument_group("SPSA of the search's numbers (params.TUNE) on fixed-node games")
    s.add_argument("--spsa", metavar="LOG",
                   help="tune by SPSA, an iteration a JSON line in LOG (a run goes on from it)")
    s.add_argument("--openings", help="EPD/FEN openings; the held-out set is left out")
    s.add_argument("--games", type=int, default=10000, help="the game budget")
    s.add_argument("--pairs", type=int, default=2, help="game pairs an iteration")
    s.add_argument("--nodes", type=int, default=10000, help="nodes a move")
    s.add_argument("--concurrency", type=int, default=2, help="iterations played at once")
    s.add_argument("--params", default=",".join(SPSA_DEFAULT),
                   help="comma-separated TUNE names (default: all but the items off at 0)")
    s.add_argument("--r-end", type=float, default=0.01, help="final learning rate R")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--engine", help="the engine command (default: this installation's)")
    s.add_argument("--write-params", metavar="PARAMS_PY",
                   help="write LOG's last theta, rounded, into the tuned numbers of this "
                        "params.py (a confirming test's build), then exit")


def _fail(text):
    print(f"black-numba tune: {text}", file=sys.stderr)
    return 2


def run(args):
    """Tune; returns the exit code (2 for bad arguments or inputs)."""
    if args.spsa:
        return run_spsa(args)
    if args.write_params:
        return _fail("--write-params needs --spsa LOG")
    if not args.pgn:
        return _fail("give games (or --labels files), or --spsa LOG")
    try:
        weights = texel.tune(args.pgn, args.labels, args.mix, args.lam, args.rounds,
                             args.steps)
    except ValueError as e:
        return _fail(e)
    if args.out:
        texel.write_module(weights, args.out)
        print("wrote", args.out)
    return 0


def run_spsa(args):
    """SPSA, or with --write-params the log's result written into a params.py."""
    if args.pgn:
        return _fail("--spsa takes no game files")
    try:
        if args.write_params:
            for name, old, new in spsa.write_params(args.spsa, args.write_params):
                print(f"{name}: {old} -> {new}")
            return 0
        if not args.openings:
            return _fail("--spsa needs --openings FILE (the held-out set is left out of it)")
        config = spsa.SpsaConfig(
            names=tuple(n for n in args.params.split(",") if n), games=args.games,
            pairs=args.pairs, nodes=args.nodes, concurrency=args.concurrency,
            r_end=args.r_end, seed=args.seed,
            engine=tuple(shlex.split(args.engine)) if args.engine else spsa.this_engine())
        config.check()
        theta = spsa.run(config, spsa.read_openings(args.openings), args.spsa)
    except spsa.SpsaError as e:
        return _fail(e)
    print(json.dumps({n: round(v, 2) for n, v in theta.items()}))
    return 0
