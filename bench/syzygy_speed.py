"""WDL (and DTZ) probes a second: black_numba's compiled reader beside python-chess's.

    .venv/bin/python bench/syzygy_speed.py [--path ../shared/data/syzygy] [--positions 20000]
                                           [--min-pieces 5] [--seconds 2] [--seed 1]

Draws random legal positions of every table with at least --min-pieces pieces (as
bench/syzygy_check.py does), then times, on one core and with the tables in the page cache
(one warm-up pass first; seconds are this process's CPU time, so the figures are per core
even on a busy machine): the compiled ``tbprobe.probe_many`` loop (a full probe each: the
capture search and en passant resolved, the position copied in), repeated for at least
--seconds, and python-chess's ``probe_wdl`` on the same positions (a share of them, for at
least --seconds). Prints probes a second for both and their ratio; DTZ likewise.
"""
import argparse
import random
import time

import numpy as np

from common import SYZYGY_PATH, open_tablebases, use_checkout

use_checkout()
from black_numba.tablebase import positions, tbprobe  # noqa: E402
from black_numba.board.bitboard import TABLES  # noqa: E402
from black_numba.board.position import POS_SIZE, from_fen  # noqa: E402

DEFAULT_PATH = SYZYGY_PATH
# CPU time of this process: probes a second on one core even when other work shares the
# machine (wall time would count the time the scheduler gave to others).
CLOCK = time.process_time


def time_compiled(tb, rows, dtz, seconds):
    out = np.zeros(len(rows), dtype=np.int64)
    pos = np.zeros(POS_SIZE, dtype=np.uint64)
    buf = tbprobe.new_buffer()
    flag = np.bool_(dtz)
    tbprobe.probe_many(TABLES, rows, pos, tb.meta, buf, flag, out)      # compile and warm
    n = 0
    t0 = CLOCK()
    w0 = time.perf_counter()
    while True:
        tbprobe.probe_many(TABLES, rows, pos, tb.meta, buf, flag, out)
        n += len(rows)
        dt = CLOCK() - t0
        if dt >= seconds:
            break
    wall = time.perf_counter() - w0
    errors = int(np.sum(out <= tbprobe.TB_ERROR))
    return n / dt, n / wall, errors


def time_python_chess(ref, boards, dtz, seconds):
    probe = ref.probe_dtz if dtz else ref.probe_wdl
    for b in boards[:200]:
        probe(b)                                                         # warm the maps
    n = 0
    t0 = CLOCK()
    while True:
        for b in boards:
            probe(b)
            n += 1
            if n % 256 == 0 and CLOCK() - t0 >= seconds:
                return n / (CLOCK() - t0)
        if CLOCK() - t0 >= seconds:
            return n / (CLOCK() - t0)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", default=DEFAULT_PATH)
    ap.add_argument("--positions", type=int, default=20_000)
    ap.add_argument("--min-pieces", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-dtz", action="store_true")
    args = ap.parse_args(argv)
    tb, ref = open_tablebases(args.path)
    names = [n for n in tb.names if tb.tables[n][0] is not None and len(n) - 1 >= args.min_pieces]
    rng = random.Random(args.seed)
    boards = []
    while len(boards) < args.positions:
        name = rng.choice(names)
        b = positions.random_board(name, rng, en_passant=rng.random() < 0.25)
        if b is not None:
            boards.append(b)
    rows = tbprobe.rows_of([from_fen(b.fen()) for b in boards])
    caps = sum(1 for b in boards if any(b.generate_legal_captures()))
    print(f"{len(boards)} random positions of {len(names)} tables with >= {args.min_pieces} "
          f"pieces ({caps} with a legal capture)")
    for dtz in ((False,) if args.no_dtz else (False, True)):
        kind = "DTZ" if dtz else "WDL"
        ours, ours_wall, errors = time_compiled(tb, rows, dtz, args.seconds)
        theirs = time_python_chess(ref, boards, dtz, args.seconds)
        print(f"{kind}: compiled {ours:,.0f} probes/s, python-chess {theirs:,.0f} probes/s, "
              f"x{ours / theirs:.0f} (CPU time; compiled by wall clock {ours_wall:,.0f}/s; "
              f"errors {errors})", flush=True)


if __name__ == "__main__":
    main()
