"""The strength table (UCI_Elo -> skill level) fitted from games against Stockfish 15.1 at
each label, written with its stamp: `black-numba calibrate` (frontends/commands/calibrate.py)
fills a CalibrationPlan and calls calibrate.

For each label X, black_numba plays Stockfish 15.1 at `UCI_LimitStrength` + `UCI_Elo X`
(Threads 1, Hash 16 both) at several real skill levels around the level the current table
gives X (the offsets), the plan's games a label shared among them, each level a match of
the project's match runner (match.play_match, answered in memory; its log, games and
summary in the plan's folder, outside the repository). Full strength (level 20) plays its
own games against Stockfish at the plan's full_opponent (default the current table's full
strength). black_numba's level is set by the option `Calibration Level` (hundredths of a
level), which the engine offers only with BLACK_NUMBA_CALIBRATE=1 in its environment.
A strength validation's match (black_numba at the table's level for a label against
Stockfish at that label) can join the fit's records as one match at its level
(validation_match), so that a label refitted after a failed validation is fitted on those
games too.

The fit (`fit`): every game is (level, opponent Elo, points). Under the logistic Elo model a
level of Elo e scores 1 / (1 + 10^((o - e) / 400)) against opponent Elo o; a draw counts as
half a win and half a loss. The Elo of each level played is the maximum-likelihood one
subject to Elo rising with level: the pool-adjacent-violators algorithm on the levels in
order, each block's Elo the one-dimensional MLE of its games (exact for a separable concave
likelihood under a chain order). PRIOR_DRAWS virtual draws a level against its own mean
opponent keep a level that won or lost every game finite (BayesElo's prior).
Stockfish's labels are not one scale against this engine, so the table places each label by
its own games (table_from_games): the level where the monotone fit of the games against that
label reaches the label, i.e. scores 50% against it (crossing). The top point is full
strength at level 20, its Elo the top block of the fit of all the games; UCI_Elo maps
piecewise linearly between the points, and its maximum is full strength's fitted Elo, so the
mapping reaches level 20 continuously at the top.

The table goes to the plan's table file with its stamp (the network's weights hash, the bench
signature, the date, the records it was fitted on); the compact per-game records (label,
level, opponent Elo, results, network hash, the match summary's path) go next to it, in
TABLE.games.json
(the table's name with .games.json), which the stamp names and tests/test_strength.py checks.
"""
import datetime
import json
import math
import os
import shlex
import sys
from collections import defaultdict
from dataclasses import dataclass

from black_numba.arena.matchstats import elo as score_elo
from black_numba.provenance import git_commit
from black_numba.search import strength

DEFAULT_LABELS = (1350, 1600, 1900, 2200)
DEFAULT_OFFSETS = (-1.0, 0.0, 1.0)
DEFAULT_GAMES = 100            # a label, shared among its levels (rounded up to pairs)
DEFAULT_TC = "10+0.1"
STOCKFISH_ELO = (1350, 2850)   # Stockfish 15.1's UCI_Elo range
STOCKFISH_PATHS = ("/usr/games/stockfish", "stockfish")
HASH_MB = 16
OPPONENT = "Stockfish 15.1, Threads 1, Hash 16"   # every calibration match's opponent
LEVEL_TOP = 19.99              # the highest limited level (hundredths; 20 is full strength)
PRIOR_DRAWS = 1                # virtual draws a level against its mean opponent
ELO_SPAN = 3000                # the MLE is sought within the opponents' Elo +- this
BISECTION_STEPS = 100
VALIDATION_TOLERANCE = 75.0    # Elo: a validated label's 100 games score within this of 50%
VALIDATION_KEYS = ("run", "label", "level", "games", "points", "elo")
LN10_400 = math.log(10) / 400
RECORDS_FORMAT = 1
RESULT_CHAR = {1.0: "1", 0.5: "=", 0.0: "0"}
# a strength validation's match names our side so and Stockfish sf<UCI_Elo>
VALIDATION_ENGINE = "black_numba"
VALIDATION_OPPONENT = "sf"
# the folder the package lies in (a checkout, or site-packages): the engine's PYTHONPATH
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the held-out openings, shipped with the package (no test or tuning ever plays them)
HOLDOUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "openings_holdout.epd")


# -- the fit ----------------------------------------------------------------------------

