"""`black-numba match`: two UCI engines play game pairs as Dask tasks; Elo, pentanomial SPRT.
With --build and --opponent instead of the two engines, a gauntlet (gauntlet.py).

    black-numba match ENGINE_A ENGINE_B [--name-a A] [--name-b B] [--option-a NAME=VALUE]
        [--option-b NAME=VALUE] [--option NAME=VALUE] [--games 100 | --rounds PAIRS]
        [--openings FILE.epd|.pgn] [--seed 1] [--chess960]
        [--tc 10+0.1 | --movetime MS] [--nodes N] [--depth D]
        [--tc-a 10+0.1 | --movetime-a MS] [--nodes-a N] [--depth-a D] (and -b: uneven)
        [--sprt ELO0 ELO1] [--elo-model logistic|normalized]
        [--concurrency 1 | --scheduler tcp://HOST:PORT] [--out DIR] [--pgn FILE] [--json FILE]

ENGINE_A and ENGINE_B are command lines (split as a shell would). Each opening (a line of
an EPD/FEN file, or the end of a PGN game's main line, shuffled by --seed; by default the
start position, with --chess960 a random one of the 960) is a game pair: ENGINE_A plays
White, then Black. A pair is one Dask task (matchgame.play_pair): on a local cluster of
--concurrency worker processes, or with --scheduler on the workers of a cluster started
with ``dask scheduler`` and ``dask worker`` (the engine commands must then work on every
worker). Pairs are taken in opening order whatever the workers: the tally, the SPRT's stop,
the PGN and the log are the same with 1 or 16 workers, and at fixed nodes with Threads 1
so are the games. Pairs still in flight when the SPRT decides are thrown away.

Limits apply to both engines, or to one: --tc-a, --movetime-a, --nodes-a and --depth-a (and
-b) replace the shared flag of their kind for that engine (its own --tc-a or --movetime-a
replaces both shared time limits), so that a node-limited engine can play one on a clock,
or two clocks differ; an engine left with no limit at all plays at the default clock. Each
side's `go` carries its own limits and the clocks that run (matchgame.py). The PGN's
TimeControl tag says the clock both play on, WhiteTimeControl and BlackTimeControl each
side's where they differ ("-": none), and WhiteLimits and BlackLimits each side's limits in
words ("500 nodes a move") where the engines' limits differ in any way.

Figures are the first engine's. Elo is logistic, its 95% interval from the pentanomial
variance (the pair is the independent sample); LOS from wins and losses; the SPRT is the
generalised SPRT of fishtest on the pentanomial counts, alpha = beta = 0.05, with bounds in
logistic Elo (default) or normalised Elo (--elo-model normalized, fishtest's default). The
end adds each engine's style report (style.py: short wins, sacrifices, bad draws).

The log (match.log), the games (games.pgn) and the summary (summary.json) are written into
--out, by default ``$BLACK_NUMBA_MATCHES/<time>_<A>_vs_<B>`` with ``$BLACK_NUMBA_MATCHES``
defaulting to ``~/.local/share/black_numba/matches``: outside the repository.
"""
import json
import os
import sys
import time
from dataclasses import dataclass

from black_numba.cluster import close as cluster_close, connect as cluster_connect
from black_numba.arena import matchstats, style
from black_numba.arena.runner import (DEFAULT_HANG_S, DEFAULT_MARGIN_MS, DEFAULT_MAX_PLIES,
                                      DEFAULT_RESIGN, DEFAULT_STARTUP_S, DEFAULT_TC,
                                      MATCHES_ENV, default_dir, describe_limits, engine_spec,
                                      failure, openings_for, pgn_game, play_pairs, settings,
                                      stop_on_signals)

DEFAULT_GAMES = 100


# -- conditions -------------------------------------------------------------------------


def conditions(args):
    """The plain-data configuration every task gets (pickled to the workers)."""
    names = [args.name_a, args.name_b]
    engines = [engine_spec(cmd, name, args.option + extra) for cmd, name, extra in
               ((args.engine_a, names[0], args.option_a), (args.engine_b, names[1],
                                                           args.option_b))]
    if engines[0]["name"] == engines[1]["name"]:
        engines[0]["name"] += "-a"
        engines[1]["name"] += "-b"
    return {"engines": engines, **settings(args)}


# -- output -----------------------------------------------------------------------------


