"""Name a network file for a run's log: its weights hash (16 hex digits), or with
--describe its architecture, hash and training data. Used by the match scripts.

    bench/net_id.py NET [--describe]"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from black_numba.evaluation.netfile import load  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("net")
    ap.add_argument("--describe", action="store_true")
    args = ap.parse_args()
    header = load(args.net)[1]
    sha = header["weights_sha256"][:16]
    if args.describe:
        print(header["architecture"], sha, "data", ",".join(header["trained"]["data"]))
    else:
        print(sha)


if __name__ == "__main__":
    main()
