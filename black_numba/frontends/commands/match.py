"""`black-numba match`: a match of two engines, or with --build and --opponent a gauntlet (or
its --report). The arguments are parsed and checked here (bad ones: one line, exit code 2)
into the typed calls of arena/: match.play_match, gauntlet.run_gauntlet and gauntlet.report.
The choice between a match and a gauntlet is made here; match.py and gauntlet.py know
nothing of each other.

    black-numba match ENGINE_A ENGINE_B [--name-a A] [--name-b B] [--option-a NAME=VALUE]
        [--option-b NAME=VALUE] [--option NAME=VALUE] [--games 100 | --rounds PAIRS]
        [--openings FILE.epd|.pgn] [--seed 1] [--random-plies N] [--chess960]
        [--tc 10+0.1 | --movetime MS] [--nodes N] [--depth D]
        [--tc-a 10+0.1 | --movetime-a MS] [--nodes-a N] [--depth-a D] (and -b: uneven)
        [--sprt ELO0 ELO1] [--elo-model logistic|normalized]
        [--concurrency 1 | --scheduler tcp://HOST:PORT] [--out DIR] [--pgn FILE] [--json FILE]
        [--resume]
    black-numba match --build NAME=COMMAND --build NAME=COMMAND ... --opponent NAME=COMMAND ...
        [--engine-option NAME:OPTION=VALUE] [--option OPTION=VALUE] [--label NAME=ELO]
        [--opponent-tc NAME=BASE+INC] [--opponent-nodes NAME=N] [--openings FILE] [--seed 1]
        [--rounds OPENINGS | --games GAMES_A_BUILD] [--tc 10+0.1 | --movetime MS] [--nodes N]
        [--sprt ELO0 ELO1] [--concurrency N] [--out DIR] [--records FILE]
    black-numba match --report RECORDS [--label NAME=ELO] [--sprt ELO0 ELO1]

ENGINE_A and ENGINE_B are command lines (split as a shell would); a gauntlet's builds and
opponents are NAME=COMMAND. Limits apply to both engines, or to one: --tc-a, --movetime-a,
--nodes-a and --depth-a (and -b) replace the shared flag of their kind for that engine (its
own --tc-a or --movetime-a replaces both shared time limits); an engine left with no limit at
all plays at the default clock. In a gauntlet the builds play on the -a limits and the
opponents on the -b ones, or on their own: --opponent-tc NAME=BASE+INC (its clock: time
odds) and --opponent-nodes NAME=N (its nodes a move).

A match's log (match.log), games (games.pgn) and summary (summary.json) are written into
--out, by default ``$BLACK_NUMBA_MATCHES/<time>_<A>_vs_<B>`` with ``$BLACK_NUMBA_MATCHES``
defaulting to ``~/.local/share/black_numba/matches``: outside the repository; with them each finished pair
in pairs.jsonl, from which --resume goes on with a stopped match (the same command line and
--out). A gauntlet's
records (--records, default DIR/gauntlet.jsonl) resume it when it runs again with the same
conditions; --report prints their figures, running or finished, playing nothing.
"""
import sys

from black_numba.arena import gauntlet, match, runner
from black_numba.arena.gauntlet import GauntletError

DEFAULT_GAMES = 100


# -- a match ----------------------------------------------------------------------------

def settings(args):
    """runner.settings of the command line, its numbers and clocks checked: the limits both
    engines share, each engine's own (-a, -b) and the rules of the games."""
    for flag, value in [("--concurrency", args.concurrency), ("--max-plies", args.max_plies)] \
            + [(f"--{kind}{side}".replace("_", "-"), getattr(args, kind + side))
               for kind in ("movetime", "nodes", "depth") for side in ("", "_a", "_b")]:
        if value is not None and value < 1:
            raise ValueError(f"{flag} must be at least 1, not {value}")
    # a bad --tc is an error even where both engines' own clocks replace it
    shared = runner.Limits(runner.parse_tc(args.tc) if args.tc else None, args.movetime,
                           args.nodes, args.depth)
    own = []
    for side in ("a", "b"):
        tc = getattr(args, f"tc_{side}")
        own.append(runner.Limits(runner.parse_tc(tc, f"--tc-{side}") if tc else None,
                                 getattr(args, f"movetime_{side}"),
                                 getattr(args, f"nodes_{side}"), getattr(args, f"depth_{side}")))
    rules = runner.Rules(args.margin, args.hang_timeout, args.startup_timeout, args.resign,
                         args.draw, args.max_plies, args.chess960)
    return runner.settings(shared, own, rules)