class Report:
    """The tally, the SPRT and the faults of a running match; the progress lines and the
    final summary, on stdout and in the log."""

    def __init__(self, conf, log, sprt=None, model="logistic"):
        from black_numba.arena.matchgame import FAULTS
        self.conf, self.log = conf, log
        self.names = [e["name"] for e in conf["engines"]]
        self.score = matchstats.Score()
        self.faults = {name: dict.fromkeys(FAULTS, 0) for name in self.names}
        self.sprt = tuple(sprt) if sprt else None
        self.model = model
        self.bounds = matchstats.sprt_bounds()
        self.verdict = None
        self.games = []                      # one small record a game, in order
        self.style = []                      # (style.Line, style.facts) a game, in order

    def say(self, line):
        print(line, flush=True)
        self.log.write(line + "\n")
        self.log.flush()

    def add(self, res, total_pairs, opening):
        pair = res["index"]
        self.score.add_pair([g["points"] for g in res["games"]])
        for g in res["games"]:
            for i, kind in g["faults"]:
                self.faults[self.names[i]][kind] += 1
            line = style.match_line(self.names[g["white"]], self.names[1 - g["white"]],
                                    g["result"], opening, g["moves"], g["comments"],
                                    self.conf["chess960"])
            self.style.append((line, style.facts(line)))
            self.games.append({"pair": pair, "white": self.names[g["white"]],
                               "black": self.names[1 - g["white"]], "result": g["result"],
                               "termination": g["termination"], "reason": g["reason"],
                               "plies": len(g["moves"]), "moves": g["moves"]})
        s = self.score
        e, lo, hi = matchstats.elo_interval(s.penta)
        got = sum(g["points"] for g in res["games"])
        line = (f"pair {s.pairs}/{total_pairs}: {res['games'][0]['result']} "
                f"{res['games'][1]['result']} ({self.names[0]} {got:g}/2) | "
                f"{self.names[0]} +{s.wins} ={s.draws} "
                f"-{s.losses} {100 * s.score():.1f}% Elo {e:+.1f} ({lo:+.1f} .. {hi:+.1f})")
        if self.sprt:
            llr = s.llr(*self.sprt, self.model)
            line += f" LLR {llr:+.2f} ({self.bounds[0]:+.2f} .. {self.bounds[1]:+.2f})"
            state = matchstats.sprt_state(llr, self.bounds)
            if state and self.verdict is None:
                self.verdict = state
        faults = [f"{self.names[i]} {kind}" for g in res["games"] for i, kind in g["faults"]]
        if faults:
            line += " [" + ", ".join(faults) + "]"
        self.say(line)

    def style_reports(self):
        """Each engine's style report ({name: report}), the match's games the pool."""
        pool = [f["length"] for _, f in self.style if f["result"] != "1/2-1/2"]
        return {name: style.report_from(self.style, name, pool) for name in self.names}

    def summary(self):
        s = self.score
        out = s.summary()
        out["names"] = self.names
        out["faults"] = self.faults
        out["style"] = self.style_reports()
        if self.sprt:
            llr = s.llr(*self.sprt, self.model)
            out["sprt"] = {"elo0": self.sprt[0], "elo1": self.sprt[1], "model": self.model,
                           "alpha": matchstats.ALPHA, "beta": matchstats.BETA,
                           "llr": llr, "bounds": list(self.bounds),
                           "verdict": self.verdict}
        return out

    def final_lines(self):
        out = self.summary()
        a, b = self.names
        lines = [f"Score of {a} vs {b}: {out['wins']} - {out['losses']} - {out['draws']} "
                 f"(W-L-D) {100 * out['score']:.1f}% over {out['games']} games, "
                 f"{out['pairs']} pairs"]
        if out["games"]:
            lo, hi = out["elo_95"]
            tlo, thi = out["elo_trinomial_95"]
            lines.append(f"Elo {out['elo']:+.1f} (95%: {lo:+.1f} .. {hi:+.1f} from pairs; "
                         f"{tlo:+.1f} .. {thi:+.1f} from games), LOS {100 * out['los']:.1f}%")
            if out["nelo"] is not None:
                nlo, nhi = out["nelo_95"]
                lines.append(f"Normalised Elo {out['nelo']:+.1f} ({nlo:+.1f} .. {nhi:+.1f})")
            lines.append("Pentanomial [LL, LD, WL+DD, WD, WW]: "
                         + str(list(out["pentanomial"].values())))
        if "sprt" in out:
            sp = out["sprt"]
            verdict = {"H0": f"H0 accepted (Elo <= {sp['elo0']:g})",
                       "H1": f"H1 accepted (Elo >= {sp['elo1']:g})",
                       None: "no verdict"}[sp["verdict"]]
            lines.append(f"SPRT {sp['elo0']:g} .. {sp['elo1']:g} ({sp['model']} Elo, alpha = "
                         f"beta = {sp['alpha']:g}): LLR {sp['llr']:+.2f} ({sp['bounds'][0]:+.2f}"
                         f" .. {sp['bounds'][1]:+.2f}), {verdict} after {out['games']} games")
        if out["games"]:
            for name in self.names:
                lines += style.report_lines(out["style"][name])
        lines.append("Faults: " + "; ".join(
            f"{name}: " + ", ".join(f"{kind} {n}" for kind, n in kinds.items())
            for name, kinds in self.faults.items()))
        return lines


