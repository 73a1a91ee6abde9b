#!/usr/bin/env python3
"""The matches a contributor plays, each through `black-numba match` with its conditions set.

    bench/matches.py nodes BASE NAME [--nodes 10000] [--games 6000] [--elo1 15] ...
    bench/matches.py tc BASE NAME [--tc 10+0.1] [--games 600] [--elo0 0] [--elo1 15] ...
    bench/matches.py net NET NAME [--limit 10000 | --limit 10+0.1] [--base-net NET] ...
    bench/matches.py threads [N] [--games 400] [--tc 10+0.1] [--no-sprt]
    bench/matches.py glaurung [--games 100] [--net NET] [--name NAME]
    bench/matches.py strength ELO [--games 200] [--chess960] [--limited]
    bench/matches.py tables [--limit 10000 | --limit 10+0.1] [--games 2000] [--path DIR]
    bench/matches.py style RUN [--style S] [--sf-nodes N] [--rating R] [--games G]

- nodes: this checkout against BASE (a checkout of the build before a change, its own warm
  cache) at a fixed node count a move, SPRT 0/ELO1: a search change's first test.
- tc: the same at a time control (pause other work first); --openings holdout for the last
  comparison; --net FILE makes both builds play that network.
- net: a network file against the shipped one (or --base-net), one build both sides, fixed
  nodes or timed.
- threads: Threads=N against Threads=1 (Lazy SMP), timed, one game at a time, SPRT 0/40.
- glaurung: against Glaurung 2.2 (Debian's glaurung, one thread, no book) at 10+0.1.
- strength: against Stockfish 15.1 at UCI_LimitStrength UCI_Elo=ELO, 10+0.1; --chess960
  from random Chess960 start positions (and our castles counted); --limited plays ours at
  the same UCI_Elo (the calibration of the strength levels).
- tables: Syzygy tables (SyzygyPath, default ../shared/data/syzygy) against none, one build,
  from endgame-rich starts (6-8 men, drawn with --seed from the project's games in data/),
  played out (no resign adjudication); SPRT 0/ELO1 (0: none). Afterwards every game in which
  the side with tables reached a position the tables call won is checked to be a win for it.
- style: the declared runs of the playing styles (docs/style.md), on the held-out openings,
  Stockfish told its rating through UCI_Opponent as lichess-bot sends it. RUN is calibrate
  (Normal at 20,000 nodes against Stockfish UCI_Elo 2300 at --sf-nodes, to find where Normal
  scores 65-80%), screen (--style at 20,000 nodes against the same, 1,000 games), confirm
  (the same at 5+0.05 each, 300 games), cost (Aggressive against Normal, 10+0.1, 400 games),
  stronger (Hustler against Stockfish at full strength told 3,000, 20,000 nodes each),
  clock (Hustler at 10+0.1 against Stockfish 2300 at a quarter of that, 100 games) or level
  (--style at UCI_Elo 1600 against Stockfish 1600, 10+0.1, 200 games). --rating sets our
  Rating option (Hustler: the rating Normal's screening score implies).

Both engines use Threads 1 and Hash 16 unless said. --openings: rest (the 2-move set less
the held-out sample: every sequential test), holdout (black_numba/arena/openings_holdout.epd), all (the
2-move set), random (8 random plies a pair) or a file; rest and all need
../shared/data/openings_2moves.epd beside the checkout and fall back on random plies without
it. The match's folder (--out, default $BLACK_NUMBA_MATCHES or ~/.local/share/black_numba/
matches, then the log name, e.g. sprt_NAME) gets conditions.txt (commits, bench signatures,
networks, the command), then the runner's match.log, games.pgn and summary.json. Arguments
after `--` go to `black-numba match` as they are (e.g. -- --scheduler tcp://HOST:8786).
--dry-run prints the conditions and the command without playing.
"""
import argparse
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time

from common import (ENDGAME_PIECES, ENGINE, GLAURUNG, SYZYGY_PATH, OPENINGS_2MOVES, OPENINGS_HOLDOUT, ROOT, STOCKFISH,
                    commit_of, describe_net, endgame_fens, engine_of, matches_dir, net_hash,
                    read_pgn, signature_of, tb_conversions, write_rest)

