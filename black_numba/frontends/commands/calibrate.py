"""`black-numba calibrate`: fit the strength table from games against Stockfish 15.1. The
arguments are parsed and checked here into a calibration.CalibrationPlan; the games and
the fit are calibration.calibrate's.

    black-numba calibrate [--labels 1350,1600,1900,2200] [--offsets -1,0,1] [--games 100]
        [--full-games 100] [--full-opponent ELO] [--tc 10+0.1 | --nodes N]
        [--openings black_numba/arena/openings_holdout.epd] [--seed 1] [--concurrency 1]
        [--stockfish PATH] [--engine CMD] [--evalfile NET] [--include RECORDS.json]
        [--validate SUMMARY.json LEVEL] [--fit-only] [--table TABLE.json] [--out DIR]

--include adds an earlier run's records (TABLE.games.json) to the fit; --validate adds a
strength validation's match (its summary.json, black_numba at LEVEL against Stockfish at a
label) as one match at that level, with the network and bench signature of the included
records, so that a label refitted after a failed validation is fitted on those games too:

    black-numba calibrate --fit-only --include OLD.games.json \\
        --validate V/summary.json 6.93 --table black_numba/search/strength_table.json
"""
from black_numba.arena import calibration, runner
from black_numba.search import strength


def plan_of(args):
    """The CalibrationPlan of the command line, checked: ValueError naming the flag."""
    try:
        labels = [int(x) for x in args.labels.split(",") if x.strip()]
        offsets = [float(x) for x in args.offsets.split(",") if x.strip()]
    except ValueError:
        raise ValueError("--labels takes integers and --offsets numbers, comma-separated") \
            from None
    lo, hi = calibration.STOCKFISH_ELO
    bad = [x for x in labels + [args.full_opponent] if not lo <= x <= hi]
    if bad:
        raise ValueError(f"Stockfish's UCI_Elo runs {lo}..{hi}, not {bad[0]}")
    if args.games < 1 or args.full_games < 0 or args.concurrency < 1:
        raise ValueError("--games and --concurrency must be at least 1, --full-games at "
                         "least 0")
    if args.nodes is not None and args.nodes < 1:
        raise ValueError(f"--nodes must be at least 1, not {args.nodes}")
    if args.tc:
        runner.parse_tc(args.tc)                # a bad clock before any compiling
    validate = []
    for summary, level in args.validate:
        try:
            validate.append((summary, float(level)))
        except ValueError:
            raise ValueError(f"--validate {summary} {level}: the level {level!r} is not a "
                             f"number") from None
    return calibration.CalibrationPlan(
        labels, offsets, args.games, args.full_games, args.full_opponent, args.tc, args.nodes,
        args.openings, args.seed, args.concurrency, args.stockfish, args.engine, args.evalfile,
        list(args.include), validate, args.fit_only, args.table, args.out)


def run(args):
    """Calibrate; returns the exit code (bad arguments raise ValueError: exit code 2)."""
    plan = plan_of(args)
    from black_numba.frontends.bench import bench_signature
    from black_numba.frontends.warmup import warmup

    def prepare(evalfile):
        warmup()
        return bench_signature(evalfile)
    return calibration.calibrate(plan, prepare)


def add_arguments(ap):
    """The `black-numba calibrate` command line."""
    ap.add_argument("--labels", default=",".join(map(str, calibration.DEFAULT_LABELS)),
                    help="UCI_Elo labels, comma-separated (default %(default)s)")
    ap.add_argument("--offsets",
                    default=",".join(f"{d:g}" for d in calibration.DEFAULT_OFFSETS),
                    help="levels played at each label: the current table's level plus these "
                         "(default %(default)s)")
    ap.add_argument("--games", type=int, default=calibration.DEFAULT_GAMES,
                    help="games a label, shared among its levels (default %(default)s)")
    ap.add_argument("--full-games", type=int, default=calibration.DEFAULT_GAMES,
                    help="games at full strength (default %(default)s)")
    ap.add_argument("--full-opponent", type=int,
                    default=min(strength.ELO_MAX, calibration.STOCKFISH_ELO[1]),
                    help="Stockfish's UCI_Elo against full strength (default the table's "
                         "full strength, %(default)s)")
    ap.add_argument("--tc", help=f"time control (default {calibration.DEFAULT_TC})")
    ap.add_argument("--nodes", type=int, help="nodes a move (with --tc too: both)")
    ap.add_argument("--openings", default=calibration.HOLDOUT,
                    help="EPD/PGN openings (default black_numba/arena/openings_holdout.epd)")
    ap.add_argument("--seed", type=int, default=1, help="the openings' order")
    ap.add_argument("--concurrency", type=int, default=1, help="games at a time")
    ap.add_argument("--stockfish", help="Stockfish 15.1's command (default /usr/games/stockfish)")
    ap.add_argument("--engine", help="black_numba's command (default this package, with "
                                     f"{strength.CALIBRATE_ENV}=1)")
    ap.add_argument("--evalfile", help="the network to calibrate (default the shipped one)")
    ap.add_argument("--include", action="append", default=[], metavar="RECORDS",
                    help="add an earlier run's records (TABLE.games.json) to the fit")
    ap.add_argument("--validate", nargs=2, action="append", default=[],
                    metavar=("SUMMARY", "LEVEL"),
                    help="add a strength validation's games (its match's summary.json, "
                         "black_numba at LEVEL against Stockfish sfELO) to the fit as one "
                         "match at that level (repeat; needs --include of the same build)")
    ap.add_argument("--fit-only", action="store_true",
                    help="play nothing: fit the --include records")
    ap.add_argument("--table", default=strength.TABLE_FILE,
                    help="the table written (default the package's strength_table.json); "
                         "its records go to TABLE.games.json")
    ap.add_argument("--out", metavar="DIR", help="the matches' logs (default under "
                    "$BLACK_NUMBA_MATCHES or ~/.local/share/black_numba/matches)")
