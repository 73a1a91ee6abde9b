"""A gauntlet: builds of black_numba against a pool of foreign engines, on one opening list.
`black-numba match --build ... --opponent ...` (frontends/commands/match.py) fills its
conditions and GauntletPlan from the command line and calls run_gauntlet; `match --report
RECORDS` calls report.

Every build plays every opponent from every opening, both colours (a game pair a task). The
tasks go opening by opening, and within an opening opponent by opponent, build by build, so
that a machine that slows down hits every build alike. The figures (gauntletstats.py): each
build against each opponent, the paired difference of each build against the first (the
base) with an SPRT on it (the gauntlet stops when every build's test has decided), pooled
Bradley-Terry ratings placed on the opponents' labels, and each engine's faults.

The builds play on the shared limits; each opponent plays on the shared ones too, or on its
own (opponent_limits): a clock of its own (time odds: full-strength Stockfish on an eighth of
our time) or a node limit a move (where time odds cost it games on time).

Records: one line of JSON a finished task in the records file (default DIR/gauntlet.jsonl)
after a first line with the conditions. Run again with the same records file and conditions
to resume and append (another session, another machine): finished tasks are not played
again, and the figures are over all the records. Small enough to commit (about 90 bytes a
task); a finished gauntlet's records may be kept xz-compressed (FILE.jsonl.xz, a twelfth of
the size): report reads them, a run does not append to them.
"""
import json
import os
import sys
import time
from dataclasses import dataclass

from black_numba.arena import matchstats, runner
from black_numba.arena.gauntletstats import figures, report_lines

RECORDS_NAME = "gauntlet.jsonl"
RECORDS_VERSION = 1


class GauntletError(ValueError):
    """Bad gauntlet arguments or a records file from other conditions."""


# -- conditions -------------------------------------------------------------------------

def conditions(builds, opponents, settings, labels=None, own_limits=None):
    """The gauntlet's plain-data conditions: the builds and the opponents (engine specs as
    runner.engine_spec makes them, every name its own), the opponents' labels {name: Elo},
    each opponent's own limits where it has them ({name: limits}: opponent_limits) and the
    rest as runner.settings gives it (its limits: the builds', the opponents' shared)."""
    return {"builds": list(builds), "opponents": list(opponents), "labels": dict(labels or {}),
            "opponent_limits": dict(own_limits or {}), **settings}


def opponent_limits(shared, clocks=None, nodes=None):
    """{opponent name: its own limits}, starting from the opponents' shared limits `shared`:
    its own clock (clocks {name: (base s, increment s)}, which replaces the shared time
    limits) and its own nodes a move (nodes {name: N}); opponents named by neither are left
    out."""
    out = {}
    for name, tc in (clocks or {}).items():
        limits = out.setdefault(name, dict(shared))
        limits["tc"], limits["movetime"] = tc, None
    for name, n in (nodes or {}).items():
        out.setdefault(name, dict(shared))["nodes"] = n
    return out


def sprt_of(sprt, n_builds):
    """(ELO0, ELO1) of the paired SPRT, or None; it tests a difference, so it needs two
    builds."""
    if not sprt:
        return None
    if n_builds < 2:
        raise GauntletError("--sprt needs two builds or more (it tests their difference)")
    return tuple(sprt)


def limits_of(gp, opponent):
    """The limits [build's, opponent's] of the tasks against opponent number `opponent`."""
    name = gp["opponents"][opponent]["name"]
    own = gp.get("opponent_limits", {})
    return [gp["limits"][0], own.get(name, gp["limits"][-1])]


def task_conf(gp, build, opponent):
    """The match runner's conditions for one build against one opponent."""
    conf = {k: v for k, v in gp.items()
            if k not in ("builds", "opponents", "labels", "opponent_limits")}
    conf["engines"] = [gp["builds"][build], gp["opponents"][opponent]]
    conf["limits"] = limits_of(gp, opponent)
    return conf


def describe_pool_limits(gp):
    """The gauntlet's limits in words: the builds', and each opponent's where it differs."""
    text = runner.describe_one(gp["limits"][0])
    for o, e in enumerate(gp["opponents"]):
        own = limits_of(gp, o)[1]
        if own != gp["limits"][0]:
            text += f"; {e['name']} {runner.describe_one(own)}"
    return text


def schedule(openings, builds, opponents):
    """The tasks (opening, opponent, build) in playing order: opening by opening, then
    opponent by opponent, then build by build (interleaved)."""
    return [(k, o, b) for k in range(openings) for o in range(opponents)
            for b in range(builds)]


# -- records ----------------------------------------------------------------------------