BASE_OPTIONS = ["Threads=1", "Hash=16"]
RANDOM_PLIES = 8                  # a new opening every pair where no opening set is at hand
DEFAULT_NET = os.path.join(ROOT, "black_numba", "nets", "default.bnn")
REST_FILE = os.path.join(tempfile.gettempdir(), "openings_rest.epd")


def openings_args(which):
    """(runner arguments, description) for --openings."""
    if which in ("rest", "all") and not os.path.exists(OPENINGS_2MOVES):
        return (["--random-plies", str(RANDOM_PLIES)],
                f"{RANDOM_PLIES} random plies a pair (no {OPENINGS_2MOVES} beside the checkout)")
    if which == "rest":
        tmp = f"{REST_FILE}.{os.getpid()}"
        write_rest(tmp)
        os.replace(tmp, REST_FILE)           # whole, whatever other matches read it
        return ["--openings", REST_FILE], "2-move set less black_numba/arena/openings_holdout.epd"
    if which == "all":
        return ["--openings", OPENINGS_2MOVES], "../shared/data/openings_2moves.epd"
    if which == "holdout":
        return ["--openings", OPENINGS_HOLDOUT], "black_numba/arena/openings_holdout.epd"
    if which == "random":
        return ["--random-plies", str(RANDOM_PLIES)], f"{RANDOM_PLIES} random plies a pair"
    if not os.path.isfile(which):
        sys.exit(f"matches: --openings is rest, holdout, all, random or a file, not {which!r}")
    return ["--openings", os.path.abspath(which)], which


def build_line(checkout):
    """A checkout's commit and bench signature, for the conditions."""
    commit = os.environ.get("BUILD") if checkout == ROOT and os.environ.get("BUILD") else \
        commit_of(checkout)
    return f"{commit} (bench {signature_of(checkout)})"


def checked(path, what):
    """path made absolute, or a clear exit when it is not there."""
    if not os.path.exists(path):
        sys.exit(f"matches: no {what} at {path}")
    return os.path.abspath(path)


def limit_args(limit):
    """--tc for BASE+INC, else --nodes."""
    return (["--tc", limit], f"time control {limit}") if "+" in limit else \
        (["--nodes", limit], f"{limit} nodes a move")


def sprt_args(elo0, elo1):
    return ([], "no SPRT") if elo1 == 0 else \
        (["--sprt", f"{elo0:g}", f"{elo1:g}"], f"SPRT {elo0:g} {elo1:g}")


def options(prefix, values):
    out = []
    for v in values:
        out += [prefix, v]
    return out


# -- the kinds of match -----------------------------------------------------------------------

def plan_build(a):
    """nodes and tc: this checkout against the build of BASE."""
    base = os.path.abspath(a.base)
    checked(engine_of(base), "build (bin/black-numba) in BASE")
    op, about = openings_args(a.openings)
    sprt, test = sprt_args(a.elo0, a.elo1)
    lim, how = (["--nodes", str(a.nodes)], f"{a.nodes} nodes a move") if a.kind == "nodes" \
        else (["--tc", a.tc], a.tc)
    cmd = [ENGINE, engine_of(base), "--name-a", "new", "--name-b", "base",
           *options("--option", BASE_OPTIONS + net_option(a.net)), *lim,
           "--games", str(a.games), *op, "--seed", str(a.seed),
           "--concurrency", str(a.concurrency), *sprt]
    head = [f"{a.name}: {build_line(ROOT)} against {base} at {build_line(base)}",
            f"{how}, {test}, at most {a.games} games, concurrency {a.concurrency}, "
            f"Threads 1, Hash 16, {nets_text(a.net)}",
            f"openings: {about}, seed {a.seed}; {os.cpu_count()} cores"]
    return f"{'sprt' if a.kind == 'nodes' else 'tcsprt'}_{a.name}", cmd, head


def plan_net(a):
    net, base_net = checked(a.net, "network"), checked(a.base_net, "network")
    lim, how = limit_args(a.limit)
    op, about = openings_args(a.openings)
    sprt, test = sprt_args(0, a.elo1)
    cmd = [ENGINE, ENGINE, "--name-a", a.name, "--name-b", "shipped",
           *options("--option", BASE_OPTIONS), "--option-a", f"EvalFile={net}",
           "--option-b", f"EvalFile={base_net}", *lim, "--games", str(a.games), *op,
           "--seed", str(a.seed), "--concurrency", str(a.concurrency), *sprt]
    commit = os.environ.get("BUILD") or commit_of()
    head = [f"{a.name}: {describe_net(net)}", f"against: {describe_net(base_net)}",
            f"build {commit} for both; {how}, {test}, at most {a.games} games, concurrency "
            f"{a.concurrency} on {os.cpu_count()} cores, openings: {about}, seed {a.seed}"]
    return f"netsprt_{a.name}", cmd, head


