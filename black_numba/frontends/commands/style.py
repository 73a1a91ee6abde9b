"""`black-numba style GAMES.pgn ... --player NAME [--engine CMD [--nodes N] [--option
NAME=VALUE]] [--json FILE]`: the arguments checked here, the report made by
style.style_report (black_numba.style_report in Python)."""
import json
import sys

from black_numba.arena import style


def parse_option(text):
    """'Name=Value' -> (name, value)."""
    name, eq, value = text.partition("=")
    if not eq or not name.strip():
        raise style.StyleError(f"option {text!r} is not NAME=VALUE")
    return name.strip(), value.strip()


def _progress(done, total):
    print(f"\rstyle: analysed {done}/{total} games", end="", file=sys.stderr, flush=True)


def run(args):
    """The exit code: 2 for bad arguments or files."""
    try:
        if args.engine is None and (args.nodes is not None or args.option):
            raise style.StyleError("--nodes and --option need --engine")
        options = [parse_option(o) for o in args.option]
        progress = _progress if args.engine and sys.stderr.isatty() else None
        report = style.style_report(args.games, args.player, engine=args.engine,
                                    nodes=args.nodes, options=options, progress=progress)
        if progress is not None:
            print(file=sys.stderr)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(report, f, indent=1)
    except style.StyleError as e:
        print(f"style: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        name = f"{e.filename}: " if e.filename else ""
        print(f"style: {name}{e.strerror or e}", file=sys.stderr)
        return 2
    for text in style.report_lines(report):
        print(text)
    return 0


def add_arguments(ap):
    ap.add_argument("games", metavar="GAMES.pgn", nargs="+", help="PGN files")
    ap.add_argument("--player", required=True, metavar="NAME",
                    help="the player, as the White and Black tags name it")
    ap.add_argument("--engine", metavar="CMD",
                    help="a UCI engine's command line: count the moves that lose 100, 200, "
                         "300 cp against its best (errors per 40 moves)")
    ap.add_argument("--nodes", type=int,
                    help=f"the engine's nodes a position (default {style.DEFAULT_NODES})")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a UCI option of the engine (repeat for more)")
    ap.add_argument("--json", metavar="FILE", help="write the report as JSON too")
