#!/usr/bin/env python3
"""Build Stockfish for this machine's processor from its source, with the network that
Debian's binary embeds, and check that it searches exactly as Debian's build does.

    python3 tools/build_stockfish.py SRC [--debian /usr/games/stockfish] [--arch ARCH] [--pgo]

SRC is a Stockfish source tree of the version Debian ships (15.1: `git archive sf_15.1` of
the official repository). Debian's build is for SSE2 only; the same source built for the
processor's vector units searches the same nodes (NNUE inference is integer arithmetic)
several times as fast. The network file is not in the source tree (its Makefile downloads
it): it is cut out of Debian's binary, where the build embeds it, and recognised by the first
12 hex digits of its SHA-256, which its name carries. `--pgo` makes Stockfish's
profile-guided build (its Makefile's `profile-build`: a few minutes more, a faster binary). Prints the binary's path; exits 1 when
its `bench` node count differs from Debian's (a different search: do not use its labels).
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from black_numba.provenance import file_sha256  # noqa: E402  (this checkout's package)

NNUE_VERSION = (0x7AF32F20).to_bytes(4, "little")   # nnue_common.h: Version
MIN_NET_BYTES = 1 << 20
BENCH_ARGS = ["bench", "16", "1", "13"]             # Stockfish's bench: hash MB, threads, depth
NODES_LINE = re.compile(r"Nodes searched\s*:\s*(\d+)")


def net_name(src):
    text = open(os.path.join(src, "src", "evaluate.h")).read()
    m = re.search(r'EvalFileDefaultName\s+"(nn-([0-9a-f]{12})\.nnue)"', text)
    if not m:
        sys.exit(f"build_stockfish: no EvalFileDefaultName in {src}/src/evaluate.h")
    return m.group(1), m.group(2)


def cut_net(binary, prefix):
    """The embedded network: starts at an NNUE version word with a readable description,
    ends where the running SHA-256 first starts with the file name's 12 hex digits."""
    data = open(binary, "rb").read()
    view = memoryview(data)
    start = data.find(NNUE_VERSION)
    while start >= 0:
        desc_len = int.from_bytes(data[start + 8:start + 12], "little")
        if 0 < desc_len < 4096 and data[start + 12:start + 12 + desc_len].isascii():
            h = hashlib.sha256(view[start:start + MIN_NET_BYTES])
            for end in range(start + MIN_NET_BYTES, len(data)):
                h.update(view[end:end + 1])
                if h.copy().hexdigest().startswith(prefix):
                    return data[start:end + 1]
        start = data.find(NNUE_VERSION, start + 1)
    sys.exit(f"build_stockfish: no network nn-{prefix}... in {binary}")


def arch():
    flags = set()
    family = 0
    for line in open("/proc/cpuinfo"):
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
        elif line.startswith("cpu family"):
            family = int(line.split(":")[1])
        if flags and family:
            break
    amd = "GenuineIntel" not in open("/proc/cpuinfo").read(4096)
    if {"avx512bw", "avx512f"} <= flags:
        return "x86-64-avx512"
    if "bmi2" in flags and not (amd and family < 25):   # PEXT is microcoded before Zen 3
        return "x86-64-bmi2"
    if "avx2" in flags:
        return "x86-64-avx2"
    if {"sse4_1", "popcnt"} <= flags:
        return "x86-64-sse41-popcnt"
    return "x86-64"


def bench_nodes(binary):
    """The node count of a Stockfish binary's `bench` (None where it prints none)."""
    r = subprocess.run([binary] + BENCH_ARGS, capture_output=True, text=True)
    found = NODES_LINE.search(r.stdout + r.stderr)
    return int(found.group(1)) if found else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src")
    ap.add_argument("--debian", default="/usr/games/stockfish")
    ap.add_argument("--arch", default=None)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--pgo", action="store_true", help="profile-guided build")
    a = ap.parse_args()
    name, prefix = net_name(a.src)
    net_path = os.path.join(a.src, "src", name)
    if not os.path.exists(net_path):
        open(net_path, "wb").write(cut_net(a.debian, prefix))
    digest = file_sha256(net_path)
    if not digest.startswith(prefix):
        sys.exit(f"build_stockfish: {net_path} has SHA-256 {digest[:12]}..., not {prefix}...")
    target = a.arch or arch()
    subprocess.run(["make", f"-j{a.jobs}", "profile-build" if a.pgo else "build",
                    f"ARCH={target}"],
                   cwd=os.path.join(a.src, "src"), check=True, stdout=subprocess.DEVNULL)
    binary = os.path.join(a.src, "src", "stockfish")
    ours, theirs = bench_nodes(binary), bench_nodes(a.debian)
    print(f"build_stockfish: {binary} (ARCH={target}, net {name}); bench {ours:,} nodes, "
          f"Debian's {theirs:,}: {'the same search' if ours == theirs else 'DIFFERENT'}",
          file=sys.stderr)
    print(binary)
    return 0 if ours == theirs else 1


if __name__ == "__main__":
    sys.exit(main())
