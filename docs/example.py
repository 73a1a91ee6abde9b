"""black_numba from Python: the same calls through python-chess's UCI client or in-process.

Run as it is, it drives bin/black-numba through `SimpleEngine.popen_uci`; change only the
line marked OPEN to `with black_numba.Engine() as engine:` and it runs in this process. It
prints one JSON object (tests/test_api.py runs it both ways and compares them).
"""
import json
import os
import sys

import chess
import chess.engine

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import black_numba  # noqa: E402,F401  (the in-process engine, for the other opening line)

ENGINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bin", "black-numba")
NODES = chess.engine.Limit(nodes=20000)
out = {}
with chess.engine.SimpleEngine.popen_uci(ENGINE) as engine:  # OPEN
    engine.configure({"Hash": 32, "Threads": 1})
    out["name"] = engine.id["name"]
    out["options"] = sorted(engine.options)
    out["hash"] = [engine.options["Hash"].default, engine.options["Hash"].max]

    # a game in progress: the move stack counts (repetitions)
    board = chess.Board()
    for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]:
        board.push_san(san)
    result = engine.play(board, NODES, info=chess.engine.INFO_ALL)
    out["play"] = [result.move.uci(), result.info["nodes"], str(result.info["score"])]

    # two principal variations, and a search restricted to two root moves
    lines = engine.analyse(board, NODES, multipv=2)
    out["multipv"] = [[str(i["score"]), i["pv"][0].uci(), i["nodes"]] for i in lines]
    info = engine.analyse(board, NODES, root_moves=[chess.Move.from_uci("b5a4"),
                                                    chess.Move.from_uci("b5c6")])
    out["root_moves"] = [info["pv"][0].uci(), info["nodes"]]

    # a mate is reported as python-chess's Mate score
    mate = engine.analyse(chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"),
                          chess.engine.Limit(depth=6))
    out["mate"] = [mate["score"].white().mate(), mate["pv"][0].uci()]

    # Chess960: castling is the king taking its rook
    board960 = chess.Board.from_chess960_pos(0)
    board960.push_san("g3")
    board960.push_san("g6")
    result = engine.play(board960, NODES)
    out["chess960"] = [result.move.uci(), board960.is_legal(result.move)]

    # an analysis read as it goes
    with engine.analysis(chess.Board(), chess.engine.Limit(depth=8)) as analysis:
        depths = [i["depth"] for i in analysis if "score" in i and "pv" in i]
    out["analysis_depths"] = depths[-1]
print(json.dumps(out))