def openings_source(args):
    """The runner.Openings of --openings, --seed, --random-plies and --chess960."""
    return runner.Openings(args.openings, args.seed, args.random_plies, args.chess960)


def match_conditions(args):
    """match.conditions of a match's command line: its two engines and settings()."""
    engines = [runner.engine_spec(cmd, name, args.option + extra) for cmd, name, extra in
               ((args.engine_a, args.name_a, args.option_a),
                (args.engine_b, args.name_b, args.option_b))]
    return match.conditions(engines, settings(args))


def run_match(args):
    """`black-numba match ENGINE_A ENGINE_B ...`: the exit code."""
    if not (args.engine_a and args.engine_b):
        print("match: give ENGINE_A and ENGINE_B, or a gauntlet's --build and --opponent",
              file=sys.stderr)
        return 2
    try:
        conf = match_conditions(args)
        pairs = args.rounds if args.rounds is not None else (args.games + 1) // 2
        if pairs < 1:
            raise ValueError("--games and --rounds must be at least 1")
        if args.random_plies is not None and args.random_plies < 0:
            raise ValueError("--random-plies must be at least 0")
        openings = runner.openings_for(openings_source(args), pairs)
    except (OSError, ValueError) as e:
        name = f"{e.filename}: " if isinstance(e, OSError) and e.filename else ""
        print(f"match: {name}{e.strerror if isinstance(e, OSError) and e.strerror else e}",
              file=sys.stderr)
        return 2
    if args.resume and not args.out:
        print("match: --resume needs the stopped match's --out folder", file=sys.stderr)
        return 2
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("match: needs Dask's scheduler: pip install 'dask[distributed]'", file=sys.stderr)
        return 2
    source = args.openings or ("the 960 Chess960 start positions" if args.chess960
                               else "the start position")
    if args.random_plies:
        source += f" and {args.random_plies} random plies"
    plan = match.MatchPlan(
        pairs, args.out or runner.default_dir(*(e["name"] for e in conf["engines"])),
        args.seed, source, args.openings, args.random_plies, args.sprt, args.elo_model,
        args.event, args.scheduler, args.concurrency, args.pgn, args.json,
        resume=args.resume)
    try:
        return match.play_match(conf, openings, plan)[0]
    except match.MatchResumeError as e:
        print(f"match: --resume: {e}", file=sys.stderr)
        return 2


# -- a gauntlet -------------------------------------------------------------------------

def parse_named(text, flag):
    """'NAME=COMMAND' -> (name, command)."""
    name, eq, command = text.partition("=")
    name, command = name.strip(), command.strip()
    if not eq or not name or not command:
        raise GauntletError(f"{flag} {text!r} is not NAME=COMMAND")
    if any(c in name for c in ":= \t"):
        raise GauntletError(f"{flag} {text!r}: a name has no spaces, ':' or '='")
    return name, command


def parse_engine_option(text, names):
    """'NAME:OPTION=VALUE' -> (engine name, OPTION=VALUE) for one of `names`."""
    name, colon, rest = text.partition(":")
    if not colon or name not in names:
        known = ", ".join(names)
        raise GauntletError(f"--engine-option {text!r} is not NAME:OPTION=VALUE with NAME "
                            f"one of {known}")
    return name, rest


