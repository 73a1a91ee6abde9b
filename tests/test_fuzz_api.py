"""Fuzzing the Python API (black_numba.Engine, black_numba.annotate) in-process: seeded random
calls with junk.

Boards: junk FENs, illegal boards python-chess lets one build (no king, pawns on the back
rank, the side not to move in check, odd castling rights and en-passant squares, counters out
of range), variant boards, move stacks holding an illegal move, Chess960 boards, long games.
Limits: negative, zero and huge values, always beside a small bound (a mate limit alone and an
empty Limit are another rule's, tested with it). Options: unknown names, values out of range
or of the wrong kind, damaged network files. perft and divide with bad depths, threads and
hash sizes; evaluate with junk; analyse with any multipv; analysis started and stopped;
annotate on junk games.

Properties: only ValueError or chess.engine.EngineError escapes a call, its message naming the
bad input (the option, the limit, the depth, the board's FEN or variant, the move); a call
that succeeds answers sensibly (a legal move, the right number of lines or evaluations); and
every so often and at the end, on default options, the engine plays the same move with the
same score and node count at a fixed node limit as a fresh engine. Arguments of the wrong
Python type are not fuzzed here: test_known_escapes lists the ones that escape today as other
exceptions. Cases are seeded (tests/fuzzing.py: FUZZ_SEED, FUZZ_SCALE)."""
import io
import os

import chess
import chess.engine
import chess.pgn
import chess.variant
import pytest

import black_numba
from black_numba.evaluation import netfile
from black_numba.core.engine import OPTIONS
from conftest import ROOT
from fuzzing import cases, mutate, rng, where

pytestmark = pytest.mark.slow        # a few hundred searches, perfts and a few annotations

CALLS = 500                  # calls at the default scale
CHECK_EVERY = 100            # calls between fixed-node checks
CHECK_NODES = 3000
CHECK_FENS = (
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
)
FENS = CHECK_FENS + (
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",
    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
)
FEN_CHARS = "rnbqkpRNBQKP12345678/ wb-KQkqAHah09e36x"
VARIANTS = (chess.variant.AtomicBoard, chess.variant.CrazyhouseBoard,
            chess.variant.ThreeCheckBoard, chess.variant.AntichessBoard,
            chess.variant.HordeBoard, chess.variant.RacingKingsBoard)
SYZYGY = os.path.join(ROOT, "tests", "data", "syzygy")
SPIN_VALUES = {"Hash": [1, 2, 8, 16], "Threads": [1, 2, 3]}     # valid values: kept small
OPTION_JUNK = ["", "abc", "-1", -1, 0, 1, 10 ** 20, True, False, None, "true", "<empty>", 1.5,
               "/nonexistent/net.bnn", "x" * 300]
MAX_PERFT = 3                # legal perft depths drawn (deeper ones are refused or too slow)
GAME_PLIES = 8               # plies of the games annotate is given at most


def _defaults():
    """Every option's default, EvalFile before Use NNUE: a file set while the network was off
    is only read (and refused) when it is turned on."""
    names = sorted((o for o in OPTIONS if o.kind != "button"), key=lambda o: o.name != "EvalFile")
    return {o.name: o.default for o in names}


def fixed_play(engine, fen):
    """(move, score, nodes, pv) of a fixed-node search of fen on default options, as a new
    game."""
    engine.configure(_defaults())
    r = engine.play(chess.Board(fen), chess.engine.Limit(nodes=CHECK_NODES), game=object(),
                    info=chess.engine.INFO_ALL)
    return r.move, r.info.get("score"), r.info.get("nodes"), r.info.get("pv")


@pytest.fixture(scope="module")
def fresh():
    with black_numba.Engine() as engine:
        return {fen: fixed_play(engine, fen) for fen in CHECK_FENS}


# -- junk ----------------------------------------------------------------------------------
def _random_game(board, r, plies):
    for _ in range(plies):
        legal = list(board.legal_moves)
        if not legal:
            break
        board.push(r.choice(legal))
    return board


def junk_fen(r):
    fen = r.choice(FENS)
    how = r.randrange(5)
    if how == 0:
        fields = fen.split()
        i = r.randrange(len(fields))
        fields[i] = r.choice(["", "x", "-", "9", "w", "KQkq", "e9", "-1", "99999", fields[i] * 2])
        return " ".join(fields)
    if how == 1:
        return " ".join(fen.split()[:r.randrange(0, 6)])
    if how == 2:
        chars = list(fen)
        for _ in range(r.randint(1, 4)):
            chars[r.randrange(len(chars))] = r.choice(FEN_CHARS)
        return "".join(chars)
    if how == 3:
        return "".join(r.choice(FEN_CHARS) for _ in range(r.randrange(0, 80)))
    return mutate(fen.encode(), r)[1].decode("latin-1")


