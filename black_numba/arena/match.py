"""A match: two UCI engines play game pairs as Dask tasks; Elo, pentanomial SPRT, faults and
each engine's style. `black-numba match` (frontends/commands/match.py) fills its conditions
and MatchPlan from the command line and calls play_match.

Each opening (runner.openings_for: a line of an EPD/FEN file, or the end of a PGN game's main
line, shuffled by the seed; by default the start position, in Chess960 a random one of the
960) is a game pair: the first engine plays White, then Black. A pair is one Dask task
(matchgame.play_pair): on a local cluster of `concurrency` worker processes, or on the
workers of a cluster started with ``dask scheduler`` and ``dask worker`` (the engine
commands must then work on every worker). Pairs are taken in opening order whatever the
workers: the tally, the SPRT's stop, the PGN and the log are the same with 1 or 16 workers,
and at fixed nodes with Threads 1 so are the games. Pairs still in flight when the SPRT
decides are thrown away.

Limits apply to both engines, or to one (runner.engine_limits), so that a node-limited engine
can play one on a clock, or two clocks differ. Each side's `go` carries its own limits and
the clocks that run (matchgame.py). The PGN's TimeControl tag says the clock both play on,
WhiteTimeControl and BlackTimeControl each side's where they differ ("-": none), and
WhiteLimits and BlackLimits each side's limits in words ("500 nodes a move") where the
engines' limits differ in any way.

Figures are the first engine's. Elo is logistic, its 95% interval from the pentanomial
variance (the pair is the independent sample); LOS from wins and losses; the SPRT is the
generalised SPRT of fishtest on the pentanomial counts, alpha = beta = 0.05, with bounds in
logistic Elo (default) or normalised Elo (fishtest's default). The end adds each engine's
style report (style.py: short wins, sacrifices, bad draws).

The log (match.log), the games (games.pgn) and the summary (summary.json) are written into
the plan's folder (runner.default_dir by default: outside the repository), and beside them
each finished pair as a line of JSON (pairs.jsonl, after a first line with the conditions).
A match stopped by a signal, a lost machine or a session's end goes on from there (plan.resume,
`--resume`): the pairs recorded are counted, not played again, the PGN is written anew from
them and the log appended; the conditions, the seed and each recorded pair's opening must be
the same. At fixed nodes with Threads 1 the resumed match is the one that was not stopped.
"""
import json
import os
import sys
import time
from dataclasses import dataclass

from black_numba.cluster import close as cluster_close, connect as cluster_connect
from black_numba.arena import matchstats, style
from black_numba.arena.runner import describe_limits, failure, pgn_game, play_pairs, \
    read_json_lines, stop_on_signals


PAIRS_NAME = "pairs.jsonl"
PAIRS_VERSION = 1


class MatchResumeError(ValueError):
    """A match that cannot resume: no pairs file, or one of other conditions."""


# -- conditions -------------------------------------------------------------------------


def conditions(engines, settings):
    """The plain-data configuration every task gets (pickled to the workers): the two
    engines (runner.engine_spec's) and the rest (runner.settings' or match_settings').
    Two engines of one name are told apart as NAME-a and NAME-b."""
    engines = [dict(e) for e in engines]
    if engines[0]["name"] == engines[1]["name"]:
        engines[0]["name"] += "-a"
        engines[1]["name"] += "-b"
    return {"engines": engines, **settings}


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

    def add(self, res, total_pairs, opening, quiet=False):
        """Count a finished pair; its progress line unless `quiet` (a resumed pair)."""
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
        if not quiet:
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


# -- playing ----------------------------------------------------------------------------


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
    resume: bool = False                    # go on from out/pairs.jsonl


# -- the pairs file: a stopped match resumes ----------------------------------------------


def pairs_header(conf, plan):
    """The pairs file's first line: what a resumed match must share."""
    return {"match": PAIRS_VERSION, "conditions": conf, "seed": plan.seed,
            "openings": os.path.basename(plan.openings_file or "") or None,
            "random_plies": plan.random_plies, "event": plan.event}


def read_pairs(path, conf, plan, openings):
    """The pairs recorded in `path`, in order, checked against this match's conditions and
    openings; a MatchResumeError where they cannot be resumed. A last line torn by the stop
    is left out (that pair is played again)."""
    if not os.path.exists(path):
        raise MatchResumeError(f"{path}: no pairs to resume (a match writes them since "
                               f"--resume exists; start it anew)")
    try:
        lines = read_json_lines(path, torn_last=True)
    except ValueError as e:
        raise MatchResumeError(str(e)) from None
    if not lines or lines[0].get("match") != PAIRS_VERSION:
        raise MatchResumeError(f"{path}: not a match's pairs file (no conditions line)")
    old, new = lines[0], json.loads(json.dumps(pairs_header(conf, plan)))
    if old != new:
        diff = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        raise MatchResumeError(f"{path} holds a match of other conditions ({', '.join(diff)} "
                               f"differ): resume it with its own command line")
    pairs = lines[1:]
    for k, res in enumerate(pairs):
        if res.get("index") != k:
            raise MatchResumeError(f"{path}: line {k + 2} is pair {res.get('index')}, not {k}")
        if json.loads(json.dumps(openings[k % len(openings)])) != res.get("opening"):
            raise MatchResumeError(f"{path}: pair {k + 1} began from another opening (another "
                                   f"openings file or seed)")
    return pairs


def play_match(conf, openings, plan):
    """Play a match of conditions conf (conditions()) from the openings in their order
    (runner.openings_for) as `plan` says. Writes match.log, the PGN and the summary; returns
    (exit code, the summary, as written): 0 played, 1 ended by a fault, 2 the engines cannot
    play."""
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
    pairs_path = os.path.join(out, PAIRS_NAME)
    done = []
    if plan.resume:
        done = read_pairs(pairs_path, conf, plan, openings)
        with open(pairs_path + ".tmp", "w") as f:        # without a torn last line
            for line in [pairs_header(conf, plan)] + done:
                print(json.dumps(line), file=f)
        os.replace(pairs_path + ".tmp", pairs_path)
    mode = "a" if plan.resume else "w"
    with open(os.path.join(out, "match.log"), mode) as log, open(pgn_path, "w") as pgn, \
            open(pairs_path, mode) as record:
        report = Report(conf, log, plan.sprt, plan.elo_model)
        if not plan.resume:
            print(json.dumps(pairs_header(conf, plan)), file=record, flush=True)
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

        def take(res, quiet=False):
            k = res["index"]
            opening = openings[k % len(openings)]
            for game in res["games"]:
                print(pgn_game(conf, opening, game, k, plan.event, res.get("date")), file=pgn,
                      end="\n\n")
            pgn.flush()
            if not quiet:
                res = dict(res, opening=opening, date=time.strftime("%Y.%m.%d"))
                print(json.dumps(res), file=record, flush=True)
            report.add(res, pairs, opening, quiet)

        for res in done:
            take(res, quiet=True)
        if done:
            score = report.score
            report.say(f"resumed: {score.pairs} pairs from {pairs_path} (+{score.wins} "
                       f"={score.draws} -{score.losses}), pair {score.pairs + 1} next")

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
                       lambda: report.verdict is not None, start=len(done))
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
