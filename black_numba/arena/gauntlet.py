"""A gauntlet: builds of black_numba against a pool of foreign engines, on one opening list.

    black-numba match --build NAME=COMMAND --build NAME=COMMAND ... --opponent NAME=COMMAND ...
        [--engine-option NAME:OPTION=VALUE] [--option OPTION=VALUE] [--label NAME=ELO]
        [--opponent-tc NAME=BASE+INC] [--opponent-nodes NAME=N] [--openings FILE] [--seed 1] [--rounds OPENINGS | --games GAMES_A_BUILD]
        [--tc 10+0.1 | --movetime MS] [--nodes N] [--sprt ELO0 ELO1] [--concurrency N]
        [--out DIR] [--records FILE]
    black-numba match --report RECORDS [--label NAME=ELO] [--sprt ELO0 ELO1]

Every build plays every opponent from every opening, both colours (a game pair a task). The
tasks go opening by opening, and within an opening opponent by opponent, build by build, so
that a machine that slows down hits every build alike. Results:
- each build against each opponent: pentanomial counts, score, Elo with its 95% interval;
- the paired difference of each build against the first (the base): for every opening and
  opponent both played, the build's pair points less the base's (-2 .. +2); their mean, its
  95% interval from their sample variance, and that as Elo at the base's pooled score;
- an SPRT on that difference (--sprt ELO0 ELO1, alpha = beta = 0.05): the normal GSPRT on
  the paired differences, H0 and H1 taken as the mean difference that ELO0 and ELO1 above the
  base's pooled score would give; the gauntlet stops when every build's test has decided;
- pooled ratings: a Bradley-Terry (logistic Elo) fit of every engine to all the games, draws
  as half a win, one virtual draw a pairing (a 100% score stays finite), placed so that the
  labelled opponents' mean is their labels' mean (--label NAME=ELO): the opponents' offsets
  come from the games, not from their labels;
- faults (illegal moves, time losses, crashes, hangs) for each engine.

The builds play on the shared limits (--tc, --nodes, ... and their -a forms); each opponent
plays on the shared ones too (and the -b forms), or on its own: --opponent-tc NAME=BASE+INC
gives it its own clock (time odds: full-strength Stockfish on an eighth of our time) and
--opponent-nodes NAME=N a node limit a move (where time odds cost it games on time).

Records: one line of JSON a finished task in --records (default DIR/gauntlet.jsonl) after a
first line with the conditions. Run again with the same records file and conditions to resume
and append (another session, another machine): finished tasks are not played again, and the
figures are over all the records. Small enough to commit (about 90 bytes a task); a finished
gauntlet's records may be kept xz-compressed (FILE.jsonl.xz, a twelfth of the size): --report
reads them, a run does not append to them.
"""
import json
import lzma
import math
import os
import sys
import time

from black_numba.arena import matchstats, runner
from black_numba.arena.matchgame import TIME_LOSS

RECORDS_NAME = "gauntlet.jsonl"
VIRTUAL_DRAWS = 1.0          # a pairing's prior in the rating fit: one drawn game
FIT_ROUNDS = 100             # Newton steps of the rating fit (it converges in about 10)
FIT_TOLERANCE = 1e-9         # Elo: the fit's step below which it has converged
# The paired SPRT's variance is shrunk toward a prior (as fishtest regularises its counts):
# a few pairs can agree by chance, and a variance of 0 would decide on them (GA4 took
# "H0" from two pairs of pairs, LLR -5e7).
PRIOR_PAIRS = 4              # pseudo-pairs of the prior
PRIOR_VARIANCE = 0.5         # points^2 a pair of pairs: GA2's and GA3's paired variance
RECORDS_VERSION = 1


class GauntletError(ValueError):
    """Bad gauntlet arguments or a records file from other conditions."""


# -- arguments ------------------------------------------------------------------------

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


def sprt_of(args, n_builds):
    """(ELO0, ELO1) of --sprt, or None; it tests a difference, so it needs two builds."""
    if not args.sprt:
        return None
    if n_builds < 2:
        raise GauntletError("--sprt needs two builds or more (it tests their difference)")
    return tuple(args.sprt)


