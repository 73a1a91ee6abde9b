"""Name a network file for a run's log: its weights hash (16 hex digits), or with
--describe its architecture, hash and training data. Used by the match scripts.

    bench/net_id.py NET [--describe]"""
import argparse

from common import describe_net, net_hash


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("net")
    ap.add_argument("--describe", action="store_true")
    args = ap.parse_args()
    print(describe_net(args.net) if args.describe else net_hash(args.net))


if __name__ == "__main__":
    main()
