"""What the bench scripts share: this checkout's paths, Stockfish, `bench` reports, a UCI engine
over a raw pipe (for timing), PGN reading, the opening split, where match logs go.

Each script imports it as ``import common`` (Python puts the script's folder, bench/, first on
the module path); ``use_checkout()`` puts this checkout ahead of any installed black_numba.
"""
import os
import random
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
ENGINE = os.path.join(ROOT, "bin", "black-numba")
STOCKFISH = os.environ.get("STOCKFISH", "/usr/games/stockfish")   # Debian's Stockfish 15.1
GLAURUNG = "/usr/games/glaurung"
SF_BENCH = ["bench", "16", "1", "13"]             # Stockfish's bench: hash MB, threads, depth
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))     # data beside the checkout (not in the clone)
OPENINGS_2MOVES = os.path.join(SHARED, "data", "openings_2moves.epd")
OPENINGS_HOLDOUT = os.path.join(ROOT, "black_numba", "arena", "openings_holdout.epd")
HOLDOUT_SIZE = 500                                # openings set aside for the last comparison
HOLDOUT_SEED = 23
SYZYGY_PATH = os.path.join(SHARED, "data", "syzygy")


def use_checkout():
    """Import black_numba from this checkout, not from whatever the interpreter has."""
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)


def engine_of(checkout):
    """bin/black-numba of a checkout (its own code and compile cache)."""
    return os.path.join(checkout, "bin", "black-numba")


# -- bench reports ----------------------------------------------------------------------------

def bench_report(cmd, check=True):
    """{"ms", "nodes", "nps"} of a `bench` run (ours and Stockfish's print the same lines, on
    stdout or stderr); a field the report lacks is None."""
    r = subprocess.run(cmd, capture_output=True, text=True, check=check)
    return report_of(r.stdout + r.stderr)


def report_of(text):
    """{"ms", "nodes", "nps"} of a `bench` report's text."""
    def get(key):
        m = re.search(key + r"\s*:\s*(\d+)", text)
        return int(m.group(1)) if m else None
    return {"ms": get(r"Total time \(ms\)"), "nodes": get("Nodes searched"),
            "nps": get("Nodes/second")}


def our_bench(depth=None, *extra, checkout=ROOT):
    """`black-numba bench [DEPTH] [EXTRA...]` of a checkout (default this one)."""
    return bench_report([engine_of(checkout), "bench"]
                        + ([str(depth)] if depth is not None else []) + list(extra))


def stockfish_bench(threads=1, binary=STOCKFISH):
    """`stockfish bench 16 THREADS 13`."""
    args = list(SF_BENCH)
    args[2] = str(threads)
    return bench_report([binary] + args)


# -- a UCI engine, timed -------------------------------------------------------------

def UciPipe(cmd, env=None, options=()):
    """The package's UCI client (black_numba.uci_client), started and made ready: its lines
    are stamped on arrival (time.perf_counter), so a timing is the engine's, not the
    reader's; t_start, t_uciok and t_readyok are those of the start."""
    use_checkout()
    from black_numba.uci_client import UciProcess

    class Pipe(UciProcess):
        def send(self, *lines):
            for line in lines:
                super().send(line)

        def wait(self, prefix, timeout=600):
            """(arrival time, line) of the next line starting with prefix."""
            deadline = time.monotonic() + timeout
            while True:
                line = self.readline(deadline)
                if line.startswith(prefix):
                    return self.arrival, line

    t_start = time.perf_counter()
    eng = Pipe(cmd if isinstance(cmd, list) else [cmd], env=env)
    eng.t_start = t_start
    eng.send("uci")
    eng.t_uciok = eng.wait("uciok")[0]
    eng.send(*(f"setoption name {k} value {v}" for k, v in options), "isready")
    eng.t_readyok = eng.wait("readyok")[0]
    return eng


def open_tablebases(path):
    """Our compiled reader's tables and python-chess's, on the same folders (':'-separated)."""
    use_checkout()
    import chess.syzygy
    from black_numba.tablebase import syzygy
    ref = chess.syzygy.Tablebase()
    for folder in syzygy.split_path(path):
        ref.add_directory(folder)
    return syzygy.Tablebase(path), ref


def popen_stockfish(threads=1, hash_mb=16):
    """Stockfish through python-chess, configured as every comparison here uses it."""
    import chess.engine
    sf = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    sf.configure({"Threads": threads, "Hash": hash_mb})
    return sf


ENDGAME_PIECES = (6, 8)          # endgame-rich starts: a capture or two from the 5-piece tables


