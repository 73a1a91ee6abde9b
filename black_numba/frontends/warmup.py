"""Compile every entry point the engine uses, filling the Numba cache ahead of time."""
import sys
import time


def warmup(verbose=False):
    """Import and call each compiled entry point once."""
    t0 = time.perf_counter()

    def say(what):
        if verbose:
            print(f"warmup: {what} ({time.perf_counter() - t0:.1f} s)", file=sys.stderr, flush=True)

    from black_numba.board.position import from_fen, make_null, unmake_null, TABLES
    from black_numba.board.perft import divide, perft
    pos = from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    say("position")
    assert perft(pos, 2) == 2039
    divide(pos, 1)
    make_null(TABLES, pos)
    unmake_null(TABLES, pos)
    say("movegen and perft")
    from black_numba.search.driver import Searcher
    from black_numba.search.limits import Limits
    searcher = Searcher(1)
    searcher.prepare()
    searcher.search(pos, Limits(depth=3), multipv=2)
    searcher.prepare()
    searcher.search(pos, Limits(depth=2))        # search.deepen, the loop every thread runs
    say("search and evaluation")