def junk_board(r):
    """(board, texts an error about it may name)."""
    how = r.randrange(12)
    if how == 0:                                  # whatever python-chess makes of junk text
        fen = junk_fen(r)
        try:
            board = chess.Board(fen)
        except ValueError:
            board = chess.Board(None)
    elif how == 1:
        board = r.choice(VARIANTS)()
        _random_game(board, r, r.randrange(0, 6))
        return board, [board.uci_variant, type(board).__name__]
    elif how == 2:                                # pieces dropped anywhere
        board = chess.Board(r.choice(FENS))
        for _ in range(r.randint(1, 4)):
            sq = r.randrange(64)
            board.set_piece_at(sq, None if r.random() < 0.3 else
                               chess.Piece(r.randint(1, 6), r.random() < 0.5))
    elif how == 3:                                # odd castling rights, en passant, counters
        board = chess.Board(r.choice(FENS))
        board.castling_rights |= r.getrandbits(64) & (chess.BB_RANK_1 | chess.BB_RANK_8)
        if r.random() < 0.5:
            board.ep_square = r.randrange(64)
        board.halfmove_clock = r.choice([0, 99, 100, 150, -1, 10 ** 9])
        board.fullmove_number = r.choice([1, 0, -5, 10 ** 9])
    elif how == 4:                                # an illegal move in the stack
        board = _random_game(chess.Board(), r, r.randrange(0, 10))
        own = list(chess.SquareSet(board.occupied_co[board.turn]))
        moves = [chess.Move(r.choice(own), r.randrange(64)), chess.Move.null()]
        board.push(r.choice(moves))
        _random_game(board, r, r.randrange(0, 3))
        return board, [board.fen()] + [m.uci() for m in board.move_stack]
    elif how == 5:
        board = chess.Board.from_chess960_pos(r.randrange(960))
        _random_game(board, r, r.randrange(0, 20))
    elif how == 6:                                # long games: the undo stack is trimmed
        board = _random_game(chess.Board(), r, r.randrange(100, 400))
    elif how == 7:
        board = chess.Board(None)
    else:
        board = _random_game(chess.Board(r.choice(FENS)), r, r.randrange(0, 30))
    counters = [" ".join(b.fen().split()[4:]) for b in (board, board.root())]  # refused alone
    return board, [board.fen(), board.root().fen()] + counters + [m.uci() for m in
                                                                  board.move_stack]


def junk_limit(r):
    """(a Limit with a small bound beside junk, fields an error may name)."""
    bound = r.choice([{"nodes": r.randint(0, 2000)}, {"depth": r.randint(0, 3)},
                      {"time": r.choice([0, 0.001, 0.01])}])
    fields = dict(bound)
    junk = {"nodes": [-1, 0, 1, 10 ** 18], "depth": [-1, 0, 10 ** 6],
            "time": [-1.0, -0.001, 0, 1e9], "white_clock": [-5.0, 0, 0.01, 1e9],
            "black_clock": [-5.0, 0, 0.01, 1e9], "white_inc": [-1.0, 0, 1e9],
            "black_inc": [-1.0, 0, 1e9], "remaining_moves": [-1, 0, 1, 10 ** 9],
            "mate": [-1, 0, 1, 3]}
    for name in r.sample(sorted(junk), r.randint(0, 3)):
        fields[name] = r.choice(junk[name])
    # keep a real bound: the drawn one, tighter than anything junk put in its place
    fields.update({k: min(v, fields.get(k, v)) if fields.get(k, v) >= 0 else fields[k]
                   for k, v in bound.items()})
    return chess.engine.Limit(**fields), sorted(fields)