def expected(elo, opponent):
    """The logistic model's expected score of Elo elo against opponent."""
    return 1 / (1 + math.exp((opponent - elo) * LN10_400))


def mle(games):
    """The Elo maximising sum s log p + (1 - s) log(1 - p) over (opponent, points) games:
    the root of sum (s - p), which falls with Elo (bisection)."""
    lo = min(o for o, _ in games) - ELO_SPAN
    hi = max(o for o, _ in games) + ELO_SPAN
    for _ in range(BISECTION_STEPS):
        mid = (lo + hi) / 2
        if sum(s - expected(mid, o) for o, s in games) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def log_likelihood(games, elo):
    out = 0.0
    for o, s in games:
        p = expected(elo, o)
        out += s * math.log(p) + (1 - s) * math.log(1 - p)
    return out


def fit(games, prior_draws=PRIOR_DRAWS):
    """The monotone maximum-likelihood Elo of each level from (level, opponent Elo, points)
    games: a list of blocks, rising strictly in Elo, each {"levels": [...], "elo", "games",
    "score"} (levels pooled by the monotone constraint share one block)."""
    by_level = defaultdict(list)
    for level, opponent, pts in games:
        if pts not in RESULT_CHAR:
            raise ValueError(f"a game's points must be 0, 0.5 or 1, not {pts!r}")
        by_level[round(float(level), 2)].append((float(opponent), float(pts)))
    if not by_level:
        raise ValueError("no games to fit")
    blocks = []
    for level in sorted(by_level):
        played = by_level[level]
        mean = sum(o for o, _ in played) / len(played)
        terms = played + [(mean, 0.5)] * prior_draws
        blocks.append({"levels": [level], "terms": terms, "played": list(played),
                       "elo": mle(terms)})
        # pool adjacent violators: a block not above the one before joins it
        while len(blocks) > 1 and blocks[-2]["elo"] >= blocks[-1]["elo"]:
            b = blocks.pop()
            a = blocks[-1]
            a["levels"] += b["levels"]
            a["terms"] += b["terms"]
            a["played"] += b["played"]
            a["elo"] = mle(a["terms"])
    return [{"levels": b["levels"], "elo": b["elo"], "games": len(b["played"]),
             "score": sum(s for _, s in b["played"]) / len(b["played"]),
             "log_likelihood": log_likelihood(b["played"], b["elo"])} for b in blocks]


def table_of(blocks):
    """(elo_levels, elo_max) from the fit's blocks: a point a block at its middle level, the
    top block at level 20 (it holds full strength), Elo rounded; points whose rounded Elo
    ties are merged. ValueError without full-strength games."""
    if strength.SKILL_MAX not in blocks[-1]["levels"]:
        raise ValueError("the fit needs full-strength games (level 20) for the top of the table")
    points = []
    for i, b in enumerate(blocks):
        level = float(strength.SKILL_MAX) if i == len(blocks) - 1 else \
            round((min(b["levels"]) + max(b["levels"])) / 2, 2)
        elo = round(b["elo"])
        if points and points[-1][0] >= elo:
            # a tie after rounding: the higher point stands for both (the top keeps level 20)
            points.pop()
        points.append((elo, level))
    if len(points) < 2:
        raise ValueError("the fit gives fewer than two points: play levels further apart")
    return points, points[-1][0]


def crossing(blocks, label):
    """The level at which the monotone fit of one label's games (fit) reaches the label's
    Elo, i.e. scores 50% against Stockfish at that label (within 0..LEVEL_TOP); None with a
    single block (no slope to go by). The fit is flat across a pooled block, so the curve
    rises only in the gaps between blocks: linear from the highest level of the block below
    the label to the lowest level of the block above it; a label equal to a block's Elo sits
    at that block's middle; beyond the levels played, the nearest gap's slope from the end
    block's outer level."""
    if len(blocks) < 2:
        return None
    lo = [min(b["levels"]) for b in blocks]
    hi = [max(b["levels"]) for b in blocks]
    elo = [b["elo"] for b in blocks]
    k = next((i for i, e in enumerate(elo) if e >= label), len(elo))
    if k < len(elo) and elo[k] == label:
        level = (lo[k] + hi[k]) / 2
    elif k == 0:
        level = lo[0] - (lo[1] - hi[0]) * (elo[0] - label) / (elo[1] - elo[0])
    elif k == len(elo):
        level = hi[-1] + (lo[-1] - hi[-2]) * (label - elo[-1]) / (elo[-1] - elo[-2])
    else:
        level = hi[k - 1] + (lo[k] - hi[k - 1]) * (label - elo[k - 1]) / (elo[k] - elo[k - 1])
    return round(min(max(level, 0.0), LEVEL_TOP), 2)


