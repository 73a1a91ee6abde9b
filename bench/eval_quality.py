#!/usr/bin/env python3
"""How well an evaluation predicts Stockfish's deep opinion, on positions from games against
other engines (a gauntlet's PGN) beside positions from our own games that no network was
trained on (a datagen game file, ``--own``): the same sampling (past ply 10, not in check),
each position labelled by Stockfish 15.1 at --nodes, then for the tapered evaluation and each
network the mean squared error of sigmoid(K * eval / 400) against sigmoid(K_label * label /
400), the correlation and the mean distance, overall and by phase; and how often we overrate a
level position (Stockfish within LEVEL_CP, our score a pawn or more away). Each network is
scored as its own output and as the search reads it (``evaluation/endgame.py``: drawish
material, the fifty-move counter), so the search's endgame knowledge is measured too.

    .venv/bin/python bench/eval_quality.py GAMES.pgn [...] --own GAMES.bng --nets A.bnn B.bnn \
        [--nodes 500000] [--sample 300] [--scale BARE FULL ...] [--labels STEM] [--fit-k]
    .venv/bin/python bench/eval_quality.py --fens POSITIONS.epd.xz ...
"""
import argparse
import random

import chess
import chess.engine
import numpy as np

from common import popen_stockfish, read_pgn, use_checkout

use_checkout()
from black_numba.training.relabel import ENDGAME_NON_PAWN, non_pawn_material  # noqa: E402

FIRST_PLY = 10                  # positions from this ply on (past the opening book)
LEVEL_CP = 50                   # Stockfish calls a position level within this
OVERRATE_CP = 100               # ... and we overrate it at this distance or more
MIDDLEGAME_NON_PAWN = 50        # non-pawn material above this: an opening (as foreign_games.py)
K_GRID = np.linspace(0.5, 6.0, 221)     # --fit-k: the logistic scales tried


def phase(board):
    npm = non_pawn_material(board)
    if npm <= ENDGAME_NON_PAWN:     # the endgame as data relabel selects it
        return "endgame"
    return "opening" if npm > MIDDLEGAME_NON_PAWN else "middlegame"


def sample_pgn(paths, rate, rng):
    out = []
    for path in paths:
        for game in read_pgn(path):
            board = game.board()
            for i, mv in enumerate(game.mainline_moves()):
                if i >= FIRST_PLY and not board.is_check() and rng.random() < rate:
                    out.append(board.fen())
                board.push(mv)
    return out


def sample_own(path, rate, rng):
    from black_numba.training.gamefile import game_positions, read_games
    out = []
    for fen, plies, result in read_games(path):
        for i, (f, _, _) in enumerate(game_positions(fen, plies, result)):
            if i >= FIRST_PLY and not chess.Board(f).is_check() and rng.random() < rate:
                out.append(f)
    return out


def label(fens, nodes):
    """(kept FENs, Stockfish's scores from White's view) without mates and beyond 20 pawns."""
    sf = popen_stockfish()
    kept, labels = [], []
    for fen in fens:
        score = sf.analyse(chess.Board(fen), chess.engine.Limit(nodes=nodes))["score"].white()
        if not score.is_mate() and abs(score.score()) <= 2000:
            kept.append(fen)
            labels.append(score.score())
    sf.quit()
    return kept, np.array(labels, dtype=float)


def search_view(fens, scores, scale=None):
    """White-view scores as the search reads them (the endgame scaling of the network), with
    scale = (EVAL_SCALE_BARE, EVAL_SCALE_FULL) the material scaling too."""
    from black_numba.evaluation.endgame import scale_material, scale_network
    from black_numba.board.position import SIDE, from_fen
    out = []
    for fen, s in zip(fens, scores):
        pos = from_fen(fen)
        stm = int(pos[SIDE])
        v = int(s) if stm == 0 else -int(s)
        v = int(scale_network(pos, stm, v))
        if scale:
            v = int(scale_material(pos, v, *scale))
        out.append(v if stm == 0 else -v)
    return np.array(out, dtype=float)


def cached_labels(path, fens, nodes):
    """label(), remembered in path (JSON: nodes, FENs, labels) when given: a screen that
    compares evaluations asks Stockfish once."""
    import json
    import os
    if path and os.path.exists(path):
        with open(path) as f:
            c = json.load(f)
        if c["nodes"] == nodes and c["asked"] == fens:
            return c["fens"], np.array(c["labels"], dtype=float)
    kept, lab = label(fens, nodes)
    if path:
        with open(path, "w") as f:
            json.dump({"nodes": nodes, "asked": fens, "fens": kept, "labels": lab.tolist()}, f)
    return kept, lab


