"""`black-numba data`: the training-data chunks of a data folder.

    black-numba data pack SOURCE --seed N [--out data] [--chunk-games N] [--rest] [--net F]
    black-numba data relabel SOURCES... [--engine E] [--nodes N] [--max-non-pawn M] ...
    black-numba data check [FOLDER] [--quick]

Arguments are checked here; the work is chunks.check_folder (the format and its manifest),
pack.pack (a datagen run's games into chunks) and relabel.relabel (endgames scored again).
"""
import os
import shutil
import sys

from black_numba.training import chunks, relabel
from black_numba.training.pack import pack
from black_numba.training.refengine import EngineError


def add_arguments(ap):
    sub = ap.add_subparsers(dest="data_cmd", required=True)
    p = sub.add_parser("pack", help="pack a datagen run's games (--format games) into chunks")
    p.add_argument("source", help="the datagen folder (--out of the run)")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--out", default="data", help="the data folder (default: data)")
    p.add_argument("--chunk-games", type=int, default=10000)
    p.add_argument("--rest", action="store_true",
                   help="pack the games left over too, as a shorter chunk (at a stop)")
    p.add_argument("--net", help="the network file the games were played with (needed only "
                                 "where the run's progress file does not name it)")
    r = sub.add_parser("relabel", help="endgame positions of chunks scored again by a "
                                       "reference engine, as chunks of their own (relabel.py)")
    r.add_argument("sources", nargs="+",
                   help="datagen chunks, or data folders (every datagen chunk they list)")
    r.add_argument("--engine", default=relabel.DEFAULT_ENGINE, help="the labelling UCI engine")
    r.add_argument("--nodes", type=int, default=relabel.DEFAULT_NODES, help="nodes a label")
    r.add_argument("--max-non-pawn", type=int, default=relabel.ENDGAME_NON_PAWN,
                   help="positions with at most this non-pawn material (N=B=3, R=5, Q=9, both "
                        "sides) are relabelled")
    r.add_argument("--jobs", type=int, default=2, help="engines labelling at once")
    r.add_argument("--out", default="data", help="the data folder (default: data)")
    c = sub.add_parser("check", help="check a data folder against its manifest")
    c.add_argument("folder", nargs="?", default="data")
    c.add_argument("--quick", action="store_true", help="sizes and SHA-256 only, no counts")


def run(args):
    """The exit code: 0 done, 1 a folder that does not match its manifest, 2 bad arguments
    or data."""
    if args.data_cmd == "relabel":
        return run_relabel(args)
    try:
        if args.data_cmd == "pack":
            if args.chunk_games < 1:
                raise chunks.ChunkError("--chunk-games must be at least 1")
            pack(args.source, args.seed, args.out, args.chunk_games, args.rest, args.net)
            return 0
        bad = chunks.check_folder(args.folder, count=not args.quick)
    except (chunks.ChunkError, OSError, ValueError) as e:   # a bad --net: NetError (ValueError)
        print(f"data: {e}", file=sys.stderr)
        return 2
    man = chunks.read_manifest(args.folder)
    for line in bad:
        print(f"data: {line}", file=sys.stderr)
    n = sum(e.get("positions", 0) for e in man["chunks"])
    size = sum(e.get("bytes", 0) for e in man["chunks"])
    print(f"data: {len(man['chunks'])} chunks, {n:,} positions, {size:,} bytes "
          f"({size / max(1, n):.2f} a position), {'bad' if bad else 'all match'}")
    return 1 if bad else 0


def run_relabel(args):
    """`data relabel`: 2 for bad arguments or data, 0 when every chunk is done."""
    if args.nodes < 1 or args.jobs < 1 or args.max_non_pawn < 0:
        print("data relabel: --nodes and --jobs must be at least 1, --max-non-pawn not negative",
              file=sys.stderr)
        return 2
    engine = shutil.which(args.engine) or args.engine
    if not (os.path.isfile(engine) and os.access(engine, os.X_OK)):
        print(f"data relabel: engine {engine!r} is not an executable file", file=sys.stderr)
        return 2
    try:
        for s in args.sources:
            if not (os.path.isdir(s) or (s.endswith(chunks.SUFFIX) and os.path.isfile(s))):
                raise chunks.ChunkError(f"{s}: not a chunk file or a data folder")
        sources = chunks.expand(args.sources)
        command = "black-numba data relabel " + " ".join(
            [os.path.basename(s) if s.endswith(chunks.SUFFIX) else s for s in args.sources]
            + ["--engine", engine, "--nodes", str(args.nodes), "--max-non-pawn",
               str(args.max_non_pawn), "--jobs", str(args.jobs), "--out", args.out])
        relabel.relabel(sources, args.out, engine, args.nodes, args.max_non_pawn, args.jobs,
                        command)
    except (ValueError, EngineError, OSError) as e:       # ChunkError is a ValueError
        print(f"data relabel: {e}", file=sys.stderr)
        return 2
    return 0