def _rising(points):
    """Pool adjacent violators over (label, level) points in label order until the levels
    rise strictly: a pooled run becomes one point at its mean label and mean level."""
    runs = []
    for label, level in points:
        runs.append([[label], [level]])
        while len(runs) > 1 and sum(runs[-2][1]) / len(runs[-2][1]) >= \
                sum(runs[-1][1]) / len(runs[-1][1]):
            b = runs.pop()
            runs[-1][0] += b[0]
            runs[-1][1] += b[1]
    return [(round(sum(a) / len(a)), round(sum(b) / len(b), 2)) for a, b in runs]


def table_from_games(games):
    """(elo_levels, elo_max, blocks, labels) of the table fitted to (level, opponent Elo,
    points) games. Stockfish's labels are not one Elo scale against this engine (level 17.3
    scored 86.8% against Stockfish 1900 and 17.51 13.2% against 2200), so each label is placed
    by its own games: the level where the monotone fit of the games against that label
    (fit) reaches the label, which is where black_numba scores 50% against it (crossing).
    Full strength's Elo (the top block of the fit of all the games: table_of) is the top
    point, at level 20, and UCI_Elo's maximum. A label whose games give a single block, or
    at or above full strength, falls back on the fit of all the games (table_of's points).
    The labels' levels are made to rise strictly with the label (_rising)."""
    blocks = fit(games)
    pooled, elo_max = table_of(blocks)
    by_label = defaultdict(list)
    for level, opponent, pts in games:
        by_label[round(float(opponent))].append((level, opponent, pts))
    points, labels = [], []
    for label in sorted(by_label):
        if label >= elo_max or all(g[0] >= strength.SKILL_MAX for g in by_label[label]):
            continue
        own = fit(by_label[label])
        level = crossing(own, label)
        how = "own games"
        if level is None:
            level = round(strength.level_at(pooled, label), 2)
            how = "fit of all games"
        points.append((label, level))
        labels.append({"label": label, "level": level, "from": how,
                       "games": sum(b["games"] for b in own),
                       "levels": [{"levels": b["levels"], "elo": round(b["elo"], 1),
                                   "games": b["games"], "score": round(b["score"], 4)}
                                  for b in own]})
    points = _rising(points) + [(elo_max, float(strength.SKILL_MAX))]
    if len(points) < 2:
        raise ValueError("the fit gives fewer than two points: play a label below full "
                         "strength")
    return points, elo_max, blocks, labels


# -- records and stamp ------------------------------------------------------------------

def records_path(table_path):
    return os.path.splitext(table_path)[0] + ".games.json"


def read_records(path):
    """The matches of a records file: [{"label", "level", "opponent_elo", "network",
    "bench", "results", "log", ...}]; ValueError if malformed."""
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except ValueError as e:
            raise ValueError(f"{path}: not JSON: {e}") from None
    if not isinstance(data, dict) or data.get("format") != RECORDS_FORMAT or \
            not isinstance(data.get("matches"), list):
        raise ValueError(f"{path}: not a format {RECORDS_FORMAT} records file")
    for m in data["matches"]:
        missing = [k for k in ("label", "level", "opponent_elo", "network", "bench", "results")
                   if not isinstance(m, dict) or k not in m]
        if missing:
            raise ValueError(f"{path}: a match lacks {', '.join(missing)}")
        if not isinstance(m["results"], str) or set(m["results"]) - set(RESULT_CHAR.values()):
            raise ValueError(f"{path}: bad results {m['results']!r}")
    return data["matches"]


def games_of(matches):
    """(level, opponent Elo, points) of every game of the records' matches."""
    points = {c: p for p, c in RESULT_CHAR.items()}
    return [(m["level"], m["opponent_elo"], points[c]) for m in matches for c in m["results"]]


def network_hash(evalfile=None):
    from black_numba.evaluation import netfile
    return netfile.weights_sha256(evalfile or netfile.DEFAULT_NET)