# -- the cluster ------------------------------------------------------------------------


# -- the command ------------------------------------------------------------------------


@dataclass
class MatchPlan:
    """How and where a match is played, beside its conditions and openings: its pairs, the
    folder of its log, games and summary, the stop rule, the cluster, and what the records
    say of it."""
    pairs: int
    out: str
    seed: int = 1
    source: str = "the start position"     # the openings in words, for the log
    openings_file: str = None
    random_plies: int = None
    sprt: tuple = None                      # (elo0, elo1): stop at the GSPRT's verdict
    elo_model: str = "logistic"
    event: str = "black-numba match"
    scheduler: str = None                   # a Dask scheduler's address, else a local cluster
    concurrency: int = 1
    pgn_path: str = None                    # default out/games.pgn
    json_path: str = None                   # default out/summary.json
    command: list = None                    # default this process's command line


def play_match(conf, openings, plan):
    """Play a match: conf as conditions() or runner.match_settings() make it (with its
    engines), openings as runner.openings_in_order() gives them. Writes match.log, the PGN
    and the summary; returns (exit code, the summary): 0 played, 1 ended by a fault, 2 the
    engines cannot play."""
    from black_numba.arena.matchgame import MatchConfigError, close_engines, probe
    names = [e["name"] for e in conf["engines"]]
    out, pairs = plan.out, plan.pairs
    os.makedirs(out, exist_ok=True)
    pgn_path = plan.pgn_path or os.path.join(out, "games.pgn")
    json_path = plan.json_path or os.path.join(out, "summary.json")
    where = plan.scheduler or f"a local cluster of {plan.concurrency} worker" + \
        ("s" if plan.concurrency > 1 else "")
    rc, error = 0, None
    client = cluster = None
    with open(os.path.join(out, "match.log"), "w") as log, open(pgn_path, "w") as pgn:
        report = Report(conf, log, plan.sprt, plan.elo_model)
        report.say(f"match: {names[0]} ({conf['engines'][0]['cmd']}) vs {names[1]} "
                   f"({conf['engines'][1]['cmd']}), {2 * pairs} games at "
                   f"{describe_limits(conf)}, openings {plan.source} ({len(openings)}, seed "
                   f"{plan.seed}), on {where}; files in {out}")
        if pairs > len(openings) and all(limits["tc"] is None and limits["movetime"] is None
                                         for limits in conf["limits"]):
            report.say(f"note: {pairs} pairs from {len(openings)} openings: at a fixed search "
                       f"a replayed opening replays its games (--random-plies gives every "
                       f"pair its own)")
        if report.sprt:
            report.say(f"SPRT {report.sprt[0]:g} .. {report.sprt[1]:g} in {plan.elo_model} "
                       f"Elo, alpha = beta = {matchstats.ALPHA:g}, on game pairs")

        def take(res):
            k = res["index"]
            opening = openings[k % len(openings)]
            for record in res["games"]:
                print(pgn_game(conf, opening, record, k, plan.event), file=pgn, end="\n\n")
            pgn.flush()
            report.add(res, pairs, opening)

        t0 = time.time()
        stop_on_signals()
        try:
            client, cluster = cluster_connect(plan.scheduler, plan.concurrency)
            ids = client.submit(probe, conf, pure=False).result()
            if "error" in ids:
                raise MatchConfigError(ids["error"])
            ids = ids["names"]
            report.say(f"engines: {names[0]} is {ids[0]!r}, {names[1]} is {ids[1]!r}")
            play_pairs(client, pairs, lambda k: (k, openings[k % len(openings)], conf), take,
                       lambda: report.verdict is not None)
        except KeyboardInterrupt:
            report.say("match: interrupted; the pairs finished so far are counted")
        except Exception as e:
            rc, error = failure(e)
        finally:
            # a cluster's workers outlive the match: they quit their engines now (a local
            # cluster's engines read end-of-file on stdin as its workers close, and quit)
            if client is not None and plan.scheduler:
                try:
                    client.run(close_engines)
                except Exception:   # workers already gone
                    pass
            cluster_close(client, cluster)
        if error is not None:
            log.write(f"match: {error}\n")
            print(f"match: {error}", file=sys.stderr)
        if error is None or report.score.pairs:
            for line in report.final_lines():
                report.say(line)
            report.say(f"{time.time() - t0:.0f} s; games in {pgn_path}, summary in "
                       f"{json_path}")
    summary = report.summary()
    summary["error"] = error
    summary.update(conditions=conf, openings=plan.openings_file,
                   random_plies=plan.random_plies, seed=plan.seed,
                   scheduler=plan.scheduler,
                   concurrency=None if plan.scheduler else plan.concurrency,
                   command=plan.command or ["black-numba"] + sys.argv[1:],
                   games_played=report.games)
    with open(json_path + ".tmp", "w") as f:
        json.dump(summary, f, indent=1)
    os.replace(json_path + ".tmp", json_path)
    return rc, summary