def junk_options(r, tmp):
    """({option: value}, names an error may name)."""
    out = {}
    for _ in range(r.randint(1, 3)):
        o = r.choice(OPTIONS)
        name = o.name
        how = r.randrange(6)
        if how == 0:
            name = name.upper() if r.random() < 0.5 else " ".join(name.lower().split())
        elif how == 1:
            name = r.choice(["Hashh", "", "Threads Threads", "value", "Use", "x" * 100,
                             "Syzygy Path", "  "])
        if o.name == "EvalFile" and r.random() < 0.5:
            kind, data = mutate(open(netfile.DEFAULT_NET, "rb").read(), r)
            path = os.path.join(tmp, f"fuzzed-{r.randrange(10 ** 6)}.bnn")
            with open(path, "wb") as f:
                f.write(data)
            value = path
        elif o.name == "SyzygyPath" and r.random() < 0.5:
            value = r.choice([SYZYGY, SYZYGY + ":/nonexistent", tmp])
        elif o.kind == "spin" and r.random() < 0.5:
            value = r.choice(SPIN_VALUES.get(o.name, [o.min, o.max, o.default]))
        else:
            value = r.choice(OPTION_JUNK)
        out[name] = value
    names = [n.strip() for n in out] + [repr(" ".join(n.split())) for n in out]
    return out, names + [str(v) for v in out.values() if v not in (None, "")]


def junk_game(r):
    """A PGN game: a short random one, its text mutated."""
    board = _random_game(chess.Board(), r, r.randrange(0, GAME_PLIES))
    text = str(chess.pgn.Game.from_board(board))
    if r.random() < 0.7:
        text = mutate(text.encode(), r)[1].decode("latin-1")
    return chess.pgn.read_game(io.StringIO(text)) or chess.pgn.Game()


# -- calls: each is (label, call returning a check of its result, names) -------------------------
def call_play(engine, r, tmp):
    board, names = junk_board(r)
    limit, fields = junk_limit(r)
    kwargs = {}
    if r.random() < 0.2:
        kwargs["root_moves"] = [chess.Move(r.randrange(64), r.randrange(64))
                                for _ in range(r.randint(0, 3))]
        names += [m.uci() for m in kwargs["root_moves"]]
    if r.random() < 0.1:
        kwargs["options"], opt_names = junk_options(r, tmp)
        names += opt_names

    def run():
        result = engine.play(board, limit, **kwargs)
        if result.move is not None:
            assert result.move in board.legal_moves, result.move
        else:
            assert not any(board.legal_moves), board.fen()
    return "play", run, names + fields


def call_analyse(engine, r, tmp):
    board, names = junk_board(r)
    limit, fields = junk_limit(r)
    multipv = r.choice([None, 0, -1, 1, 2, 5, 300])

    def run():
        info = engine.analyse(board, limit, multipv=multipv)
        lines = info if multipv is not None else [info]
        assert isinstance(lines, list)
        if multipv is not None and multipv > 0:
            # a strength level searches (and reports, as Stockfish does) at least its own
            # number of lines whatever multipv asks
            assert len(lines) <= multipv or engine._core.handicap() is not None
        for line in lines:
            if line.get("pv"):
                assert line["pv"][0] in board.legal_moves, line["pv"]
    return "analyse", run, names + fields + ["multipv", str(multipv)]


def call_analysis(engine, r, tmp):
    board, names = junk_board(r)
    limit, fields = junk_limit(r)

    endless = r.random() < 0.2                     # no limit: stop() ends it

    def run():
        with engine.analysis(board, None if endless else limit) as analysis:
            if endless or r.random() < 0.5:
                analysis.stop()
        best = analysis.wait()
        assert best.move is None or best.move in board.legal_moves
    return "analysis", run, names + fields


def call_configure(engine, r, tmp):
    options, names = junk_options(r, tmp)
    return "configure", lambda: engine.configure(options), names


def call_perft(engine, r, tmp):
    board, names = junk_board(r)
    depth = r.choice([-5, -1, 0, 1, 2, MAX_PERFT, 129, 1000, 10 ** 9])
    threads = r.choice([1, 1, 2, 0, -1])
    hash_mb = r.choice([0, 0, 1, -1, 10 ** 6])
    divide = r.random() < 0.3

    def run():
        if divide:
            rows = engine.divide(board, depth, threads=threads, hash_mb=hash_mb)
            assert set(rows) == set(board.legal_moves)
        else:
            n = engine.perft(board, depth, threads=threads, hash_mb=hash_mb)
            assert n >= 0 and (depth != 1 or n == board.legal_moves.count())
    return "divide" if divide else "perft", run, names + [
        "depth must", f"got {depth}", f"got {threads}", f"got {hash_mb}"]


