"""One sequential test fed by several match streams (as fishtest pools its workers): the
last tallies of the given `bench/sprt_nodes.sh` logs are added up and the SPRT's
log-likelihood ratio is taken on the sum, with match.py's own formula and bounds. Streams of
one test differ only in their opening seed, so they play different games.

    bench/sprt_pool.py bench/results/sprt_NAME.txt bench/results/sprt_NAME_s24.txt [--elo1 15]

Prints the pooled tally, Elo with its interval, the LLR and the verdict (H0, H1 or none);
exit 0 once decided, 1 while undecided. The streams are stopped by hand at a verdict."""
import argparse
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "..", "shared", "tools"))
from match import Tally, elo_summary, sprt_llr  # noqa: E402

TALLY = re.compile(r"new \+(\d+) =(\d+) -(\d+)")
ALPHA = BETA = 0.05


def last_tally(path):
    """(wins, draws, losses) of the last game line of a log, zeros before the first."""
    found = (0, 0, 0)
    with open(path) as f:
        for line in f:
            m = TALLY.search(line)
            if m:
                found = tuple(int(x) for x in m.groups())
    return found


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--elo0", type=float, default=0)
    ap.add_argument("--elo1", type=float, default=15)
    args = ap.parse_args(argv)
    t = Tally()
    for path in args.logs:
        w, d, l = last_tally(path)
        t.wins, t.draws, t.losses = t.wins + w, t.draws + d, t.losses + l
        print(f"{path}: +{w} ={d} -{l}")
    lower, upper = math.log(BETA / (1 - ALPHA)), math.log((1 - BETA) / ALPHA)
    llr = sprt_llr(t, args.elo0, args.elo1)
    verdict = "H1 accepted" if llr >= upper else "H0 accepted" if llr <= lower else "no verdict"
    print(f"pooled: +{t.wins} ={t.draws} -{t.losses}; {elo_summary(t)}")
    print(f"SPRT {args.elo0:g} {args.elo1:g}: LLR {llr:+.2f} ({lower:+.2f} .. {upper:+.2f}), "
          f"{verdict}")
    return 0 if verdict != "no verdict" else 1


if __name__ == "__main__":
    sys.exit(main())