def plan(args):
    """The gauntlet's plain-data conditions: builds, opponents (each an engine spec as the
    match runner's), labels, the limits and the match runner's other settings."""
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
    spec = lambda n, c: runner.engine_spec(c, n, args.option + own[n])
    conf = runner.settings(args)
    return {"builds": [spec(n, c) for n, c in builds],
            "opponents": [spec(n, c) for n, c in opponents], "labels": labels,
            "opponent_limits": opponent_limits(args, [n for n, _ in opponents],
                                               conf["limits"][1]),
            **conf}


def opponent_limits(args, names, shared):
    """{opponent name: its own limits} of --opponent-tc NAME=BASE+INC (its clock replaces
    the shared time limits) and --opponent-nodes NAME=N (its nodes a move), starting from
    the opponents' shared limits `shared`; opponents named by neither are left out."""
    out = {}
    for flag, texts in (("--opponent-tc", args.opponent_tc),
                        ("--opponent-nodes", args.opponent_nodes)):
        for text in texts:
            name, eq, value = (x.strip() for x in text.partition("="))
            if not eq or name not in names:
                raise GauntletError(f"{flag} {text!r} is not NAME=VALUE for an opponent "
                                    f"({', '.join(names)})")
            limits = out.setdefault(name, dict(shared))
            if flag == "--opponent-tc":
                limits["tc"], limits["movetime"] = runner.parse_tc(value, flag), None
            else:
                try:
                    limits["nodes"] = int(value)
                except ValueError:
                    raise GauntletError(f"{flag} {text!r}: {value!r} is not a whole "
                                        f"number") from None
                if limits["nodes"] < 1:
                    raise GauntletError(f"{flag} {text!r}: nodes must be at least 1")
    return out


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


# -- records --------------------------------------------------------------------------

