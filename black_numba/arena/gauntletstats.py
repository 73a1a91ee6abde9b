"""The figures of a gauntlet's records (gauntlet.py): each build against each opponent, the
paired difference of each build against the first (the base) with its SPRT, the pooled
ratings of every engine, and the faults.

- Each build against each opponent: pentanomial counts, score, Elo with its 95% interval.
- The paired difference of each build against the base: for every opening and opponent both
  played, the build's pair points less the base's (-2 .. +2); their mean, its 95% interval
  from their sample variance, and that as Elo at the base's pooled score.
- An SPRT on that difference (alpha = beta = 0.05): the normal GSPRT on the paired
  differences, H0 and H1 taken as the mean difference that ELO0 and ELO1 above the base's
  pooled score would give.
- Pooled ratings: a Bradley-Terry (logistic Elo) fit of every engine to all the games, draws
  as half a win, one virtual draw a pairing (a 100% score stays finite), placed so that the
  labelled opponents' mean is their labels' mean: the opponents' offsets come from the
  games, not from their labels.
- Faults (illegal moves, time losses, crashes, hangs) for each engine; time losses also as a
  share of its games (time odds must not cost an opponent its games on time).

A record is one finished task: {"k": opening, "o": opponent, "b": build, "r": results,
"p": the build's points a game, "n": plies a game, "f": [[engine, fault], ...]}.
"""
import math

from black_numba.arena import matchstats
from black_numba.arena.matchgame import TIME_LOSS

VIRTUAL_DRAWS = 1.0          # a pairing's prior in the rating fit: one drawn game
FIT_ROUNDS = 100             # Newton steps of the rating fit (it converges in about 10)
FIT_TOLERANCE = 1e-9         # Elo: the fit's step below which it has converged
# The paired SPRT's variance is shrunk toward a prior (as fishtest regularises its counts):
# the first few pairs can agree by chance, and a sample variance of 0 would then decide on
# them at once (an LLR in the millions from two pairs of pairs). The prior's variance is
# about what gauntlets of two of our builds against the Stockfish pool measure.
PRIOR_PAIRS = 4              # pseudo-pairs of the prior
PRIOR_VARIANCE = 0.5         # points^2 a pair of pairs


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
    """Every figure of the records of a gauntlet of conditions gp (its builds, opponents and
    labels), with the paired SPRT (elo0, elo1) or None: {"cells": [...], "builds": [...],
    "paired": [...], "ratings": {...}, "faults": {...}, "games": {...}}."""
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
        named = ", ".join(f"{n} {v:g}" for n, v in labels.items())
        where = f"placed on the labels' mean ({named})" if labels else "the first engine at 0"
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