def plan_threads(a):
    op, about = openings_args(a.openings)
    sprt, test = ([], "no SPRT") if a.no_sprt else sprt_args(0, 40)
    cmd = [ENGINE, ENGINE, "--name-a", f"threads{a.n}", "--name-b", "threads1",
           "--option-a", f"Threads={a.n}", "--option-b", "Threads=1", "--option", "Hash=16",
           "--tc", a.tc, "--games", str(a.games), *op, "--concurrency", "1", *sprt]
    head = [f"commit {build_line(ROOT)} (Threads=1)",
            f"engines: bin/black-numba Threads={a.n} Hash=16 against bin/black-numba "
            f"Threads=1 Hash=16",
            f"time control: {a.tc}; at most {a.games} games (each opening with both colours); "
            f"concurrency: 1; {test}", f"openings: {about}"]
    suffix = "" if a.tc == "10+0.1" else f"_{a.tc}"
    return f"threads{a.n}_vs_1{suffix}", cmd, head


def plan_glaurung(a):
    op, about = openings_args(a.openings)
    net = net_option(a.net)
    cmd = [ENGINE, GLAURUNG, "--name-a", "black_numba", "--name-b", "glaurung",
           *options("--option", BASE_OPTIONS), *options("--option-a", net),
           "--option-b", "OwnBook=false", "--tc", "10+0.1", "--games", str(a.games), *op,
           "--concurrency", str(a.concurrency)]
    head = [f"commit {build_line(ROOT)}",
            f"opponent: Glaurung 2.2 ({GLAURUNG}) Threads=1 Hash=16 OwnBook=false",
            f"black_numba: bin/black-numba, Threads=1 Hash=16, {nets_text(a.net)}",
            f"time control: 10+0.1; games: {a.games} (each opening with both colours); "
            f"concurrency: {a.concurrency}", f"openings: {about}"]
    return f"glaurung_{a.name or a.games}", cmd, head


def plan_strength(a):
    commit = commit_of().split()[0]
    if a.chess960:
        op, about = ["--chess960", "--seed", "960"], "random Chess960 start positions, seed 960"
    else:
        op, about = openings_args(a.openings)
    ours = ["UCI_LimitStrength=true", f"UCI_Elo={a.elo}"] if a.limited else []
    cmd = [ENGINE, STOCKFISH, "--name-a", "black_numba", "--name-b", f"sf{a.elo}",
           *options("--option", BASE_OPTIONS), *options("--option-a", ours),
           "--option-b", "UCI_LimitStrength=true", "--option-b", f"UCI_Elo={a.elo}",
           "--tc", "10+0.1", "--games", str(a.games), *op, "--concurrency", str(a.concurrency)]
    head = [f"commit {build_line(ROOT)}",
            f"opponent: Stockfish 15.1 ({STOCKFISH}) UCI_LimitStrength=true UCI_Elo={a.elo} "
            f"Threads=1 Hash=16",
            f"black_numba: bin/black-numba, {' '.join(ours) or 'full strength'} (Threads=1 "
            f"Hash=16); network {net_hash(DEFAULT_NET)}",
            f"time control: 10+0.1; games: {a.games} (each opening with both colours); "
            f"concurrency: {a.concurrency}", f"openings: {about}"]
    name = f"{'chess960_' if a.chess960 else ''}{'level' if a.limited else 'sf'}" \
           f"{a.elo}_{a.games}_{commit}"
    return name, cmd, head