def header(gp, args, n_openings):
    """The records' first line: what must match for a resume."""
    return {"gauntlet": RECORDS_VERSION, "builds": gp["builds"], "opponents": gp["opponents"],
            "limits": gp["limits"], "openings": os.path.basename(args.openings or "")
            or None, "openings_count": n_openings, "seed": args.seed,
            "random_plies": args.random_plies, "chess960": gp["chess960"],
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
    opener = lzma.open if path.endswith(".xz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            texts = [line for line in f if line.strip()]
    except (lzma.LZMAError, EOFError, UnicodeDecodeError) as e:
        raise GauntletError(f"{path}: unreadable records ({e})") from None
    lines = []
    for i, text in enumerate(texts):
        try:
            lines.append(json.loads(text))
        except json.JSONDecodeError:
            if running and i == len(texts) - 1 and i > 0:
                break
            raise GauntletError(f"{path}: line {i + 1} is not JSON (not a gauntlet's "
                                f"records, or a torn one)") from None
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


# -- figures --------------------------------------------------------------------------

def paired(records, base, build):
    """The paired difference of `build` against `base`: (pairs, mean, low, high) in points a
    game pair (-2 .. +2), over the (opening, opponent) both played; None without two."""
    by = {}
    for r in records:
        if r["b"] in (base, build):
            by.setdefault((r["k"], r["o"]), {})[r["b"]] = sum(r["p"])
    d = [v[build] - v[base] for v in by.values() if len(v) == 2]
    if len(d) < 2:
        return None
    n = len(d)
    mean = sum(d) / n
    var = sum((x - mean) ** 2 for x in d) / (n - 1)
    half = matchstats.Z95 * math.sqrt(var / n)
    return n, mean, mean - half, mean + half, var


def score_of(records, name):
    """(points, games) of a build over records."""
    pts = [p for r in records if r["b"] == name for p in r["p"]]
    return sum(pts), len(pts)


def elo_shift(base_score, diff_points):
    """Elo of a build whose score is the base's plus diff_points a pair (two games), less the
    base's Elo: the paired difference on the Elo scale at the base's score."""
    return matchstats.elo(base_score + diff_points / 2) - matchstats.elo(base_score)


def paired_llr(d_mean, d_var, n, base_score, elo0, elo1):
    """The normal GSPRT's log-likelihood ratio of H1 (the build ELO1 above the base) against
    H0 (ELO0 above) from n paired differences of mean d_mean and variance d_var (points a
    pair): each hypothesis's mean difference is what its Elo gives at the base's score; the
    variance shrunk toward PRIOR_VARIANCE by PRIOR_PAIRS pseudo-pairs."""
    e = matchstats.elo(base_score)
    mu = [2 * (matchstats.expected_score(e + x) - matchstats.expected_score(e))
          for x in (elo0, elo1)]
    dof = max(n - 1, 0)              # the sample variance's degrees of freedom
    var = (d_var * dof + PRIOR_PAIRS * PRIOR_VARIANCE) / (dof + PRIOR_PAIRS)
    return n * (mu[1] - mu[0]) * (d_mean - (mu[0] + mu[1]) / 2) / var


def fit_ratings(games, labels):
    """Bradley-Terry ratings (logistic Elo) from games [(a, b, points of a)], draws as half a
    win, VIRTUAL_DRAWS drawn games added to every pairing; placed so that the mean of the
    labelled engines' ratings is the mean of their labels (else the first engine at 0).
    Returns {name: (rating, 95% half-width)} (the half-width of the rating less the labelled
    mean, from the fit's information matrix)."""
    import numpy as np
    names = sorted({g[0] for g in games} | {g[1] for g in games})
    ix = {n: i for i, n in enumerate(names)}
    m = len(names)
    n_ij = np.zeros((m, m))
    w_ij = np.zeros((m, m))
    for a, b, p in games:
        i, j = ix[a], ix[b]
        n_ij[i, j] += 1
        n_ij[j, i] += 1
        w_ij[i, j] += p
        w_ij[j, i] += 1 - p
    played = n_ij > 0
    n_ij += VIRTUAL_DRAWS * played
    w_ij += VIRTUAL_DRAWS / 2 * played
    c = math.log(10) / 400
    r = np.zeros(m)
    free = np.arange(1, m)          # the first engine fixed at 0 while fitting (the gauge)
    for _ in range(FIT_ROUNDS):
        p = 1 / (1 + np.exp(-c * (r[:, None] - r[None, :])))
        grad = c * (w_ij - n_ij * p).sum(axis=1)
        hess = -c * c * n_ij * p * (1 - p)
        hess[np.diag_indices(m)] = -hess.sum(axis=1)     # information matrix
        h = hess[np.ix_(free, free)]
        step = np.linalg.solve(h, grad[free])
        r[free] += step
        if np.max(np.abs(step)) < FIT_TOLERANCE:
            break
    cov = np.zeros((m, m))
    cov[np.ix_(free, free)] = np.linalg.inv(h)
    anchored = [ix[n] for n in labels if n in ix]
    shift = (np.mean([labels[names[i]] for i in anchored]) - r[anchored].mean()) \
        if anchored else 0.0
    out = {}
    for i, n in enumerate(names):
        a = np.zeros(m)
        a[i] += 1
        if anchored:
            a[anchored] -= 1 / len(anchored)
        else:
            a[0] -= 1
        out[n] = (float(r[i] + shift), float(matchstats.Z95 * math.sqrt(max(a @ cov @ a, 0))))
    return out


def figures(gp, records, sprt=None):
    """Every figure of the records: {"cells": [...], "builds": [...], "paired": [...],
    "ratings": {...}, "faults": {...}}."""
    builds = [e["name"] for e in gp["builds"]]
    opps = [e["name"] for e in gp["opponents"]]
    out = {"cells": [], "builds": [], "paired": [], "faults": {}}
    for b in builds:
        for o in opps:
            s = matchstats.Score()
            for r in records:
                if r["b"] == b and r["o"] == o:
                    s.add_pair(r["p"])
            out["cells"].append({"build": b, "opponent": o, **s.summary()})
        s = matchstats.Score()
        for r in records:
            if r["b"] == b:
                s.add_pair(r["p"])
        out["builds"].append({"build": b, **s.summary()})
    base = builds[0]
    pts, n = score_of(records, base)
    base_score = pts / n if n else 0.5
    for b in builds[1:]:
        pr = paired(records, base, b)
        if pr is None:
            out["paired"].append({"build": b, "base": base, "pairs": 0})
            continue
        n_pairs, mean, lo, hi, var = pr
        row = {"build": b, "base": base, "pairs": n_pairs, "points": mean, "points_95": [lo, hi],
               "elo": elo_shift(base_score, mean),
               "elo_95": [elo_shift(base_score, lo), elo_shift(base_score, hi)]}
        if sprt:
            llr = paired_llr(mean, var, n_pairs, base_score, *sprt)
            row["sprt"] = {"elo0": sprt[0], "elo1": sprt[1], "llr": llr,
                           "bounds": list(matchstats.sprt_bounds()),
                           "verdict": matchstats.sprt_state(llr, matchstats.sprt_bounds())}
        out["paired"].append(row)
    games = [(r["b"], r["o"], p) for r in records for p in r["p"]]
    out["ratings"] = fit_ratings(games, gp["labels"]) if games else {}
    out["games"] = {}
    for name in builds + opps:
        kinds = {}
        for r in records:
            for who, kind in r["f"]:
                if who == name:
                    kinds[kind] = kinds.get(kind, 0) + 1
        out["faults"][name] = kinds
        out["games"][name] = sum(len(r["p"]) for r in records if name in (r["b"], r["o"]))
    return out


def report_lines(gp, fig):
    """The figures as text."""
    lines = [f"{'build':<14} {'opponent':<14} {'games':>5} {'W-L-D':>11} {'score':>6} "
             f"{'Elo (95%)':>22}  pentanomial"]
    for c in fig["cells"] + [dict(r, opponent="all") for r in fig["builds"]]:
        if not c["games"]:
            continue
        lo, hi = c["elo_95"]
        lines.append(f"{c['build']:<14} {c['opponent']:<14} {c['games']:>5} "
                     f"{c['wins']:>3}-{c['losses']}-{c['draws']:<4} {100 * c['score']:>5.1f}% "
                     f"{c['elo']:>+7.1f} ({lo:+.1f} .. {hi:+.1f})  "
                     f"{list(c['pentanomial'].values())}")
    for p in fig["paired"]:
        if not p["pairs"]:
            lines.append(f"paired {p['build']} - {p['base']}: no common openings yet")
            continue
        lo, hi = p["points_95"]
        elo_lo, elo_hi = p["elo_95"]
        line = (f"paired {p['build']} - {p['base']}: {p['points']:+.3f} points a pair "
                f"({lo:+.3f} .. {hi:+.3f}) over {p['pairs']} pairs of pairs, Elo "
                f"{p['elo']:+.1f} ({elo_lo:+.1f} .. {elo_hi:+.1f})")
        if "sprt" in p:
            sp = p["sprt"]
            verdict = {"H0": f"H0 accepted (<= {sp['elo0']:g})",
                       "H1": f"H1 accepted (>= {sp['elo1']:g})", None: "no verdict"}
            line += (f"; SPRT {sp['elo0']:g} .. {sp['elo1']:g}: LLR {sp['llr']:+.2f} "
                     f"({sp['bounds'][0]:+.2f} .. {sp['bounds'][1]:+.2f}), "
                     f"{verdict[sp['verdict']]}")
        lines.append(line)
    if fig["ratings"]:
        labels = gp["labels"]
        where = (f"placed on the labels' mean ({', '.join(f'{n} {v:g}' for n, v in labels.items())})"
                 if labels else "the first engine at 0")
        lines.append(f"ratings (Bradley-Terry fit of all games, {where}):")
        for name, (r, half) in sorted(fig["ratings"].items(), key=lambda kv: -kv[1][0]):
            label = f"  label {labels[name]:g}" if name in labels else ""
            lines.append(f"  {name:<14} {r:7.1f} +- {half:.1f}{label}")
    games = fig.get("games", {})

    def fault(name, kind, count):     # time losses as a share too: time odds must not flag
        n = games.get(name)
        return f"{kind} {count} ({100 * count / n:.1f}%)" if kind == TIME_LOSS and n else \
            f"{kind} {count}"
    lines.append("faults: " + "; ".join(
        f"{n}: " + (", ".join(fault(n, k, v) for k, v in kinds.items()) or "none")
        for n, kinds in fig["faults"].items()))
    return lines


# -- the command ----------------------------------------------------------------------

def run(args):
    """`black-numba match --build ... --opponent ...`; returns the exit code."""
    from black_numba.arena.matchgame import MatchConfigError, close_engines, probe
    from black_numba.cluster import close as cluster_close, connect as cluster_connect
    try:
        if args.engine_a or args.engine_b:
            raise GauntletError("a gauntlet takes --build and --opponent, not ENGINE_A ENGINE_B")
        gp = plan(args)
        nb, no = len(gp["builds"]), len(gp["opponents"])
        sprt = sprt_of(args, nb)
        if args.rounds is not None:
            n_open = args.rounds
        else:
            n_open = -(-args.games // (2 * no))      # games a build, over all opponents
        if n_open < 1:
            raise GauntletError("--games and --rounds must be at least 1")
        openings = runner.openings_for(args, n_open)
        out = args.out or runner.default_dir("gauntlet", "pool")
        os.makedirs(out, exist_ok=True)
        path = args.records or os.path.join(out, RECORDS_NAME)
        if path.endswith(".xz"):
            raise GauntletError(f"{path}: compressed records are a finished gauntlet's, read "
                                f"by --report; decompress them (xz -d) to resume")
        head = header(gp, args, n_open)
        old_head, records = read_records(path)
        if old_head is not None:
            a, b = _comparable(old_head), _comparable(head)
            a.pop("openings_count"), b.pop("openings_count")
            if a != b:
                diff = sorted(k for k in a if a.get(k) != b.get(k))
                raise GauntletError(f"{path} holds a gauntlet of other conditions "
                                    f"({', '.join(diff)} differ): another --records")
    except (OSError, ValueError) as e:
        print(f"match: {e}", file=sys.stderr)
        return 2
    done = {(r["k"], r["o"], r["b"]) for r in records}
    names_b = [e["name"] for e in gp["builds"]]
    names_o = [e["name"] for e in gp["opponents"]]
    tasks = [t for t in schedule(n_open, nb, no)
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
        f"{n_open} openings ({args.openings or 'the start position'}, seed {args.seed}) "
        f"both colours, {describe_pool_limits(gp)}; {len(records)} tasks in "
        f"{path}, {len(tasks)} to play; on {args.scheduler or f'{args.concurrency} workers'}")
    if decided(records):
        tasks = []
    rc, error = 0, None
    client = cluster = None
    pgn = open(os.path.join(out, "games.pgn"), "a")
    f = open(path, "a")
    if old_head is None:
        f.write(json.dumps(head) + "\n")
        f.flush()
    t0 = time.time()
    runner.stop_on_signals()
    try:
        if tasks:
            client, cluster = cluster_connect(args.scheduler, args.concurrency)
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
                                         k, args.event), file=pgn, end="\n\n")
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
        if client is not None and args.scheduler:
            try:
                client.run(close_engines)
            except Exception:
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
    with open(os.path.join(out, "summary.json"), "w") as js:
        json.dump({"conditions": header(gp, args, n_open), "figures": fig, "error": error},
                  js, indent=1)
    return rc


def report(args):
    """`black-numba match --report RECORDS`: the figures of a gauntlet's records (running or
    finished) without playing; --label and --sprt as for the run. Returns the exit code."""
    try:
        head, records = read_records(args.report, running=True)
        if head is None:
            raise GauntletError(f"{args.report}: no such records file")
        names_o = [e["name"] for e in head["opponents"]]
        gp = {"builds": head["builds"], "opponents": head["opponents"],
              "labels": parse_labels(args.label, names_o), "limits": head["limits"],
              "opponent_limits": head.get("opponent_limits", {})}
        sprt = sprt_of(args, len(gp["builds"]))
    except (OSError, ValueError) as e:
        print(f"match: {e}", file=sys.stderr)
        return 2
    total = head["openings_count"] * len(head["builds"]) * len(names_o)
    print(f"gauntlet {args.report}: builds {', '.join(e['name'] for e in head['builds'])} "
          f"against {', '.join(names_o)}, openings {head['openings'] or 'the start position'} "
          f"(seed {head['seed']}), {describe_pool_limits(gp)}; {len(records)} of "
          f"{total} tasks")
    for line in report_lines(gp, figures(gp, records, sprt)):
        print(line)
    return 0


def add_arguments(ap):
    """The gauntlet's own flags on the match command."""
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
                        f"DIR/{RECORDS_NAME})")