def record_conditions(matches):
    """The conditions a fit of recorded games can state (`--fit-only`): the labels and the
    levels played against each, and full strength's opponents; the clock, openings and seed
    are each part's own, in its log."""
    full = [m for m in matches if m["level"] >= strength.SKILL_MAX]
    rest = [m for m in matches if m["level"] < strength.SKILL_MAX]
    labels = sorted({m["label"] for m in rest})
    return {"fit_only": True, "opponent": OPPONENT,
            "labels": labels,
            "levels": {str(lab): sorted({m["level"] for m in rest if m["label"] == lab})
                       for lab in labels},
            "full_opponents": sorted({m["opponent_elo"] for m in full}),
            "parts": "each part's clock, openings and seed are in its log (stamp.matches)"}


def write_table(table_path, matches, conditions):
    """Fit the records' games and write the table (with its stamp) and the records; returns
    the fit's blocks and the labels' placements (table_from_games). ValueError when the
    records disagree on the network or the search."""
    networks = {m["network"] for m in matches}
    benches = {m["bench"] for m in matches}
    if len(networks) != 1 or len(benches) != 1:
        raise ValueError(f"the records come from {len(networks)} networks and {len(benches)} "
                         f"bench signatures: fit only games of one network and search")
    points, elo_max, blocks, labels = table_from_games(games_of(matches))
    rec_path = records_path(table_path)
    folder = os.path.dirname(os.path.abspath(table_path))
    os.makedirs(folder, exist_ok=True)
    stamp = {"fitted": True, "network": networks.pop(), "bench": benches.pop(),
             "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
             "commit": git_commit(short=True), "logs": [os.path.basename(rec_path)],
             "matches": [m.get("log") for m in matches], "conditions": conditions}
    table = {"format": strength.TABLE_FORMAT, "elo_levels": [list(p) for p in points],
             "elo_max": elo_max, "stamp": stamp,
             "fit": {"method": "each label at the level where the monotone maximum-likelihood "
                               "fit (logistic Elo, PAVA, "
                               f"{PRIOR_DRAWS} virtual draw a level) of its own games reaches "
                               "it; full strength from the fit of all games",
                     "labels": labels,
                     "levels": [{"levels": b["levels"], "elo": round(b["elo"], 1),
                                 "games": b["games"], "score": round(b["score"], 4)}
                                for b in blocks]}}
    write_records(rec_path, matches)
    _write_json(table_path, table)
    strength.load_table(table_path)           # what the engine will read must load
    return blocks, labels


def _write_json(path, data):
    """Write by a temporary file and a rename, so that a reader never sees half a file."""
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)


def write_records(path, matches):
    """The compact per-game records (read_records reads them back, --include adds them)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    _write_json(path, {"format": RECORDS_FORMAT, "matches": matches})


def stamp_problems(table_path, network):
    """What is wrong with a table's stamp for the network (weights hash) shipped with it: []
    when nothing. A fitted table must name records that exist, each match of them with the
    stamp's network and bench signature, and be the fit of their games; an unfitted
    (provisional) one must say why and name no records. Either must carry the network's
    hash."""
    t = strength.load_table(table_path)
    stamp, problems = t["stamp"], []
    if stamp["network"] != network:
        problems.append(f"the stamp's network {stamp['network'][:16]} is not the shipped "
                        f"network {network[:16]}: run `black-numba calibrate`")
    if not stamp["fitted"]:
        if not stamp.get("reason") or stamp["logs"]:
            problems.append("an unfitted table must give a reason and name no records")
        return problems + validation_problems(t)
    matches = []
    for name in stamp["logs"]:
        path = os.path.join(os.path.dirname(os.path.abspath(table_path)), name)
        try:
            found = read_records(path)
        except (OSError, ValueError, KeyError, TypeError) as e:
            problems.append(f"the records {name} cannot be read: {e}")
            continue
        for m in found:
            if m["network"] != stamp["network"] or m["bench"] != stamp["bench"]:
                problems.append(f"{name}: the match at level {m['level']} was played with "
                                f"the network {m['network'][:16]}, bench {m['bench']}, not the "
                                f"stamp's")
        matches += found
    if not stamp["logs"]:
        problems.append("a fitted table must name its records")
    if matches and not problems:
        try:
            points, elo_max = table_from_games(games_of(matches))[:2]
        except ValueError as e:
            problems.append(f"the records do not fit: {e}")
        else:
            if tuple(points) != t["elo_levels"] or elo_max != t["elo_max"]:
                problems.append("the table is not the fit of its records")
    return problems


def validation_problems(table):
    """What is wrong with an unfitted table's validation (stamp "validation": one match a
    label, {run, label, level, games, points, elo}, played with the stamp's engine): []
    when it has none, or when every label below full strength has one, at the level the
    table gives it, whose Elo is its score's and lies within VALIDATION_TOLERANCE."""
    runs = table["stamp"].get("validation")
    if runs is None:
        return []
    levels = dict(table["elo_levels"][:-1])
    problems, seen = [], set()
    for v in runs:
        if not isinstance(v, dict) or any(k not in v for k in VALIDATION_KEYS):
            problems.append(f"a validation entry lacks one of {', '.join(VALIDATION_KEYS)}: {v}")
            continue
        label, score = v["label"], v["points"] / v["games"] if v["games"] else 0.0
        seen.add(label)
        if levels.get(label) != v["level"]:
            problems.append(f"validation {v['run']}: label {label} played at level "
                            f"{v['level']}, the table gives {levels.get(label)}")
        if abs(score_elo(score) - v["elo"]) > 0.1:
            problems.append(f"validation {v['run']}: Elo {v['elo']} is not its score's "
                            f"({v['points']} of {v['games']})")
        elif abs(v["elo"]) > VALIDATION_TOLERANCE:
            problems.append(f"validation {v['run']}: label {label} scored {v['elo']:+.1f} Elo, "
                            f"outside +-{VALIDATION_TOLERANCE:g}: refit it")
    missing = sorted(set(levels) - seen)
    if missing:
        problems.append(f"labels without a validation: {', '.join(map(str, missing))}")
    return problems


