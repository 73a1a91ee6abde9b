"""Compare black_numba's compiled Syzygy reader with python-chess's on random positions.

    .venv/bin/python bench/syzygy_check.py [--path ../shared/data/syzygy] [--positions 100000]
                                           [--seed 1] [--ep 0.25] [--tables KRBvKR,KPvKP]

For every table in the folder(s) (':'-separated), draws random legal placements of its
material (both sides to move; where both colours have pawns, a share of positions just after a
double pawn push beside an enemy pawn, with the en-passant square set), probes WDL and DTZ with
the compiled reader (``black_numba.tablebase.tbprobe``) and with ``chess.syzygy`` opened on the same
folders, and prints per table: the positions, those with an en-passant square and those where
a capture is legal, the WDL classes found (loss, blessed loss, draw, cursed win, win) and the
WDL and DTZ differences. A missing table (python-chess's MissingTableError) counts as agreeing
only when both raise. Exit status 1 on any difference. Takes minutes: python-chess's DTZ probe
costs milliseconds; run it in the background (``nice -n 10 timeout 3600 ...``).
"""
import argparse
import random
import sys
import time

import chess
import numpy as np

from common import SYZYGY_PATH, open_tablebases, use_checkout

use_checkout()
from black_numba.tablebase import positions, tbprobe  # noqa: E402
from black_numba.board.bitboard import TABLES  # noqa: E402
from black_numba.board.position import POS_SIZE, from_fen  # noqa: E402

DEFAULT_PATH = SYZYGY_PATH
# Known cursed wins (../shared/README.md): random placements almost never find one, so
# positions are also walked from these by quiet moves that keep the result cursed or blessed.
CURSED_SEEDS = {"KRBvKR": "8/3B4/8/1R6/5r2/8/3K4/5k2 w - - 0 1"}
MISSING = -99999          # both readers: "a needed table is missing"


def reference(ref, board, kind):
    try:
        return ref.probe_wdl(board) if kind == "wdl" else ref.probe_dtz(board)
    except KeyError:
        return MISSING


def ours(tb, rows, kind):
    out = np.zeros(len(rows), dtype=np.int64)
    pos = np.zeros(POS_SIZE, dtype=np.uint64)
    tbprobe.probe_many(TABLES, rows, pos, tb.meta, tbprobe.new_buffer(), np.bool_(kind == "dtz"),
                       out)
    # errors: a missing table is the one case python-chess answers too (by raising)
    kinds = [tbprobe.error_kind(v) for v in out]
    return [MISSING if v <= tbprobe.TB_ERROR and k in (tbprobe.ERR_MISSING_WDL,
                                                       tbprobe.ERR_MISSING_DTZ)
            else int(v) for v, k in zip(out, kinds)]


def describe(name):
    w, b = name.split("v")
    kinds = ["pawnful" if "P" in name else "pawnless"]
    if sorted(w) == sorted(b):
        kinds.append("symmetric")
    return "+".join(kinds)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", default=DEFAULT_PATH)
    ap.add_argument("--positions", type=int, default=100_000, help="in all, shared by tables")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ep", type=float, default=0.25,
                    help="share of en-passant positions where both colours have pawns")
    ap.add_argument("--tables", default="", help="comma-separated names (default: all)")
    ap.add_argument("--cursed", type=int, default=100,
                    help="cursed wins / blessed losses to walk from each known seed (and their "
                         "mirror images)")
    args = ap.parse_args(argv)

    tb, ref = open_tablebases(args.path)
    for e in tb.errors:
        print(f"load error: {e}")
    names = [n for n in tb.names if tb.tables[n][0] is not None]
    if args.tables:
        want = set(args.tables.split(","))
        names = [n for n in names if n in want]
    per = max(1, -(-args.positions // max(1, len(names))))        # rounded up
    rng = random.Random(args.seed)
    print(f"{len(names)} tables in {args.path}, {per} positions each, seed {args.seed}")
    head = (f"{'table':10} {'kind':18} {'pos':>6} {'ep':>5} {'capt':>5} "
            f"{'loss':>6} {'bl.l':>5} {'draw':>6} {'cu.w':>5} {'win':>6} {'dWDL':>5} {'dDTZ':>5}")
    print(head)
    totals = dict(pos=0, ep=0, capt=0, wdl_diff=0, dtz_diff=0, cls=[0] * 5, missing=0)
    t_ours = t_ref = 0.0
    shown = 0
    for name in names:
        boards = []
        if name in CURSED_SEEDS and args.cursed:
            walked = positions.walk_boards(tb.probe_wdl, chess.Board(CURSED_SEEDS[name]), rng,
                                        args.cursed, max_steps=10 * args.cursed)
            boards = [s for b in walked for s in positions.symmetric_boards(b)][:per]
        while len(boards) < per:
            ep = "P" in name.split("v")[0] and "P" in name.split("v")[1] and rng.random() < args.ep
            board = positions.random_board(name, rng, en_passant=ep)
            if board is None:
                break
            boards.append(board)
        rows = tbprobe.rows_of([from_fen(b.fen()) for b in boards])
        t0 = time.perf_counter()
        mine = {k: ours(tb, rows, k) for k in ("wdl", "dtz")}
        t1 = time.perf_counter()
        theirs = {k: [reference(ref, b, k) for b in boards] for k in ("wdl", "dtz")}
        t2 = time.perf_counter()
        t_ours += t1 - t0
        t_ref += t2 - t1
        cls = [0] * 5
        diff = {"wdl": 0, "dtz": 0}
        ep_n = capt_n = 0
        for i, b in enumerate(boards):
            ep_n += any(b.generate_legal_ep())
            capt_n += any(b.generate_legal_captures())
            w = theirs["wdl"][i]
            if w == MISSING:
                totals["missing"] += 1
            else:
                cls[w + 2] += 1
            for k in ("wdl", "dtz"):
                if mine[k][i] != theirs[k][i]:
                    diff[k] += 1
                    if shown < 30:
                        shown += 1
                        print(f"  DIFF {k} {b.fen()}: ours {mine[k][i]}, python-chess "
                              f"{theirs[k][i]}")
        print(f"{name:10} {describe(name):18} {len(boards):6} {ep_n:5} {capt_n:5} "
              f"{cls[0]:6} {cls[1]:5} {cls[2]:6} {cls[3]:5} {cls[4]:6} {diff['wdl']:5} "
              f"{diff['dtz']:5}", flush=True)
        totals["pos"] += len(boards)
        totals["ep"] += ep_n
        totals["capt"] += capt_n
        totals["wdl_diff"] += diff["wdl"]
        totals["dtz_diff"] += diff["dtz"]
        totals["cls"] = [a + c for a, c in zip(totals["cls"], cls)]
    c = totals["cls"]
    print(f"{'total':10} {'':18} {totals['pos']:6} {totals['ep']:5} {totals['capt']:5} "
          f"{c[0]:6} {c[1]:5} {c[2]:6} {c[3]:5} {c[4]:6} {totals['wdl_diff']:5} "
          f"{totals['dtz_diff']:5}")
    print(f"positions {totals['pos']}, with en passant {totals['ep']}, with a capture "
          f"{totals['capt']}, cursed wins {c[3]}, blessed losses {c[1]}, missing tables "
          f"{totals['missing']}")
    print(f"differences: WDL {totals['wdl_diff']}, DTZ {totals['dtz_diff']} "
          f"(time: compiled {t_ours:.1f} s, python-chess {t_ref:.1f} s)")
    return 1 if totals["wdl_diff"] or totals["dtz_diff"] else 0


if __name__ == "__main__":
    sys.exit(main())
