#!/usr/bin/env python3
"""Split the 2-move opening set into a held-out sample and the rest.

    .venv/bin/python bench/openings.py [--source ../shared/data/openings_2moves.epd]
        [--holdout 500] [--seed 23] [--rest /tmp/openings_sprt.epd]

The held-out sample (black_numba/arena/openings_holdout.epd, committed) is set aside before the search
work of issue 23 starts: it plays only the final comparison against the starting build and is
never used by a sequential test or by SPSA, which draw from the rest (written to --rest; the
split is deterministic, so --rest can be made again any time).
"""
import argparse

from common import HOLDOUT_SEED, HOLDOUT_SIZE, OPENINGS_2MOVES, OPENINGS_HOLDOUT, split_openings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", default=OPENINGS_2MOVES)
    ap.add_argument("--holdout", type=int, default=HOLDOUT_SIZE)
    ap.add_argument("--seed", type=int, default=HOLDOUT_SEED)
    ap.add_argument("--rest", default="/tmp/openings_sprt.epd")
    a = ap.parse_args()
    held, rest = split_openings(a.source, a.holdout, a.seed)
    with open(OPENINGS_HOLDOUT, "w") as f:
        f.writelines(held)
    with open(a.rest, "w") as f:
        f.writelines(rest)
    print(f"{a.holdout} held out, {len(rest)} in {a.rest}")


if __name__ == "__main__":
    main()