# -- playing ----------------------------------------------------------------------------

@dataclass
class CalibrationPlan:
    """What calibrate plays and fits: the labels (Stockfish's UCI_Elo) and the level offsets
    played around each, the games a label and at full strength, full strength's opponent,
    the limits (a clock as 'BASE+INC' text, default DEFAULT_TC unless nodes are given alone),
    the openings and their order, the engines, the network, earlier records and strength
    validations ((summary.json, level) pairs) to fit with, whether to play at all, the table
    written and the folder of the matches' logs."""
    labels: tuple = DEFAULT_LABELS
    offsets: tuple = DEFAULT_OFFSETS
    games: int = DEFAULT_GAMES
    full_games: int = DEFAULT_GAMES
    full_opponent: int = min(strength.ELO_MAX, STOCKFISH_ELO[1])
    tc: str = None
    nodes: int = None
    openings: str = HOLDOUT
    seed: int = 1
    concurrency: int = 1
    stockfish: str = None                   # default the first of STOCKFISH_PATHS found
    engine: str = None                      # default engine_command()
    evalfile: str = None                    # default the shipped network
    include: tuple = ()                     # records files (TABLE.games.json) to fit with
    validate: tuple = ()                    # (summary path, level) of strength validations
    fit_only: bool = False
    table: str = strength.TABLE_FILE
    out: str = None                         # default under runner.matches_root()


def schedule(labels, offsets, games, full_games, full_opponent):
    """[(label, level, opponent Elo, games)]: each label's levels (the current table's level
    for it plus the offsets, within 0..LEVEL_TOP, duplicates dropped) sharing its games,
    then full strength."""
    out = []
    for label in labels:
        centre = strength.level_of_elo(label)
        levels = sorted({round(min(max(centre + d, 0.0), LEVEL_TOP), 2) for d in offsets})
        each = max(2, 2 * math.ceil(games / len(levels) / 2))
        out += [(label, level, label, each) for level in levels]
    if full_games:
        out.append(("full", float(strength.SKILL_MAX), full_opponent, full_games))
    return out


def engine_command(engine=None):
    """`engine`, else black_numba of this package's own code (its table and network are the
    ones stamped) with the hidden level option on."""
    if engine:
        return engine
    return shlex.join(["env", f"{strength.CALIBRATE_ENV}=1", "PYTHONSAFEPATH=1",
                       f"PYTHONPATH={PACKAGE_PARENT}", sys.executable, "-m", "black_numba"])


def stockfish_command(stockfish=None):
    """`stockfish`, else the first of STOCKFISH_PATHS that exists (a bare name: on PATH)."""
    if stockfish:
        return stockfish
    for path in STOCKFISH_PATHS:
        if os.path.isabs(path) and os.path.exists(path):
            return path
    return STOCKFISH_PATHS[-1]