def report(name, ev, lab, phases, k, k_label, ref=None):
    """One evaluation's line; returns its squared errors. With ref (another line's squared
    errors on the same positions) the paired difference with its 95% interval is printed."""
    target = 1 / (1 + np.exp(-k_label * lab / 400))
    if k is None:
        # the evaluation's own best logistic scale: a score scaled alike everywhere predicts
        # as well, so only how it is scaled by phase and material counts
        k = min(K_GRID, key=lambda kk: np.mean((1 / (1 + np.exp(-kk * ev / 400)) - target) ** 2))
        name = f"{name} (K {k:.2f})"
    pred = 1 / (1 + np.exp(-k * ev / 400))
    se = (pred - target) ** 2
    parts = []
    for ph in ("all", "opening", "middlegame", "endgame"):
        m = np.ones(len(lab), bool) if ph == "all" else np.array([p == ph for p in phases])
        if m.sum() < 5:
            continue
        mse = np.mean((pred[m] - target[m]) ** 2)
        level = m & (np.abs(lab) < LEVEL_CP)
        over = level & (np.abs(ev) >= OVERRATE_CP)
        parts.append(f"{ph} {m.sum()}: mse {mse:.5f} |d| {np.mean(np.abs(ev[m] - lab[m])):.0f}"
                     f" overrated {over.sum()}/{level.sum()}")
    corr = np.corrcoef(ev, lab)[0, 1]
    print(f"  {name:34} corr {corr:.4f} | " + " | ".join(parts))
    if ref is not None:
        out = []
        for ph in ("all", "endgame"):
            m = np.ones(len(lab), bool) if ph == "all" else np.array([p == ph for p in phases])
            d = se[m] - ref[m]
            half = 1.96 * d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
            out.append(f"{ph} {d.mean():+.5f} ({d.mean() - half:+.5f} .. {d.mean() + half:+.5f})")
        print(f"  {'':34} mse minus the first network as searched: " + " | ".join(out))
    return se


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pgn", nargs="*", help="games against other engines (PGN, .xz too)")
    ap.add_argument("--fens", metavar="FILE",
                    help="positions from games against other engines, a FEN a line (.xz too), "
                         "already sampled (bench/results/es1_foreign.epd.xz), instead of PGNs")
    ap.add_argument("--own", help="a datagen game file (.bng) of our own games, not trained on")
    ap.add_argument("--nets", nargs="*", default=[])
    ap.add_argument("--nodes", type=int, default=500000, help="Stockfish's nodes a label")
    ap.add_argument("--rate", type=float, default=0.08, help="share of positions sampled")
    ap.add_argument("--sample", type=int, default=300, help="at most this many a source")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--k", type=float, default=3.07, help="logistic scale of the evaluations")
    ap.add_argument("--fit-k", action="store_true",
                    help="each evaluation at its own best logistic scale instead of --k")
    ap.add_argument("--k-label", type=float, default=3.39, help="logistic scale of the labels")
    ap.add_argument("--scale", nargs=2, type=int, action="append", default=[],
                    metavar=("BARE", "FULL"),
                    help="also each network as searched with this material scaling "
                         "(EVAL_SCALE_BARE, EVAL_SCALE_FULL; repeat)")
    ap.add_argument("--labels", metavar="STEM",
                    help="keep Stockfish's labels in STEM.<source>.json and reuse them")
    args = ap.parse_args()
    if not args.pgn and not args.fens:
        ap.error("give games against other engines (PGN files) or --fens FILE")
    from black_numba.evaluation import netfile
    from black_numba.evaluation.batch import evaluate_cpu, pack
    rng = random.Random(args.seed)
    if args.fens:
        import lzma
        with (lzma.open if args.fens.endswith(".xz") else open)(args.fens, "rt") as f:
            foreign = [" ".join(line.split()[:6]) for line in f if line.strip()]
    else:
        foreign = sample_pgn(args.pgn, args.rate, rng)
    sources = [("foreign games", foreign)]
    if args.own:
        sources.append(("own games, never trained on", sample_own(args.own, args.rate, rng)))
    print(f"Stockfish 15.1 at {args.nodes} nodes a label; K {args.k}, K_label {args.k_label}; "
          f"level: |label| < {LEVEL_CP}, overrated: |ours| >= {OVERRATE_CP}")
    for (title, fens), tag in zip(sources, ("foreign", "own")):
        rng.shuffle(fens)
        kept, lab = cached_labels(args.labels and f"{args.labels}.{tag}.json",
                                  fens[:args.sample], args.nodes)
        phases = [phase(chess.Board(f)) for f in kept]
        print(f"{title}: {len(kept)} positions")
        boards, stm, _ = pack(kept)
        report("tapered", evaluate_cpu(boards, stm).astype(float), lab, phases,
               None if args.fit_k else args.k, args.k_label)
        ref = None
        for path in args.nets:
            NN = netfile.load(path)[0]
            ev = evaluate_cpu(boards, stm, NN=NN).astype(float)
            name = path.rsplit("/", 1)[-1]
            report(name, ev, lab, phases, None if args.fit_k else args.k, args.k_label)
            se = report(name + " as searched", search_view(kept, ev), lab, phases,
                        None if args.fit_k else args.k, args.k_label, ref)
            ref = se if ref is None else ref
            for bare, full in args.scale:
                report(name + f" scaled {bare}/{full}", search_view(kept, ev, (bare, full)), lab,
                       phases, None if args.fit_k else args.k, args.k_label, ref)


if __name__ == "__main__":
    main()