def header(gp, plan):
    """The records' first line: what must match for a resume."""
    return {"gauntlet": RECORDS_VERSION, "builds": gp["builds"], "opponents": gp["opponents"],
            "limits": gp["limits"], "openings": os.path.basename(plan.openings.path or "")
            or None, "openings_count": plan.rounds, "seed": plan.openings.seed,
            "random_plies": plan.openings.random_plies, "chess960": gp["chess960"],
            "resign": gp["resign"], "draw": gp["draw"], "max_plies": gp["max_plies"],
            # written only when some opponent has its own limits, so that the records of
            # gauntlets from before per-opponent limits still resume
            **({"opponent_limits": gp["opponent_limits"]} if gp["opponent_limits"] else {})}


def _comparable(h):
    h = json.loads(json.dumps(h))       # tuples and lists alike
    for e in h["builds"] + h["opponents"]:
        e["cmd"] = os.path.basename(e["cmd"].split()[0]) + " " + " ".join(e["cmd"].split()[1:])
    return h


def read_records(path, running=False):
    """(header, [record]) of a records file; (None, []) where it does not exist. `running`:
    a last line not yet whole (a task being written) is left out rather than refused."""
    if not os.path.exists(path):
        return None, []
    try:
        lines = runner.read_json_lines(path, torn_last=running)
    except ValueError as e:
        raise GauntletError(str(e)) from None
    if not lines or "gauntlet" not in lines[0]:
        raise GauntletError(f"{path}: not a gauntlet's records (no conditions line)")
    return lines[0], lines[1:]


def record_of(task, res, gp):
    """A finished task as one small record."""
    k, o, b = task
    names = [gp["builds"][b]["name"], gp["opponents"][o]["name"]]
    return {"k": k, "o": names[1], "b": names[0],
            "r": [g["result"] for g in res["games"]],
            "p": [g["points"] for g in res["games"]],
            "n": [len(g["moves"]) for g in res["games"]],
            "f": [[names[i], kind] for g in res["games"] for i, kind in g["faults"]]}


# -- playing ----------------------------------------------------------------------------

@dataclass
class GauntletPlan:
    """How and where a gauntlet is played, beside its conditions: the openings each build
    plays against each opponent (rounds, both colours each) and where they come from, the
    folder of its log, games and summary, its records, the stop rule, the cluster."""
    rounds: int
    out: str
    openings: runner.Openings = runner.Openings()
    sprt: tuple = None                      # (elo0, elo1) of the paired SPRT (sprt_of)
    records: str = None                     # default out/gauntlet.jsonl
    scheduler: str = None                   # a Dask scheduler's address, else a local cluster
    concurrency: int = 1
    event: str = "black-numba match"


def _open_records(gp, plan):
    """(records path, header, the records so far, whether the file is new) of a run; a
    GauntletError for compressed records or records of other conditions."""
    path = plan.records or os.path.join(plan.out, RECORDS_NAME)
    if path.endswith(".xz"):
        raise GauntletError(f"{path}: compressed records are a finished gauntlet's, read "
                            f"by --report; decompress them (xz -d) to resume")
    head = header(gp, plan)
    old_head, records = read_records(path)
    if old_head is not None:
        a, b = _comparable(old_head), _comparable(head)
        a.pop("openings_count"), b.pop("openings_count")
        if a != b:
            diff = sorted(k for k in a if a.get(k) != b.get(k))
            raise GauntletError(f"{path} holds a gauntlet of other conditions "
                                f"({', '.join(diff)} differ): another --records")
    return path, head, records, old_head is None