def play(plan, label, level, opponent, games, out_dir, engine, stockfish):
    """One match of `plan`'s limits, openings and network through the match runner, called
    and answered in memory; returns its summary's path, the summary and the first engine's
    points a game."""
    from black_numba.arena import runner
    from black_numba.arena.match import MatchPlan, conditions, play_match
    name_a = f"black_numba-L{level:.2f}"
    name_b = f"stockfish-{opponent}"
    shared = ["Threads=1", f"Hash={HASH_MB}"]
    own = []
    if level < strength.SKILL_MAX:
        own.append(f"{strength.LEVEL_OPTION}={round(level * strength.LEVEL_SCALE)}")
    if plan.evalfile:
        own.append(f"EvalFile={os.path.abspath(plan.evalfile)}")
    engines = [runner.engine_spec(engine, name_a, shared + own),
               runner.engine_spec(stockfish, name_b, shared + ["UCI_LimitStrength=true",
                                                               f"UCI_Elo={opponent}"])]
    tc = runner.parse_tc(plan.tc or DEFAULT_TC) if plan.tc or not plan.nodes else None
    limits = runner.engine_limits_of(tc=tc, nodes=plan.nodes)
    conf = conditions(engines, runner.match_settings([limits, dict(limits)]))
    pairs = (games + 1) // 2
    openings = runner.openings_in_order(plan.openings, pairs, plan.seed)
    rc, summary = play_match(conf, openings, MatchPlan(
        pairs, os.path.join(out_dir, f"{label}_L{level:.2f}"), plan.seed, plan.openings,
        plan.openings, concurrency=plan.concurrency))
    summary_path = os.path.join(out_dir, f"{label}_L{level:.2f}", "summary.json")
    if rc != 0 or summary.get("error"):
        raise RuntimeError(f"the match {name_a} vs {name_b} failed: {summary.get('error')}")
    pts = []
    for g in summary["games_played"]:
        white = {"1-0": 1.0, "0-1": 0.0}.get(g["result"], 0.5)
        pts.append(white if g["white"] == summary["names"][0] else 1.0 - white)
    return summary_path, summary, pts


def validation_match(summary_path, level, like):
    """One records match of a strength validation's games: the match summary (summary.json)
    of black_numba played at `level` against Stockfish at a label, our points a game in
    order whichever colour we had; the network and bench signature are copied from `like`
    (a recorded match of the same build). ValueError for the summary of another match."""
    with open(summary_path, encoding="utf-8") as f:
        summary = json.load(f)
    ours, theirs = summary["names"]
    if ours != VALIDATION_ENGINE or not theirs.startswith(VALIDATION_OPPONENT) or \
            not theirs[len(VALIDATION_OPPONENT):].isdigit():
        raise ValueError(f"{summary_path}: not a strength validation ({ours} vs {theirs})")
    label = int(theirs[len(VALIDATION_OPPONENT):])
    results = []
    for g in summary["games_played"]:
        white = {"1-0": 1.0, "0-1": 0.0}.get(g["result"], 0.5)
        results.append(RESULT_CHAR[white if g["white"] == ours else 1.0 - white])
    return {"label": label, "level": float(level), "opponent_elo": label,
            "network": like["network"], "bench": like["bench"],
            "log": os.path.abspath(summary_path), "results": "".join(results)}


def recorded_matches(include, validate):
    """The matches of the records files `include`, then one a strength validation
    ((summary path, level): validation_match, like the last recorded match)."""
    matches = []
    for path in include:
        matches += read_records(path)
    for path, level in validate:
        if not matches:
            raise ValueError("--validate needs --include: the records of the build it "
                             "validated (their network and bench signature)")
        m = validation_match(path, level, matches[-1])
        matches.append(m)
        points = {c: p for p, c in RESULT_CHAR.items()}
        print(f"calibrate: validation {m['label']} at level {m['level']:g}: "
              f"{len(m['results'])} games, {sum(points[c] for c in m['results']):g} points")
    return matches