def plan_tables(a):
    path = checked(a.path, "Syzygy folder")
    lim, how = limit_args(a.limit)
    sprt, test = sprt_args(0, a.elo1)
    out = os.path.abspath(a.out or os.path.join(matches_dir(), f"tables_{a.limit}_{a.games}"))
    os.makedirs(out, exist_ok=True)
    starts = os.path.join(out, "starts.epd")
    fens = endgame_fens(a.games // 2, a.seed)
    with open(starts, "w") as f:
        f.writelines(fen + "\n" for fen in fens)
    a.out = out
    cmd = [ENGINE, ENGINE, "--name-a", "tables", "--name-b", "none",
           *options("--option", BASE_OPTIONS), "--option-a", f"SyzygyPath={path}", *lim,
           "--games", str(a.games), "--openings", starts, "--seed", str(a.seed),
           "--concurrency", str(a.concurrency), "--resign", "0", "0", *sprt]
    commit = os.environ.get("BUILD") or commit_of()
    lo, hi = ENDGAME_PIECES
    head = [f"tables: build {build_line(ROOT)} with SyzygyPath={path} against the same build "
            f"without tables; network {net_hash(DEFAULT_NET)}",
            f"{how}, {test}, at most {a.games} games, concurrency {a.concurrency} on "
            f"{os.cpu_count()} cores, Threads 1, Hash 16, no resign adjudication",
            f"starts: {len(fens)} positions of {lo}-{hi} men drawn with seed {a.seed} from "
            f"data/ (starts.epd), each with both colours"]
    return f"tables_{commit.split()[0][:7]}", cmd, head


def check_tables(a, out):
    """The conversion check of a tables match: lines for conditions.txt."""
    games, reached, failed = tb_conversions(os.path.join(out, "games.pgn"),
                                                   checked(a.path, "Syzygy folder"), "tables")
    lines = [f"# conversions: {games} games; the side with tables reached a position the "
             f"tables call won (WDL +2, DTZ + halfmove clock <= 100) in {reached}; "
             f"not won: {len(failed)}\n"]
    lines += [f"#   round {r}: {fen} ended {res}\n" for r, fen, res in failed]
    return "".join(lines)


STYLE_OPPONENT_ELO = 2300         # one opponent for every arm of the style runs
STYLE_NODES = 20000               # our nodes a move in the screening
STRONGER_TOLD = 3000              # the rating full-strength Stockfish is told it has
LEVEL_ELO = 1600                  # the level people play
# run -> (our limit, Stockfish's limit (None: the same), games, Stockfish's UCI_Elo (None:
# full strength), our UCI_Elo (None: full strength))
STYLE_RUNS = {
    "calibrate": ("nodes", "sf-nodes", 200, STYLE_OPPONENT_ELO, None),
    "screen": ("nodes", "sf-nodes", 1000, STYLE_OPPONENT_ELO, None),
    "confirm": ("5+0.05", None, 300, STYLE_OPPONENT_ELO, None),
    "cost": ("10+0.1", None, 400, None, None),
    "stronger": ("nodes", None, 200, None, None),
    "clock": ("10+0.1", "2.5+0.025", 100, STYLE_OPPONENT_ELO, None),
    "level": ("10+0.1", None, 200, LEVEL_ELO, LEVEL_ELO),
}


def plan_style(a):
    """The declared runs of issue 65 (docs/style.md), conditions fixed here."""
    ours_limit, sf_limit, games, sf_elo, our_elo = STYLE_RUNS[a.run]
    style = {"calibrate": "Normal", "cost": "Aggressive", "stronger": "Hustler",
             "clock": "Hustler"}.get(a.run, a.style)
    if a.run in ("calibrate", "screen") and not a.sf_nodes:
        sys.exit(f"matches: style {a.run} needs --sf-nodes (Stockfish's nodes a move)")
    games = a.games or games
    op, about = openings_args(a.openings)

    def limit(which, side):
        if which == "nodes":
            return [f"--nodes-{side}", str(STYLE_NODES)], f"{STYLE_NODES} nodes a move"
        if which == "sf-nodes":
            return [f"--nodes-{side}", str(a.sf_nodes)], f"{a.sf_nodes} nodes a move"
        return [f"--tc-{side}", which], which
    la, how_a = limit(ours_limit, "a")
    lb, how_b = limit(sf_limit or ours_limit, "b")
    ours = [f"Style={style}"]
    if our_elo:
        ours += ["UCI_LimitStrength=true", f"UCI_Elo={our_elo}"]
    if a.rating:
        ours.append(f"Rating={a.rating}")
    commit = commit_of().split()[0]
    if a.run == "cost":
        cmd = [ENGINE, ENGINE, "--name-a", "aggressive", "--name-b", "normal",
               *options("--option", BASE_OPTIONS), "--option-a", "Style=Aggressive",
               "--option-b", "Style=Normal", *la, *lb]
        who = "Aggressive against Normal, one build"
    else:
        told = sf_elo or STRONGER_TOLD
        sf = ["UCI_LimitStrength=true", f"UCI_Elo={sf_elo}"] if sf_elo else []
        cmd = [ENGINE, STOCKFISH, "--name-a", style.lower(),
               "--name-b", f"sf{sf_elo or 'full'}", *options("--option", BASE_OPTIONS),
               *options("--option-a", ours + [f"UCI_Opponent=none {told} computer Stockfish"]),
               *options("--option-b", sf), *la, *lb]
        who = (f"black_numba {' '.join(ours)} against Stockfish 15.1 ({STOCKFISH}) "
               f"{' '.join(sf) or 'at full strength'}, told UCI_Opponent 'none {told} "
               f"computer Stockfish'")
    timed = ours_limit not in ("nodes", "sf-nodes")
    # timed games one at a time on a small machine (two engines never think on one core)
    concurrency = a.concurrency or (1 if timed and (os.cpu_count() or 1) < 8 else 2)
    a.concurrency = concurrency
    cmd += ["--games", str(games), *op, "--seed", str(a.seed),
            "--concurrency", str(concurrency)]
    head = [f"style {a.run}: {who}",
            f"build {build_line(ROOT)}; network {net_hash(DEFAULT_NET)}",
            f"limits: ours {how_a}, the opponent's {how_b}; Threads 1, Hash 16 each; {games} "
            f"games (each opening with both colours), concurrency {a.concurrency}",
            f"openings: {about}, seed {a.seed}; the runner's resign and draw adjudication"]
    return f"style_{a.run}_{style.lower()}_{games}_{commit}", cmd, head


def net_option(net):
    return [] if net in (None, "default") else [f"EvalFile={checked(net, 'network')}"]


def nets_text(net):
    return "each its default network" if net in (None, "default") else \
        f"EvalFile {os.path.abspath(net)} ({describe_net(net)})"


# -- the command line ---------------------------------------------------------------------------

def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="kind", required=True)

    def common(p, games, concurrency, openings):
        p.add_argument("--games", type=int, default=games, help="at most (default %(default)s)")
        p.add_argument("--concurrency", type=int, default=concurrency)
        p.add_argument("--openings", default=openings,
                       help="rest, holdout, all, random or a file (default %(default)s)")
        p.add_argument("--out", help="the match's folder (default: the log name under "
                                     "$BLACK_NUMBA_MATCHES or ~/.local/share/black_numba/"
                                     "matches)")
        p.add_argument("--dry-run", action="store_true", help="print, do not play")

    def build(p, limit, games):
        p.add_argument("base", metavar="BASE", help="the checkout of the build before the change")
        p.add_argument("name", metavar="NAME", help="the test's name (the log's)")
        p.add_argument(limit[0], **limit[1])
        p.add_argument("--elo0", type=float, default=0)
        p.add_argument("--elo1", type=float, default=15, help="0: no SPRT")
        p.add_argument("--seed", type=int, default=23)
        p.add_argument("--net", help="a network file both builds play")
        common(p, games, 2, "rest")
        p.set_defaults(plan=plan_build)

    build(sub.add_parser("nodes", help="a search change against BASE at fixed nodes, SPRT"),
          ("--nodes", {"type": int, "default": 10000}), 6000)
    build(sub.add_parser("tc", help="this checkout against BASE at a time control, SPRT"),
          ("--tc", {"default": "10+0.1"}), 600)

    p = sub.add_parser("net", help="a network against the shipped one, one build")
    p.add_argument("net", metavar="NET")
    p.add_argument("name", metavar="NAME")
    p.add_argument("--limit", default="10000", help="nodes a move, or BASE+INC (timed)")
    p.add_argument("--elo1", type=float, default=30, help="SPRT 0/ELO1; 0: no SPRT")
    p.add_argument("--base-net", default=DEFAULT_NET)
    p.add_argument("--seed", type=int, default=23)
    common(p, 4000, 2, "rest")
    p.set_defaults(plan=plan_net)

    p = sub.add_parser("threads", help="Threads=N against Threads=1, timed")
    p.add_argument("n", metavar="N", type=int, nargs="?", default=2)
    p.add_argument("--tc", default="10+0.1")
    p.add_argument("--no-sprt", action="store_true", help="all games (a fault count)")
    common(p, 400, 1, "all")
    p.set_defaults(plan=plan_threads)

    p = sub.add_parser("glaurung", help="against Glaurung 2.2 at 10+0.1")
    p.add_argument("--net", help="a network file to play instead of the default")
    p.add_argument("--name", help="the log's name (default: the number of games)")
    common(p, 100, 1, "all")
    p.set_defaults(plan=plan_glaurung)

    p = sub.add_parser("strength", help="against Stockfish at UCI_Elo=ELO, 10+0.1")
    p.add_argument("elo", metavar="ELO", type=int)
    p.add_argument("--chess960", action="store_true")
    p.add_argument("--limited", action="store_true",
                   help="ours at UCI_LimitStrength UCI_Elo=ELO too")
    common(p, 200, 1, "all")
    p.set_defaults(plan=plan_strength)

    p = sub.add_parser("tables", help="Syzygy tables against none, endgame starts")
    p.add_argument("--limit", default="10000", help="nodes a move, or BASE+INC (timed)")
    p.add_argument("--elo1", type=float, default=10, help="SPRT 0/ELO1; 0: no SPRT")
    p.add_argument("--path", default=SYZYGY_PATH, help="SyzygyPath")
    p.add_argument("--seed", type=int, default=51)
    common(p, 2000, 2, "starts")
    p.set_defaults(plan=plan_tables)

    p = sub.add_parser("style", help="the playing styles' declared runs (docs/style.md)")
    p.add_argument("run", metavar="RUN", choices=tuple(STYLE_RUNS))
    p.add_argument("--style", default="Normal", choices=("Normal", "Aggressive", "Hustler"),
                   help="the style of screen, confirm and level (the other runs fix it)")
    p.add_argument("--sf-nodes", type=int, help="Stockfish's nodes a move (calibrate, screen)")
    p.add_argument("--rating", type=int, help="our Rating option (Hustler)")
    p.add_argument("--seed", type=int, default=65)
    common(p, 0, 0, "holdout")
    p.set_defaults(plan=plan_style)
    return ap