def endgame_fens(count, seed, pieces=ENDGAME_PIECES):
    """FENs of count distinct positions with `pieces` (low, high) men from data/'s chunks (the
    project's own games), drawn with a seed."""
    use_checkout()
    import chess
    from black_numba.training import chunks
    fens = {}
    for path in chunks.expand([os.path.join(ROOT, "data")]):
        rows, stm, _, _ = chunks.Chunk(path).positions()
        men = (rows >= 0).sum(axis=1)
        for i in ((men >= pieces[0]) & (men <= pieces[1])).nonzero()[0]:
            row, side = rows[i], stm[i]
            codes = [int(c) for c in row if c >= 0]
            board = chess.Board(None)
            for c in codes:
                p, sq = divmod(c, 64)
                board.set_piece_at(sq, chess.Piece(p % 6 + 1, chess.WHITE if p < 6 else
                                                   chess.BLACK))
            board.turn = chess.WHITE if side == 0 else chess.BLACK
            if board.is_valid():
                fens[board.fen()] = None
    fens = sorted(fens)
    return random.Random(seed).sample(fens, min(count, len(fens)))


def tb_conversions(pgn, path, name):
    """Games of `name` (a PGN's White/Black) that reached a position the tables call won for it
    with it to move, a win the fifty-move rule cannot spoil (WDL +2, DTZ plus the halfmove
    clock within 100 plies): returns (games, such games, [those it did not win, as (round,
    FEN, result)])."""
    import chess.syzygy
    tables = chess.syzygy.Tablebase()
    for folder in path.replace(";", ":").split(":"):
        if folder:
            tables.add_directory(folder)
    games = reached = 0
    failed = []
    for game in read_pgn(pgn):
        games += 1
        colour = chess.WHITE if game.headers.get("White") == name else \
            chess.BLACK if game.headers.get("Black") == name else None
        if colour is None:
            continue
        board = game.board()
        won_at = None
        for move in [None] + list(game.mainline_moves()):
            if move is not None:
                board.push(move)
            if board.turn != colour or board.castling_rights or \
                    chess.popcount(board.occupied) > 5:
                continue
            try:
                wdl, dtz = tables.probe_wdl(board), tables.probe_dtz(board)
            except (KeyError, chess.syzygy.MissingTableError):
                continue
            if wdl == 2 and abs(dtz) + board.halfmove_clock <= 100:
                won_at = board.fen()
                break
        if won_at is None:
            continue
        reached += 1
        result = game.headers.get("Result", "*")
        if result != ("1-0" if colour == chess.WHITE else "0-1"):
            failed.append((game.headers.get("Round", "?"), won_at, result))
    tables.close()
    return games, reached, failed


# -- games and openings -----------------------------------------------------------------------

def read_pgn(path):
    """The games of a PGN file (.xz too), one python-chess Game at a time."""
    import lzma

    import chess.pgn
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            yield game


def split_openings(source=OPENINGS_2MOVES, holdout=HOLDOUT_SIZE, seed=HOLDOUT_SEED):
    """(held-out lines, the rest) of an opening file: a seeded, deterministic split."""
    with open(source) as f:
        lines = [line for line in f if line.strip()]
    picked = set(random.Random(seed).sample(range(len(lines)), holdout))
    return ([lines[i] for i in sorted(picked)],
            [line for i, line in enumerate(lines) if i not in picked])


def write_rest(path, source=OPENINGS_2MOVES):
    """The 2-move set less the held-out sample, written to path (what sequential tests and
    SPSA draw from); returns the number of openings."""
    rest = split_openings(source)[1]
    with open(path, "w") as f:
        f.writelines(rest)
    return len(rest)


def matches_dir():
    """Where match logs go: as `black-numba match` chooses (outside the repository)."""
    use_checkout()
    from black_numba.arena.runner import matches_root
    return matches_root()


# -- a checkout's identity --------------------------------------------------------------------

def commit_of(checkout=ROOT):
    """Short commit of a checkout, with " (with uncommitted changes)" where it has them;
    "unknown" outside git."""
    use_checkout()
    from black_numba.provenance import git_commit
    commit = git_commit(checkout, short=True, mark_changes=True)
    return "unknown" if commit is None else \
        commit.replace("+changes", " (with uncommitted changes)")


def signature_of(checkout=ROOT, *extra):
    """The bench signature (node count) of a checkout's `black-numba bench`."""
    return our_bench(None, *extra, checkout=checkout)["nodes"]


def describe_net(path):
    """A network file as the logs name it: architecture, weights hash (16 hex digits) and
    training data (`black-numba net info NET --describe`)."""
    use_checkout()
    from black_numba.evaluation.netfile import load
    from black_numba.frontends.commands.net import describe
    return describe(load(path)[1])


def net_hash(path):
    """A network file's weights hash, 16 hex digits (`black-numba net info NET`)."""
    use_checkout()
    from black_numba.evaluation.netfile import load
    from black_numba.frontends.commands.net import net_id
    return net_id(load(path)[1])
