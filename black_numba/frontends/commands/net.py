"""`black-numba net info NET [--describe]`: a network file's weights hash (16 hex digits, the
name the match logs give it), or with --describe its architecture, hash and training data."""
import sys

from black_numba.evaluation import netfile

HASH_DIGITS = 16          # the weights hash as logs name a network


def add_arguments(ap):
    """The `black-numba net` command line."""
    ap.add_argument("action", choices=("info",))
    ap.add_argument("net", help="a network file (.bnn)")
    ap.add_argument("--describe", action="store_true",
                    help="architecture, weights hash and training data on one line")


def net_id(header):
    """A network's name in logs: its weights hash, HASH_DIGITS hex digits."""
    return header["weights_sha256"][:HASH_DIGITS]


def describe(header):
    """A network on one line: architecture, weights hash and the data it was trained on."""
    data = ",".join(header.get("trained", {}).get("data", []))
    return f"{header['architecture']} {net_id(header)} data {data}"


def run(args):
    """Print the network's hash or description; returns the exit code (2: not a network)."""
    try:
        header = netfile.load(args.net)[1]
    except netfile.NetError as e:
        print(f"black-numba net: {e}", file=sys.stderr)
        return 2
    print(describe(header) if args.describe else net_id(header))
    return 0