def count_castles(pgn, player):
    """A line on player's castles in a PGN (Chess960 games too): the games in which it
    castled, and its castles by wing."""
    import chess
    games = castled = king_side = queen_side = 0
    for game in read_pgn(pgn):
        games += 1
        colour = chess.WHITE if game.headers.get("White") == player else chess.BLACK
        board = game.board()
        did = False
        for move in game.mainline_moves():
            if board.turn == colour and board.is_castling(move):
                did = True
                if board.is_kingside_castling(move):
                    king_side += 1
                else:
                    queen_side += 1
            board.push(move)
        castled += did
    return (f"castles by {player}: {castled} of {games} games castled "
            f"({king_side} king-side, {queen_side} queen-side)\n")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    runner = []
    if "--" in argv:                 # the rest is black-numba match's
        k = argv.index("--")
        argv, runner = argv[:k], argv[k + 1:]
    a = parser().parse_args(argv)
    name, cmd, head = a.plan(a)
    out = os.path.abspath(a.out or os.path.join(matches_dir(), name))
    cmd = [ENGINE, "match", *cmd, "--out", out, *runner]
    resume = "--resume" in runner    # a stopped match goes on: its conditions.txt gains lines
    head.append(f"{'resumed' if resume else 'started'} "
                f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    head.append("command: " + shlex.join(cmd))
    text = "".join(f"# {line}\n" for line in head)
    print(text, end="", flush=True)
    if a.dry_run:
        return 0
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "conditions.txt"), "a" if resume else "w") as f:
        f.write(text)
    # Ctrl-C and SIGTERM reach the runner too (the same process group): it stops, counts the
    # finished pairs and writes its summary; wait for that instead of dying first
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda signum, frame: None)
    rc = subprocess.call(cmd)
    with open(os.path.join(out, "conditions.txt"), "a") as f:
        f.write(f"# ended {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, rc {rc}\n")
        if a.kind == "tables" and os.path.exists(os.path.join(out, "games.pgn")):
            text = check_tables(a, out)
            print(text, end="")
            f.write(text)
        if getattr(a, "chess960", False) and rc == 0:
            castles = count_castles(os.path.join(out, "games.pgn"), "black_numba")
            print(castles, end="")
            f.write(castles)
    return rc


if __name__ == "__main__":
    sys.exit(main())