def call_evaluate(engine, r, tmp):
    positions, names = [], []
    for _ in range(r.randint(0, 4)):
        if r.random() < 0.5:
            b, n = junk_board(r)
            positions.append(b)
            names += n
        else:
            fen = junk_fen(r) if r.random() < 0.7 else r.choice(FENS)
            positions.append(fen)
            # as EPD: the text before any ';', its first four fields where the counters fail
            names += [repr(fen), " ".join(fen.split(";")[0].split()[:4])]
    device = r.choice(["cpu"] * 6 + ["gpu", "", "CPU"])

    def run():
        got = engine.evaluate(positions, device=device)
        assert got.shape == (len(positions),) and str(got.dtype) == "int32"
    return "evaluate", run, names + [repr(device)]


def call_annotate(engine, r, tmp):
    game = junk_game(r)
    limit = chess.engine.Limit(nodes=r.choice([1, 50, 200]))

    def run():
        out = black_numba.annotate(game, limit, engine)
        assert len(list(out.mainline_moves())) == len(list(game.mainline_moves()))
    return "annotate", run, None        # game_problem's reasons: checked in test_fuzz_pgn.py


CALLS_BY_WEIGHT = [(call_play, 6), (call_analyse, 4), (call_analysis, 1), (call_configure, 4),
                   (call_perft, 3), (call_evaluate, 3), (call_annotate, 1)]


def _names_input(message, names):
    """Does message hold one of names, as written or escaped as repr writes it?"""
    low = message.lower()
    return any(n and (str(n).lower() in low or repr(str(n))[1:-1].lower() in low)
               for n in names)


def test_random_api_calls_raise_clear_errors_and_leave_the_engine_unchanged(fresh, tmp_path):
    r = rng("api calls")
    makers, weights = zip(*CALLS_BY_WEIGHT)
    refused = {}
    with black_numba.Engine() as engine:
        for i in range(cases(CALLS)):
            label, run, names = r.choices(makers, weights)[0](engine, r, str(tmp_path))
            note = (where("api calls", i), label)
            try:
                run()
            except (ValueError, chess.engine.EngineError) as e:
                refused[label] = refused.get(label, 0) + 1
                assert str(e), note
                if names is not None:
                    assert _names_input(str(e), names), (note, str(e), names)
            if (i + 1) % CHECK_EVERY == 0 or i + 1 == cases(CALLS):
                for fen in CHECK_FENS:
                    assert fixed_play(engine, fen) == fresh[fen], (note, fen)
    assert sum(refused.values()) > cases(CALLS) // 4, refused
    print(f"\napi calls: {cases(CALLS)} calls, refused {sorted(refused.items())}, "
          f"{where('api calls', cases(CALLS))}")


# -- what escapes today as another exception (each a reproducer; strict: a fix shows) ---------
B = chess.Board()
L = chess.engine.Limit
KNOWN = {       # name: (the call, a text the error should hold): once escapes, now refused
    "perft depth of text": (lambda e: e.perft(B, "3"), "depth"),
    "limit nodes of text": (lambda e: e.play(B, L(nodes="100")), "nodes"),
    "limit time NaN": (lambda e: e.play(B, L(time=float("nan"), nodes=10)), "time"),
    "limit time infinite": (lambda e: e.play(B, L(time=float("inf"), nodes=10)), "time"),
    "evaluate None": (lambda e: e.evaluate([None]), "None"),
    "configure a number as name": (lambda e: e.configure({5: 1}), "5"),
    "root_moves of text": (lambda e: e.play(B, L(nodes=10), root_moves=["e2e4"]), "e2e4"),
    "play without a limit object": (lambda e: e.play(B, None), "limit"),
    "analyse multipv of text": (lambda e: e.analyse(B, L(nodes=10), multipv="2"), "multipv"),
    "perft threads 0": (lambda e: e.perft(B, 1, threads=0), "threads"),
    "perft depth beyond go perft's": (lambda e: e.perft(B, 20), "depth"),
    "analyse multipv 0": (lambda e: e.analyse(B, L(nodes=10), multipv=0), "multipv"),
    "analyse multipv -1": (lambda e: e.analyse(B, L(nodes=10), multipv=-1), "multipv"),
}


@pytest.fixture(scope="module")
def engine():
    with black_numba.Engine() as e:
        yield e


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_arguments_of_the_wrong_kind_are_clear_errors(engine, name):
    """Found by the fuzzing: arguments of the wrong type or range are refused with ValueError
    or EngineError naming them (they escaped as TypeError, AttributeError or OverflowError,
    or answered without an error, before)."""
    call, text = KNOWN[name]
    try:
        call(engine)
    except (ValueError, chess.engine.EngineError) as e:
        assert text in str(e) and "illegal board" not in str(e), str(e)
        return
    raise AssertionError(f"{name}: no ValueError or EngineError")