def calibrate(plan, prepare):
    """Play the CalibrationPlan's matches (unless fit_only) and fit the table to their games
    and the recorded ones; `prepare(evalfile)` compiles the engine's cache and returns the
    search's bench signature with that network (the front end's). Writes the table and its
    records (the records even when a part alone gives no table); returns the exit code:
    0, or 1 when the engines could not play. ValueError or OSError for bad records or
    openings, and for a --fit-only fit that fails."""
    matches = recorded_matches(plan.include, plan.validate)
    labels, offsets = list(plan.labels), list(plan.offsets)
    if (plan.fit_only or not plan.full_games) and \
            not any(m["level"] >= strength.SKILL_MAX for m in matches):
        raise ValueError("the table's top is full strength: play --full-games or --include "
                         "records with full-strength games")
    table = os.path.abspath(plan.table)
    conditions = {"tc": None if plan.nodes and not plan.tc else (plan.tc or DEFAULT_TC),
                  "nodes": plan.nodes, "openings": os.path.basename(plan.openings),
                  "seed": plan.seed, "opponent": OPPONENT,
                  "labels": labels, "offsets": offsets, "full_opponent": plan.full_opponent}
    if plan.fit_only:
        conditions = record_conditions(matches)
    else:
        if not os.path.exists(plan.openings):
            raise FileNotFoundError(2, "no such openings file", plan.openings)
        from black_numba.arena.runner import default_dir
        out_dir = plan.out or default_dir("calibrate", "stockfish")
        network = network_hash(plan.evalfile)
        print(f"calibrate: network {network[:16]}; compiling (a cold cache) and measuring "
              f"the bench signature ...", flush=True)
        # the front end compiles the cache the engines load (none compiles at its first
        # move) and measures the search's bench signature with this network
        bench = prepare(plan.evalfile)
        print(f"calibrate: bench {bench:,} nodes; logs in {out_dir}", flush=True)
        engine, stockfish = engine_command(plan.engine), stockfish_command(plan.stockfish)
        todo = schedule(labels, offsets, plan.games, plan.full_games, plan.full_opponent)
        for label, level, opponent, games in todo:
            try:
                path, summary, pts = play(plan, label, level, opponent, games, out_dir,
                                          engine, stockfish)
            except RuntimeError as e:           # the engines could not play: nothing written
                print(f"black-numba calibrate: {e}", file=sys.stderr)
                return 1
            summary.update(network=network, bench=bench,
                           calibration={"label": label, "level": level})
            with open(path, "w", encoding="utf-8") as f:       # the log records its network
                json.dump(summary, f, indent=1)
            matches.append({"label": label, "level": level, "opponent_elo": opponent,
                            "network": network, "bench": bench, "log": path,
                            "results": "".join(RESULT_CHAR[p] for p in pts)})
            # a part's games are kept match by match, whatever becomes of the fit
            write_records(records_path(table), matches)
    if not matches:
        raise ValueError("nothing to fit: play games or --include records")
    try:
        blocks, labels = write_table(table, matches, conditions)
    except ValueError as e:
        if plan.fit_only:
            raise
        # a part (full strength alone, say) need not fit by itself: its records stay for a
        # later --include, and no table is written
        print(f"calibrate: no table from these games alone ({e}); their records, "
              f"{len(games_of(matches))} games, are in {records_path(table)} for a later "
              f"--include")
        return 0
    print(f"calibrate: fitted {len(games_of(matches))} games; against each label:")
    for lab in labels:
        own = "; ".join(f"{', '.join(f'{x:g}' for x in b['levels'])}: {100 * b['score']:.1f}% "
                        f"of {b['games']}" for b in lab["levels"])
        print(f"  {lab['label']} -> level {lab['level']:g} ({lab['from']}; {own})")
    top = blocks[-1]
    print(f"  full strength: Elo {top['elo']:.0f} ({top['games']} games, "
          f"{100 * top['score']:.1f}%)")
    t = strength.load_table(table)
    print("calibrate: ELO_LEVELS " + ", ".join(f"{e} -> {lv:g}" for e, lv in t["elo_levels"])
          + f"; UCI_Elo max (full strength) {t['elo_max']}")
    if t["elo_levels"][0][0] > strength.ELO_MIN:
        print(f"calibrate: note: UCI_Elo below {t['elo_levels'][0][0]} plays level "
              f"{t['elo_levels'][0][1]:g}, the weakest measured: play lower levels to cover "
              f"{strength.ELO_MIN}")
    print(f"calibrate: wrote {table} and {records_path(table)}")
    return 0