def run(args):
    """`black-numba match ENGINE_A ENGINE_B ...`: the exit code."""
    if not (args.engine_a and args.engine_b):
        print("match: give ENGINE_A and ENGINE_B, or a gauntlet's --build and --opponent",
              file=sys.stderr)
        return 2
    try:
        conf = conditions(args)
        pairs = args.rounds if args.rounds is not None else (args.games + 1) // 2
        if pairs < 1:
            raise ValueError("--games and --rounds must be at least 1")
        if args.random_plies is not None and args.random_plies < 0:
            raise ValueError("--random-plies must be at least 0")
        openings = openings_for(args, pairs)
    except (OSError, ValueError) as e:
        name = f"{e.filename}: " if isinstance(e, OSError) and e.filename else ""
        print(f"match: {name}{e.strerror if isinstance(e, OSError) and e.strerror else e}",
              file=sys.stderr)
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
    plan = MatchPlan(pairs, args.out or default_dir(*(e["name"] for e in conf["engines"])),
                     args.seed, source, args.openings, args.random_plies, args.sprt,
                     args.elo_model, args.event, args.scheduler, args.concurrency, args.pgn,
                     args.json)
    return play_match(conf, openings, plan)[0]


def add_arguments(ap):
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
    timing.add_argument("--tc", help=f"BASE+INCREMENT seconds a game (default {DEFAULT_TC} "
                                     "when no other limit is given)")
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
                    f"summary.json (default ${MATCHES_ENV} or ~/.local/share/black_numba/"
                    "matches, a new folder a match)")
    ap.add_argument("--pgn", metavar="FILE", help="the games (default DIR/games.pgn)")
    ap.add_argument("--json", metavar="FILE", help="the summary (default DIR/summary.json)")
    ap.add_argument("--event", default="black-numba match", help="the PGN Event tag")
    ap.add_argument("--resign", nargs=2, type=int, metavar=("CP", "PLIES"),
                    default=list(DEFAULT_RESIGN),
                    help="adjudicate a win once both engines' scores agree beyond CP for "
                         "PLIES plies in a row (default %(default)s; PLIES 0: never)")
    ap.add_argument("--draw", nargs=3, type=int, metavar=("AFTER", "PLIES", "CP"),
                    help="adjudicate a draw once both engines' scores stay within CP of 0 "
                         "for PLIES plies after ply AFTER (default: never)")
    ap.add_argument("--max-plies", type=int, default=DEFAULT_MAX_PLIES,
                    help="a game is drawn after this many plies (default %(default)s)")
    ap.add_argument("--margin", type=int, default=DEFAULT_MARGIN_MS, metavar="MS",
                    help="clock grace before a time loss (default %(default)s ms)")
    ap.add_argument("--hang-timeout", type=float, default=DEFAULT_HANG_S, metavar="S",
                    help="at fixed nodes or depth, seconds after which a move is a hang "
                         "(default %(default)s)")
    ap.add_argument("--startup-timeout", type=float, default=DEFAULT_STARTUP_S, metavar="S",
                    help="seconds for uciok and readyok (default %(default)s)")