def parse_labels(texts, opponents):
    """{name: Elo} of --label NAME=ELO arguments, each naming one of `opponents`."""
    labels = {}
    for text in texts:
        name, eq, value = text.partition("=")
        if not eq or name not in opponents:
            raise GauntletError(f"--label {text!r} is not NAME=ELO for an opponent")
        try:
            labels[name] = float(value)
        except ValueError:
            raise GauntletError(f"--label {text!r}: {value!r} is not a number") from None
    return labels


def opponent_limits(args, names, shared):
    """gauntlet.opponent_limits of --opponent-tc NAME=BASE+INC and --opponent-nodes NAME=N,
    each naming one of the opponents `names`, from their shared limits `shared`."""
    own = {"--opponent-tc": {}, "--opponent-nodes": {}}
    for flag, texts in (("--opponent-tc", args.opponent_tc),
                        ("--opponent-nodes", args.opponent_nodes)):
        for text in texts:
            name, eq, value = (x.strip() for x in text.partition("="))
            if not eq or name not in names:
                raise GauntletError(f"{flag} {text!r} is not NAME=VALUE for an opponent "
                                    f"({', '.join(names)})")
            if flag == "--opponent-tc":
                own[flag][name] = runner.parse_tc(value, flag)
                continue
            try:
                own[flag][name] = int(value)
            except ValueError:
                raise GauntletError(f"{flag} {text!r}: {value!r} is not a whole "
                                    f"number") from None
            if own[flag][name] < 1:
                raise GauntletError(f"{flag} {text!r}: nodes must be at least 1")
    return gauntlet.opponent_limits(shared, own["--opponent-tc"], own["--opponent-nodes"])


def gauntlet_conditions(args):
    """gauntlet.conditions of the command line: the builds, the opponents, their options,
    labels and own limits, and settings() (the builds on the -a limits, the opponents on
    the -b ones)."""
    builds = [parse_named(t, "--build") for t in args.build]
    opponents = [parse_named(t, "--opponent") for t in args.opponent]
    if not builds or not opponents:
        raise GauntletError("a gauntlet needs at least one --build and one --opponent")
    names = [n for n, _ in builds + opponents]
    if len(set(names)) != len(names):
        raise GauntletError(f"engine names must differ: {', '.join(names)}")
    own = {n: [] for n in names}
    for text in args.engine_option:
        name, option = parse_engine_option(text, names)
        own[name].append(option)
    labels = parse_labels(args.label, dict(opponents))
    conf = settings(args)
    specs = [[runner.engine_spec(c, n, args.option + own[n]) for n, c in engines]
             for engines in (builds, opponents)]
    limits = opponent_limits(args, [n for n, _ in opponents], conf["limits"][1])
    return gauntlet.conditions(specs[0], specs[1], conf, labels, limits)


