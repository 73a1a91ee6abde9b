"""`black-numba bench [DEPTH] [--threads N] [--eval nnue|tapered] [--evalfile NET]
[--style Normal|Aggressive|Hustler]`: fixed-depth searches of a fixed position list with a
fresh hash, evaluating with the shipped network (the default, as the engine) or the tapered
evaluation, in a playing style (style.py; Hustler against an opponent rated
style.BENCH_HUSTLER_GAP below full strength, no clock).

With one thread the total node count is deterministic and serves as the search signature in
commit messages; nodes per second is the speed figure (compare with Stockfish's `bench` in the
same run). With more threads the total time is the time to depth of the Lazy SMP search, and
the node count varies from run to run (the threads race through the shared table).
"""
import io
import sys
import time

BENCH_DEPTH = 11
# Openings, middlegames (the Bratko-Kopec positions among them) and endgames.
BENCH_FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
    "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1",
    "2q1rr1k/3bbnnp/p2p1pp1/2pPp3/PpP1P1P1/1P2BNNP/2BQ1PRK/7R b - - 0 1",
    "rnbqkb1r/p3pppp/1p6/2ppP3/3N4/2P5/PPP1QPPP/R1B1KB1R w KQkq - 0 1",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    "2r3k1/pppR1pp1/4p3/4P1P1/5P2/1P4K1/P1P5/8 w - - 0 1",
    "1nk1r1r1/pp2n1pp/4p3/q2pPp1N/b1pP1P2/B1P2R2/2P1B1PP/R2Q2K1 w - - 0 1",
    "4b3/p3kp2/6p1/3pP2p/2pP1P2/4K1P1/P3N2P/8 w - - 0 1",
    "2kr1bnr/pbpq4/2n1pp2/3p3p/3P1P1B/2N2N1Q/PPP3PP/2KR1B1R w - - 0 1",
    "3rr1k1/pp3pp1/1qn2np1/8/3p4/PP1R1P2/2P1NQPP/R1B3K1 b - - 0 1",
    "2r1nrk1/p2q1ppp/bp1p4/n1pPp3/P1P1P3/2PBB1N1/4QPPP/R4RK1 w - - 0 1",
    "r3r1k1/ppqb1ppp/8/4p1NQ/8/2P5/PP3PPP/R3R1K1 b - - 0 1",
    "r2q1rk1/4bppp/p2p4/2pP4/3pP3/3Q4/PP1B1PPP/R3R1K1 w - - 0 1",
    "rnb2r1k/pp2p2p/2pp2p1/q2P1p2/8/1Pb2NP1/PB2PPBP/R2Q1RK1 w - - 0 1",
    "2r3k1/1p2q1pp/2b1pr2/p1pp4/6Q1/1P1PP1R1/P1PN2PP/5RK1 w - - 0 1",
    "r1bqkb1r/4npp1/p1p4p/1p1pP1B1/8/1B6/PPPN1PPP/R2Q1RK1 w kq - 0 1",
    "r2q1rk1/1ppnbppp/p2p1nb1/3Pp3/2P1P1P1/2N2N1P/PPB1QP2/R1B2RK1 b - - 0 1",
    "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1",
    "3rr3/2pq2pk/p2p1pnp/8/2QBPP2/1P6/P5PP/4RRK1 b - - 0 1",
    "r4k2/pb2bp1r/1p1qp2p/3pNp2/3P1P2/2N3P1/PPP1Q2P/2KRR3 w - - 0 1",
    "3rn2k/ppb2rpp/2ppqp2/5N2/2P1P3/1P5Q/PB3PPP/3RR1K1 w - - 0 1",
    "2r2rk1/1bqnbpp1/1p1ppn1p/pP6/N1P1P3/P2B1N1P/1B2QPP1/R2R2K1 b - - 0 1",
    "r1bqk2r/pp2bppp/2p5/3pP3/P2Q1P2/2N1B3/1PP3PP/R4RK1 b kq - 0 1",
    "r2qnrnk/p2b2b1/1p1p2pp/2pPpp2/1PP1P3/PRNBB3/3QNPPP/5RK1 w - - 0 1",
    "rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 0 4",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "8/8/4k3/3p4/3P4/4K3/8/8 w - - 0 1",
    "8/5pk1/6p1/8/8/6P1/5PK1/3R4 w - - 0 1",
    "6k1/8/8/8/8/8/1R6/6K1 w - - 0 1",
    "8/8/8/3k4/8/8/3P4/3K4 w - - 0 1",
    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    "8/3k4/8/8/8/8/3KQ3/8 w - - 0 1",
    "8/8/1p3k2/p1p5/P1P5/1P3K2/8/8 w - - 0 1",
    "2r5/5pk1/4p1p1/1R6/8/6P1/5PKP/8 b - - 0 1",
]


def network(evaluation="nnue", evalfile=None):
    """The network array bench searches with (nnue.NO_NET for the tapered evaluation)."""
    from black_numba.evaluation import netfile, nnue
    if evaluation == "tapered":
        return nnue.NO_NET
    return netfile.load(evalfile or netfile.DEFAULT_NET)[0]


def bench_style(name):
    """The StyleSettings bench searches with in style `name` (ValueError for no style)."""
    from black_numba.search import style
    from black_numba.search.strength import ELO_MAX
    return style.settings(name, 0, ELO_MAX, ELO_MAX - style.BENCH_HUSTLER_GAP)


def run_bench(depth=None, hash_mb=16, out=sys.stdout, threads=1, evaluation="nnue",
              evalfile=None, style="Normal"):
    """Search every bench position to depth with a fresh table; returns 0."""
    from black_numba.search.driver import Searcher
    from black_numba.search.limits import Limits
    from black_numba.board.position import from_fen
    depth = depth or BENCH_DEPTH
    NN = network(evaluation, evalfile)
    settings = bench_style(style)
    total = 0
    t_all = 0.0
    for i, fen in enumerate(BENCH_FENS, 1):
        s = Searcher(hash_mb, threads)
        s.set_network(NN)
        s.prepare()
        pos = from_fen(fen)
        t0 = time.perf_counter()
        s.search(pos, Limits(depth=depth), style=settings)
        t_all += time.perf_counter() - t0
        nodes = s.nodes()
        s.close()                       # its helper threads end with it
        total += nodes
        print(f"Position: {i}/{len(BENCH_FENS)} {fen}  nodes {nodes}", file=sys.stderr)
    print("===========================", file=out)
    print(f"Threads         : {threads}", file=out)
    print(f"Evaluation      : {evaluation}", file=out)
    if style != "Normal":
        print(f"Style           : {style}", file=out)
    print(f"Total time (ms) : {int(t_all * 1000)}", file=out)
    print(f"Nodes searched  : {total}", file=out)
    print(f"Nodes/second    : {int(total / max(t_all, 1e-9))}", file=out)
    return 0


def bench_signature(evalfile=None):
    """The node count of `black-numba bench` (the search's signature), with this network."""
    out = io.StringIO()
    err, sys.stderr = sys.stderr, io.StringIO()      # its per-position lines
    try:
        run_bench(out=out, evalfile=evalfile)
    finally:
        sys.stderr = err
    lines = dict(line.split(":", 1) for line in out.getvalue().splitlines() if ":" in line)
    return int(lines["Nodes searched  "])
