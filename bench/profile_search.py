#!/usr/bin/env python3
"""Where the search's CPU goes, per compiled function: `perf record` on `bench DEPTH` run in
this process, with a perf map (/tmp/perf-PID.map) of the compiled functions' addresses so
that perf names Numba's code.

    .venv/bin/python bench/profile_search.py [--depth 14] [--top 25] [--eval nnue|tapered]
    .venv/bin/python bench/profile_search.py --perft 6     # the move generator alone, by perft

Numba code loaded from the cache carries no symbols, so the package compiles afresh into a
temporary cache first (about a minute). Needs `perf` (linux-perf). Pause background datagen.
"""
import argparse
import io
import os
import re
import subprocess
import sys
import tempfile
import time

from common import use_checkout


def write_perf_map(path):
    """One line per compiled function of the loaded black_numba modules: start, size (to the
    next start), name. Returns the number of functions."""
    from numba.core.registry import CPUDispatcher
    starts, seen = set(), set()
    mods = [m for n, m in list(sys.modules.items()) if n.startswith("black_numba.")]
    for mod in mods:
        for d in vars(mod).values():
            if not isinstance(d, CPUDispatcher):
                continue
            for cres in d.overloads.values():
                lib = cres.library
                if id(lib) in seen:
                    continue
                seen.add(id(lib))
                engine = lib._codegen._engine
                for f in lib._final_module.functions:
                    if not f.is_declaration:
                        addr = engine.get_function_address(f.name)
                        if addr:
                            starts.add((addr, f.name))
    entries = sorted(starts)
    with open(path, "w") as out:
        for (a, name), nxt in zip(entries, entries[1:] + [(entries[-1][0] + 4096, "")]):
            out.write(f"{a:x} {min(nxt[0] - a, 1 << 20):x} {name}\n")
    return len(entries)


def short_name(symbol):
    """black_numba::search::negamax from Numba's mangled name."""
    m = re.match(r"_ZN(?:\d+\w+?)?((?:\d+[A-Za-z_]\w*?)+)B\d", symbol)
    if not m:
        return symbol
    parts, s = [], m.group(1)
    while s:
        n = re.match(r"(\d+)", s)
        k = int(n.group(1))
        parts.append(s[len(n.group(1)):len(n.group(1)) + k])
        s = s[len(n.group(1)) + k:]
    return ".".join(parts[1:]) if parts and parts[0] == "black_numba" else ".".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=14)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--eval", choices=("nnue", "tapered"), default="nnue")
    ap.add_argument("--perft", type=int, metavar="DEPTH",
                    help="profile perft(DEPTH) from the start instead of the search (compiles "
                         "the move generator alone)")
    args = ap.parse_args()
    cache_dir = tempfile.mkdtemp(prefix="bn-profile-")
    os.environ["BLACK_NUMBA_CACHE"] = cache_dir      # before black_numba is imported
    use_checkout()
    t0 = time.time()
    if args.perft:
        from black_numba.board.perft import perft
        from black_numba.board.position import from_fen
        perft(from_fen(), 2, 1, 0)                                          # compile it

        def work(out):
            print(f"perft({args.perft}): {perft(from_fen(), args.perft, 1, 0)} nodes", file=out)
    else:
        from black_numba.frontends import bench
        bench.run_bench(depth=5, out=io.StringIO(), evaluation=args.eval)   # compile everything

        def work(out):
            bench.run_bench(depth=args.depth, out=out, evaluation=args.eval)
    n = write_perf_map(f"/tmp/perf-{os.getpid()}.map")
    print(f"compiled in {time.time() - t0:.0f} s; {n} functions in the perf map", file=sys.stderr)
    data = os.path.join(cache_dir, "perf.data")
    perf = subprocess.Popen(["perf", "record", "-F", "1999", "-p", str(os.getpid()), "-o", data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    out = io.StringIO()
    work(out)
    perf.send_signal(2)
    perf.wait()
    print(out.getvalue().strip(), file=sys.stderr)
    rep = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "symbol",
                          "--stdio"], capture_output=True, text=True).stdout
    rows = []
    for line in rep.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[.\]\s+(\S+)", line)
        if m:
            rows.append((float(m.group(1)), short_name(m.group(2))))
    for pct, name in rows[:args.top]:
        print(f"{pct:6.2f}%  {name}")


if __name__ == "__main__":
    main()