def run_gauntlet(args):
    """`black-numba match --build ... --opponent ...`: the exit code."""
    try:
        if args.engine_a or args.engine_b:
            raise GauntletError("a gauntlet takes --build and --opponent, not ENGINE_A ENGINE_B")
        if args.resume:
            raise GauntletError("a gauntlet resumes from its --records by itself, without "
                                "--resume")
        gp = gauntlet_conditions(args)
        sprt = gauntlet.sprt_of(args.sprt, len(gp["builds"]))
        if args.rounds is not None:
            rounds = args.rounds
        else:
            rounds = -(-args.games // (2 * len(gp["opponents"])))   # games a build, in all
        if rounds < 1:
            raise GauntletError("--games and --rounds must be at least 1")
        plan = gauntlet.GauntletPlan(rounds, args.out or runner.default_dir("gauntlet", "pool"),
                                     openings_source(args), sprt, args.records, args.scheduler,
                                     args.concurrency, args.event)
        return gauntlet.run_gauntlet(gp, plan)[0]
    except (OSError, ValueError) as e:          # raised before anything is played
        print(f"match: {e}", file=sys.stderr)
        return 2


def run_report(args):
    """`black-numba match --report RECORDS`: the figures of a gauntlet's records (running or
    finished) without playing; --label and --sprt as for the run. The exit code."""
    try:
        head, records = gauntlet.read_records(args.report, running=True)
        if head is None:
            raise GauntletError(f"{args.report}: no such records file")
        labels = parse_labels(args.label, [e["name"] for e in head["opponents"]])
        sprt = gauntlet.sprt_of(args.sprt, len(head["builds"]))
    except (OSError, ValueError) as e:
        print(f"match: {e}", file=sys.stderr)
        return 2
    for line in gauntlet.report(args.report, head, records, labels, sprt):
        print(line)
    return 0


# -- the command ------------------------------------------------------------------------

def run(args):
    """Play the match or the gauntlet, or report on a gauntlet's records; the exit code."""
    if args.report:
        return run_report(args)
    if args.build or args.opponent:
        return run_gauntlet(args)
    return run_match(args)


def add_arguments(ap):
    """The `black-numba match` command line: the match's flags and the gauntlet's."""
    ap.add_argument("engine_a", metavar="ENGINE_A", nargs="?",
                    help="the first engine's command line")
    ap.add_argument("engine_b", metavar="ENGINE_B", nargs="?",
                    help="the second engine's command line")
    ap.add_argument("--name-a", help="its name (default: the program's file name)")
    ap.add_argument("--name-b")
    ap.add_argument("--option-a", action="append", default=[], metavar="NAME=VALUE",
                    help="a UCI option of the first engine (repeat for more)")
    ap.add_argument("--option-b", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a UCI option of both engines (e.g. Threads=1, Hash=16)")
    count = ap.add_mutually_exclusive_group()
    count.add_argument("--games", type=int, default=DEFAULT_GAMES,
                       help=f"games in all, rounded up to whole pairs (default {DEFAULT_GAMES})")
    count.add_argument("--rounds", type=int, metavar="PAIRS",
                       help="game pairs (an opening with both colours each)")
    ap.add_argument("--openings", metavar="FILE",
                    help="EPD/FEN (a position a line) or PGN (each game's end) openings; "
                         "default the start position (with --chess960, the 960)")
    ap.add_argument("--seed", type=int, default=1, help="the order of the openings")
    ap.add_argument("--random-plies", type=int, metavar="N",
                    help="N uniformly random plies after each pair's opening, seeded by "
                         "(seed, pair): a new opening every pair without a book")
    ap.add_argument("--chess960", action="store_true",
                    help="Chess960 games (UCI_Chess960 on in both engines)")
    timing = ap.add_mutually_exclusive_group()
    timing.add_argument("--tc", help=f"BASE+INCREMENT seconds a game (default "
                                     f"{runner.DEFAULT_TC} when no other limit is given)")
    timing.add_argument("--movetime", type=int, metavar="MS", help="milliseconds a move")
    ap.add_argument("--nodes", type=int, help="nodes a move (with or without a clock)")
    ap.add_argument("--depth", type=int, help="depth a move")
    for side, which in (("a", "the first"), ("b", "the second")):
        own = ap.add_mutually_exclusive_group()
        own.add_argument(f"--tc-{side}", metavar="BASE+INC",
                         help=f"{which} engine's own clock (it replaces --tc and --movetime "
                              "for it: uneven conditions)")
        own.add_argument(f"--movetime-{side}", type=int, metavar="MS",
                         help=f"{which} engine's own milliseconds a move (replaces --tc and "
                              "--movetime for it)")
        ap.add_argument(f"--nodes-{side}", type=int, metavar="N",
                        help=f"{which} engine's own nodes a move (replaces --nodes for it)")
        ap.add_argument(f"--depth-{side}", type=int, metavar="D",
                        help=f"{which} engine's own depth a move (replaces --depth for it)")
    ap.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                    help="stop once the pentanomial GSPRT (alpha = beta = 0.05) accepts "
                         "H0: Elo = ELO0 or H1: Elo = ELO1; --games is then the most played")
    ap.add_argument("--elo-model", choices=("logistic", "normalized"), default="logistic",
                    help="the SPRT bounds' Elo (default logistic; normalized as fishtest)")
    ap.add_argument("--concurrency", type=int, default=1,
                    help="worker processes of the local cluster, a pair each at a time")
    ap.add_argument("--scheduler", metavar="ADDRESS",
                    help="a Dask scheduler (tcp://HOST:PORT) whose workers play the pairs "
                         "(the engine commands must work on every worker)")
    ap.add_argument("--out", metavar="DIR", help="folder of match.log, games.pgn and "
                    f"summary.json (default ${runner.MATCHES_ENV} or ~/.local/share/"
                    "black_numba/matches, a new folder a match)")
    ap.add_argument("--pgn", metavar="FILE", help="the games (default DIR/games.pgn)")
    ap.add_argument("--json", metavar="FILE", help="the summary (default DIR/summary.json)")
    ap.add_argument("--resume", action="store_true",
                    help="go on with the stopped match in --out (its pairs.jsonl): the pairs "
                         "played are counted, not played again; the same command line")
    ap.add_argument("--event", default="black-numba match", help="the PGN Event tag")
    ap.add_argument("--resign", nargs=2, type=int, metavar=("CP", "PLIES"),
                    default=list(runner.DEFAULT_RESIGN),
                    help="adjudicate a win once both engines' scores agree beyond CP for "
                         "PLIES plies in a row (default %(default)s; PLIES 0: never)")
    ap.add_argument("--draw", nargs=3, type=int, metavar=("AFTER", "PLIES", "CP"),
                    help="adjudicate a draw once both engines' scores stay within CP of 0 "
                         "for PLIES plies after ply AFTER (default: never)")
    ap.add_argument("--max-plies", type=int, default=runner.DEFAULT_MAX_PLIES,
                    help="a game is drawn after this many plies (default %(default)s)")
    ap.add_argument("--margin", type=int, default=runner.DEFAULT_MARGIN_MS, metavar="MS",
                    help="clock grace before a time loss (default %(default)s ms)")
    ap.add_argument("--hang-timeout", type=float, default=runner.DEFAULT_HANG_S, metavar="S",
                    help="at fixed nodes or depth, seconds after which a move is a hang "
                         "(default %(default)s)")
    ap.add_argument("--startup-timeout", type=float, default=runner.DEFAULT_STARTUP_S,
                    metavar="S", help="seconds for uciok and readyok (default %(default)s)")
    g = ap.add_argument_group("gauntlet (builds against a pool; replaces ENGINE_A ENGINE_B)")
    g.add_argument("--build", action="append", default=[], metavar="NAME=COMMAND",
                   help="a build of ours (repeat; the first is the base of the paired "
                        "differences)")
    g.add_argument("--opponent", action="append", default=[], metavar="NAME=COMMAND",
                   help="an engine of the pool (repeat)")
    g.add_argument("--engine-option", action="append", default=[],
                   metavar="NAME:OPTION=VALUE", help="a UCI option of one build or opponent "
                   "(e.g. sf2600:UCI_Elo=2600, new:EvalFile=net.bnn)")
    g.add_argument("--opponent-tc", action="append", default=[], metavar="NAME=BASE+INC",
                   help="an opponent's own clock (repeat; e.g. sf=1.25+0.0125 for time "
                        "odds of 1/8 at 10+0.1): it replaces the shared time limits for it")
    g.add_argument("--opponent-nodes", action="append", default=[], metavar="NAME=N",
                   help="an opponent's own nodes a move (repeat)")
    g.add_argument("--label", action="append", default=[], metavar="NAME=ELO",
                   help="an opponent's nominal rating: the pooled ratings are placed so "
                        "that the labelled opponents' mean is their labels' mean")
    g.add_argument("--report", metavar="RECORDS",
                   help="print the figures of a gauntlet's records (running or finished) "
                        "and exit, playing nothing; with its --label and --sprt")
    g.add_argument("--records", metavar="FILE",
                   help=f"the records to append to and resume from (default "
                        f"DIR/{gauntlet.RECORDS_NAME})")
