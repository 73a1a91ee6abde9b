#!/usr/bin/env python3
"""Split the 2-move opening set into a held-out sample and the rest.

    .venv/bin/python bench/openings.py [--source ../shared/data/openings_2moves.epd]
        [--holdout 500] [--seed 23] [--rest /tmp/openings_sprt.epd]

The held-out sample (bench/openings_holdout.epd, committed) is set aside before the search
work of issue 23 starts: it plays only the final comparison against the starting build and is
never used by a sequential test or by SPSA, which draw from the rest (written to --rest; the
split is deterministic, so --rest can be made again any time).
"""
import argparse
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", default=os.path.join(HERE, "..", "..", "shared", "data",
                                                     "openings_2moves.epd"))
    ap.add_argument("--holdout", type=int, default=500)
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--rest", default="/tmp/openings_sprt.epd")
    a = ap.parse_args()
    lines = [l for l in open(a.source) if l.strip()]
    picked = set(random.Random(a.seed).sample(range(len(lines)), a.holdout))
    with open(os.path.join(HERE, "openings_holdout.epd"), "w") as f:
        f.writelines(lines[i] for i in sorted(picked))
    with open(a.rest, "w") as f:
        f.writelines(l for i, l in enumerate(lines) if i not in picked)
    print(f"{a.holdout} held out, {len(lines) - a.holdout} in {a.rest}")


if __name__ == "__main__":
    main()