def run_gauntlet(gp, plan):
    """Play a gauntlet of conditions gp (conditions()) as `plan` says, resuming its records:
    appends the records, the games (games.pgn) and the log (gauntlet.log), writes the
    summary (summary.json) and returns (exit code, the summary): 0 played, 1 ended by a
    fault, 2 the engines cannot play. Bad openings or records raise (OSError, ValueError)
    before anything is played."""
    from black_numba.arena.matchgame import MatchConfigError, close_engines, probe
    from black_numba.cluster import close as cluster_close, connect as cluster_connect
    nb, no = len(gp["builds"]), len(gp["opponents"])
    sprt, out = plan.sprt, plan.out
    openings = runner.openings_for(plan.openings, plan.rounds)
    os.makedirs(out, exist_ok=True)
    path, head, records, new = _open_records(gp, plan)
    done = {(r["k"], r["o"], r["b"]) for r in records}
    names_b = [e["name"] for e in gp["builds"]]
    names_o = [e["name"] for e in gp["opponents"]]
    tasks = [t for t in schedule(plan.rounds, nb, no)
             if (t[0], names_o[t[1]], names_b[t[2]]) not in done]

    def decided(recs):
        if not sprt:
            return False
        fig = figures(gp, recs, sprt)
        return all(p.get("sprt", {}).get("verdict") for p in fig["paired"])

    say_log = open(os.path.join(out, "gauntlet.log"), "a")

    def say(line):
        print(line, flush=True)
        say_log.write(line + "\n")
        say_log.flush()

    say(f"gauntlet: builds {', '.join(names_b)} against {', '.join(names_o)}, "
        f"{plan.rounds} openings ({plan.openings.path or 'the start position'}, seed "
        f"{plan.openings.seed}) both colours, {describe_pool_limits(gp)}; {len(records)} "
        f"tasks in {path}, {len(tasks)} to play; on "
        f"{plan.scheduler or f'{plan.concurrency} workers'}")
    if decided(records):
        tasks = []
    rc, error = 0, None
    client = cluster = None
    pgn = open(os.path.join(out, "games.pgn"), "a")
    f = open(path, "a")
    if new:
        f.write(json.dumps(head) + "\n")
        f.flush()
    t0 = time.time()
    runner.stop_on_signals()
    try:
        if tasks:
            client, cluster = cluster_connect(plan.scheduler, plan.concurrency)
            for b in range(nb):
                for o in range(no):
                    ids = client.submit(probe, task_conf(gp, b, o), pure=False).result()
                    if "error" in ids:
                        raise MatchConfigError(ids["error"])

            def task(i):
                k, o, b = tasks[i]
                return k, openings[k % len(openings)], task_conf(gp, b, o)

            def take(res):
                i = len(taken)           # results come in task order
                taken.append(i)
                k, o, b = tasks[i]
                rec = record_of(tasks[i], res, gp)
                records.append(rec)
                f.write(json.dumps(rec, separators=(",", ":")) + "\n")
                f.flush()
                for g in res["games"]:
                    print(runner.pgn_game(task_conf(gp, b, o), openings[k % len(openings)], g,
                                          k, plan.event), file=pgn, end="\n\n")
                pgn.flush()
                cell = matchstats.Score()
                for r in records:
                    if r["b"] == rec["b"] and r["o"] == rec["o"]:
                        cell.add_pair(r["p"])
                say(f"task {len(records)}: opening {k + 1}, {rec['b']} vs {rec['o']}: "
                    f"{' '.join(rec['r'])} | {rec['b']} vs {rec['o']} "
                    f"{100 * cell.score():.1f}% of {cell.games}"
                    + (f" [{', '.join(' '.join(x) for x in rec['f'])}]" if rec["f"] else ""))
                if b == nb - 1 and decided(records):
                    say("gauntlet: every SPRT has decided")
                    stopped.append(True)

            stopped, taken = [], []
            runner.play_pairs(client, len(tasks), task, take, lambda: bool(stopped),
                              prefix="gauntlet")
    except KeyboardInterrupt:
        say("gauntlet: interrupted; the finished tasks are in the records (run again to "
            "resume)")
    except Exception as e:
        rc, error = runner.failure(e)
    finally:
        # a cluster's workers outlive the gauntlet: they quit their engines now
        if client is not None and plan.scheduler:
            try:
                client.run(close_engines)
            except Exception:   # workers already gone
                pass
        cluster_close(client, cluster)
        f.close()
        pgn.close()
    if error:
        print(f"match: {error}", file=sys.stderr)
        say_log.write(f"match: {error}\n")
    fig = figures(gp, records, sprt)
    for line in report_lines(gp, fig):
        say(line)
    say(f"{time.time() - t0:.0f} s; records in {path}, games in {out}")
    say_log.close()
    summary = {"conditions": head, "figures": fig, "error": error}
    with open(os.path.join(out, "summary.json"), "w") as js:
        json.dump(summary, js, indent=1)
    return rc, summary


def report(path, head, records, labels=None, sprt=None):
    """The figures of a gauntlet's records (read_records: running or finished) as lines,
    without playing: the opponents placed on `labels` {name: Elo}, the paired SPRT
    (elo0, elo1) or None."""
    names_o = [e["name"] for e in head["opponents"]]
    gp = {"builds": head["builds"], "opponents": head["opponents"], "labels": labels or {},
          "limits": head["limits"], "opponent_limits": head.get("opponent_limits", {})}
    total = head["openings_count"] * len(head["builds"]) * len(names_o)
    return [f"gauntlet {path}: builds {', '.join(e['name'] for e in head['builds'])} "
            f"against {', '.join(names_o)}, openings "
            f"{head['openings'] or 'the start position'} (seed {head['seed']}), "
            f"{describe_pool_limits(gp)}; {len(records)} of {total} tasks"] \
        + report_lines(gp, figures(gp, records, sprt))
