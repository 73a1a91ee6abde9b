"""Command line: ``black-numba`` speaks UCI; subcommands run the browser board (gui), perft,
bench, eval, warmup and the tools."""
import argparse
import sys
import threading
import time


MAX_PERFT_DEPTH = 20       # the move buffer holds MAX_PLY plies; deeper takes years anyway
MAX_BENCH_DEPTH = 64
COMPILE_NOTE_AFTER = 1.0   # s: a perft warm-up this slow is compiling (a cache load is ~0.3 s)
MAX_PERFT_HASH_MB = 65536   # black_numba.board.perft.MAX_HASH_MB, kept here so --help loads no compiled code


def _log(*args):
    print(*args, file=sys.stderr, flush=True)


def _progress(total, desc):
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, file=sys.stderr, unit="pos", leave=False,
                disable=not sys.stderr.isatty())


def _read_suite(path, max_depth):
    """[(line_no, fen, {depth: count})] from an EPD perft suite (';D1 20 ;D2 400 ...')."""
    cases = []
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(";")
            fen = parts[0].strip()
            counts = {}
            for p in parts[1:]:
                p = p.split()
                if len(p) == 2 and p[0][:1] == "D" and p[0][1:].isdigit():
                    d = int(p[0][1:])
                    if max_depth is None or d <= max_depth:
                        counts[d] = int(p[1])
            cases.append((no, fen, counts))
    return cases


class _PerftProgress:
    """Nodes so far, nodes/s and the time left of a long perft, on one stderr line."""

    def __init__(self, label):
        self.label, self.t0, self.shown = label, time.perf_counter(), False

    def __call__(self, run):
        dt = time.perf_counter() - self.t0
        nodes, share = run.nodes_done(), run.share_done()
        left = f", about {dt * (1 - share) / share:,.0f} s left" if share > 0 else ""
        sys.stderr.write(f"\r{self.label}: {nodes:,} nodes, {nodes / max(dt, 1e-9) / 1e6:,.1f} "
                         f"M nodes/s{left}\033[K")
        sys.stderr.flush()
        self.shown = True

    def close(self):
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def _perft_warm():
    """Load (or compile) the compiled perft before any clock starts; says `compiling` on
    stderr when that takes long enough to notice."""
    from black_numba.board.perft import perft
    from black_numba.board.position import from_fen
    note = threading.Timer(COMPILE_NOTE_AFTER, lambda: _log("black-numba perft: compiling ..."))
    note.daemon = True
    note.start()
    perft(from_fen(), 3, 1, 0)
    perft(from_fen(), 3, 1, 1)
    note.cancel()


def cmd_perft(args):
    from black_numba.board.perft import Perft, new_table, perft
    from black_numba.board.position import from_fen
    threads, mb = args.threads, args.hash
    if args.epd:
        cases = _read_suite(args.epd, args.depth)
        _perft_warm()
        # one table serves the whole suite: its keys tell Chess960 castling files apart
        table = new_table(mb) if mb else None
        failed = nodes = 0
        t0 = time.perf_counter()
        bar = _progress(len(cases), "perft")
        for no, fen, counts in cases:
            try:
                pos = from_fen(fen)
            except ValueError as e:
                print(f"line {no}: FAIL bad FEN: {e}")
                failed += 1
                continue
            d = max(counts) if counts else 0
            got = sum(Perft(pos, d, threads, table=table).run()) if d else 1
            nodes += got
            ok = not counts or got == counts[d]
            # on a mismatch at the deepest depth, report the shallower depths too
            if not ok:
                failed += 1
                detail = ", ".join(f"D{k} {perft(pos, k)}/{v}" for k, v in sorted(counts.items()))
                print(f"line {no}: FAIL {fen}: {detail}")
            elif args.verbose:
                print(f"line {no}: ok D{d} {got}")
            bar.update(1)
        bar.close()
        dt = time.perf_counter() - t0
        print(f"{len(cases) - failed}/{len(cases)} positions passed, {nodes} nodes, "
              f"{dt:.2f} s, {nodes / max(dt, 1e-9):,.0f} nodes/s")
        return 1 if failed else 0
    if args.depth is None:
        _log("black-numba perft: error: give a DEPTH or --epd FILE")
        return 2
    try:
        pos = from_fen(args.fen)
    except ValueError as e:
        _log(f"black-numba perft: bad FEN: {e}")
        return 2
    _perft_warm()
    show = sys.stderr.isatty() and not args.quiet
    progress = _PerftProgress(f"perft {args.depth}") if show else None
    t0 = time.perf_counter()
    if args.depth == 0:
        rows, total = [], 1
    else:
        run = Perft(pos, args.depth, threads, mb)
        counts = run.run(progress)
        total = sum(counts)
        rows = [(m, c) for m, c in zip(run.roots, counts)]
    dt = time.perf_counter() - t0
    if progress:
        progress.close()
    if args.divide:
        from black_numba.board.position import move_to_uci
        for m, c in rows:
            print(f"{move_to_uci(m, pos if args.chess960 else None)}: {c}")
        print()
    print(f"Nodes searched: {total}")
    _log(f"time {dt:.3f} s, {total / max(dt, 1e-9):,.0f} nodes/s")
    return 0


def cmd_bench(args):
    from black_numba.frontends.bench import run_bench
    return run_bench(args.depth, args.hash, threads=args.threads, evaluation=args.eval,
                     evalfile=args.evalfile, style=args.style)


def cmd_eval(args):
    from black_numba.evaluation.batch import eval_command
    return eval_command(args.epd, args.device, args.batch, args.eval, args.evalfile)


def cmd_warmup(args):
    from black_numba.frontends.warmup import warmup
    t0 = time.perf_counter()
    warmup(verbose=True)
    _log(f"warmup done in {time.perf_counter() - t0:.1f} s")
    return 0


def _command(module):
    """The `run` of the command module frontends/commands/<module>.py, imported on use."""
    def run(args):
        from importlib import import_module
        return import_module(f"black_numba.frontends.commands.{module}").run(args)
    return run


# (command, module under frontends/commands/, help): each module has add_arguments and run
COMMANDS = (
    ("tune", "tune", "Texel-tune the evaluation weights on games or labels, or with "
                     "--spsa the search's numbers on games"),
    ("label", "label", "label quiet positions with a reference engine's score"),
    ("datagen", "datagen", "training positions from self-play at fixed nodes"),
    ("train", "train", "train the evaluation network on labelled positions"),
    ("data", "data", "the training-data chunks of data/: pack, relabel, check"),
    ("annotate", "annotate", "every move of PGN games scored: [%%eval], ?! ? ??, "
                             "better lines, average centipawn loss"),
    ("match", "match", "a match between two UCI engines (Dask tasks; Elo, SPRT), or with "
                       "--build and --opponent a gauntlet"),
    ("style", "style", "a player's style from its games: short wins, sacrifices, bad draws, "
                       "the opponent's errors"),
    ("net", "net", "a network file: its weights hash, architecture and training data"),
    ("calibrate", "calibrate", "fit the strength table (UCI_Elo -> skill level) from games "
                               "against Stockfish 15.1"),
)


def cmd_gui(args):
    from black_numba.frontends.gui.server import run
    return run(args)


class _Parser(argparse.ArgumentParser):
    """Bad arguments get one line naming the command and the problem, and exit code 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _in_range(lo, hi):
    """argparse type: an integer in lo..hi."""
    def parse(text):
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"{v} is not between {lo} and {hi}")
        return v
    return parse


def _style(text):
    """argparse type: a playing style (the Style option's choices, any case)."""
    from black_numba.search.style import canonical
    try:
        return canonical(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _parser():
    from black_numba.board.position import START_FEN
    ap = _Parser(prog="black-numba", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("perft", help="count leaf nodes (a position or an EPD suite)")
    p.add_argument("depth", nargs="?", type=_in_range(0, MAX_PERFT_DEPTH))
    p.add_argument("--depth", dest="depth_opt", type=_in_range(0, MAX_PERFT_DEPTH),
                   help="max depth for --epd")
    p.add_argument("--fen", default=START_FEN)
    p.add_argument("--divide", action="store_true")
    p.add_argument("--chess960", action="store_true",
                   help="write castling in --divide as the king taking its rook (e1h1)")
    p.add_argument("--epd", help="suite of 'FEN ;D1 n ;D2 n ...' lines")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--threads", type=_in_range(1, 512), default=1,
                   help="threads taking subtrees from a shared queue (default 1)")
    p.add_argument("--hash", type=_in_range(0, MAX_PERFT_HASH_MB), default=0, metavar="MB",
                   help="a table of (position, depth) -> count shared by the threads; "
                        "0 (default): none, the classic perft")
    p.add_argument("--quiet", "-q", action="store_true",
                   help="no progress line on stderr (it shows only on a terminal)")
    p.set_defaults(func=cmd_perft)
    b = sub.add_parser("bench", help="fixed-depth search of a fixed position list")
    b.add_argument("depth", nargs="?", type=_in_range(1, MAX_BENCH_DEPTH), default=None)
    b.add_argument("--hash", type=_in_range(1, 4096), default=16)
    b.add_argument("--threads", type=_in_range(1, 512), default=1,
                   help="search threads (Lazy SMP); node counts above 1 vary from run to run")
    b.add_argument("--eval", choices=("nnue", "tapered"), default="nnue",
                   help="evaluation to search with (default: the network, as the engine)")
    b.add_argument("--evalfile", help="network file (default: the shipped network)")
    b.add_argument("--style", type=_style, default="Normal",
                   help="playing style (the Style option): Normal, Aggressive or Hustler")
    b.set_defaults(func=cmd_bench)
    e = sub.add_parser("eval", help="static evaluation of every position of an EPD/FEN file")
    e.add_argument("--epd", required=True)
    e.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    e.add_argument("--batch", type=_in_range(1, 1 << 24), default=65536)
    e.add_argument("--eval", choices=("nnue", "tapered"), default="nnue",
                   help="the network (default, as the engine's Use NNUE) or the tapered one")
    e.add_argument("--evalfile", help="network file (default: the shipped network)")
    e.set_defaults(func=cmd_eval)
    w = sub.add_parser("warmup", help="compile everything into the cache")
    w.set_defaults(func=cmd_warmup)
    from importlib import import_module
    for name, module, text in COMMANDS:
        c = sub.add_parser(name, help=text)
        import_module(f"black_numba.frontends.commands.{module}").add_arguments(c)
        c.set_defaults(func=_command(module))
    from black_numba.frontends.gui import server as gui
    g = sub.add_parser("gui", help="the board in your browser: play the engine, "
                                   "analyse positions and games (a local web server)")
    gui.add_arguments(g, _in_range)
    g.set_defaults(func=cmd_gui)
    return ap


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] == "uci":
        from black_numba.frontends.uci import main as uci_main
        return uci_main()
    args = _parser().parse_args(argv)
    if args.cmd == "perft" and args.depth_opt is not None:
        args.depth = args.depth_opt
    try:
        return args.func(args)
    except OSError as e:              # a missing or unreadable file: one line, no traceback
        name = f"{e.filename}: " if e.filename else ""
        _log(f"black-numba {args.cmd}: {name}{e.strerror or e}")
        return 2
    except (UnicodeDecodeError, ValueError) as e:
        _log(f"black-numba {args.cmd}: {e}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
