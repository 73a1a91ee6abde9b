"""A tab's game annotated by the project's `annotate` (lichess's judgements: ?!, ?, ??, the
better line, evaluations) on the board's own engine, and what the page shows of it: a mark
and an evaluation a move (the evaluation graph), the better line, each side's average
centipawn loss; and the PGN to download, annotated when the annotation is of its moves."""
import io
import re

import chess
import chess.engine
import chess.pgn

from black_numba.frontends.annotation import CP_CEILING, NAGS, annotate, winning_chances
from black_numba.frontends.api import Engine

MARKS = {chess.pgn.NAG_DUBIOUS_MOVE: "?!", chess.pgn.NAG_MISTAKE: "?",
         chess.pgn.NAG_BLUNDER: "??"}
BEST_MOVE = re.compile(r"(\S+) was best\.")
assert set(MARKS) == set(NAGS.values())


class Cancelled(Exception):
    """The tab started another game while its annotation ran."""


def run(host, root, moves, headers, nodes, progress, cancel):
    """The annotation of the game (root, moves) at nodes a position on host's engine (taken
    a position at a time through its Gate), progress(positions done) after each position;
    Cancelled once cancel is set."""
    board = root.copy()
    for m in moves:
        board.push(m)
    game = chess.pgn.Game.from_board(board)

    def step(done):
        if cancel.is_set():
            raise Cancelled()
        progress(done)

    engine = Engine.attach(host.core, host.gate())
    out = annotate(game, chess.engine.Limit(nodes=nodes), engine, progress=step)
    return summary(out, [m.uci() for m in moves])


def _eval(node, board):
    """(White's score as {"cp": n} or {"mate": n}, winning chances) after a node's move."""
    score = node.eval()
    if score is None:
        if board.is_checkmate():
            return {"mate": 0}, (-1.0 if board.turn == chess.WHITE else 1.0)
        return {"cp": 0}, 0.0
    white = score.white()
    if white.is_mate():
        n = white.mate()
        win = (1.0 if n > 0 else -1.0) if n else (-1.0 if board.turn == chess.WHITE else 1.0)
        return {"mate": n}, win
    cp = max(-CP_CEILING, min(CP_CEILING, white.score()))
    return {"cp": white.score()}, round(winning_chances(cp), 4)


def summary(out, ucis):
    """What the page shows of an annotated game (out: annotate's Game)."""
    plies, node, board = [], out, out.board()
    while node.variations:
        child = node.variations[0]
        better = []
        if len(node.variations) > 1:                 # the better line after ? and ??
            b, first = board.copy(), node.variations[1]
            for m in [first.move] + list(first.mainline_moves()):
                better.append(b.san(m))
                b.push(m)
        board.push(child.move)
        score, win = _eval(child, board)
        mark = next((MARKS[n] for n in child.nags if n in MARKS), None)
        found = BEST_MOVE.search(child.comment or "")
        plies.append({"mark": mark, "eval": score, "win": win,
                      "best": found.group(1) if found and mark else None, "line": better})
        node = child
    h = out.headers
    return {"moves": ucis, "plies": plies, "pgn": str(out),
            "acpl": {"white": h.get("WhiteACPL"), "black": h.get("BlackACPL")},
            "annotator": h.get("Annotator")}


def for_moves(annotation, moves):
    """The annotation's marks for the moves the game still shares with it (state's moves),
    None when it shares none."""
    if not annotation or not moves:
        return None
    shared = 0
    for a, m in zip(annotation["moves"], moves):
        if a != m["uci"]:
            break
        shared += 1
    if not shared:
        return None
    complete = shared == len(annotation["moves"]) == len(moves)
    return {"plies": annotation["plies"][:shared], "complete": complete,
            "acpl": annotation["acpl"] if complete else {"white": None, "black": None}}


def pgn_text(game, annotation):
    """The game's PGN with its headers; with the annotation's evaluations, marks and better
    lines when the annotation is of exactly its moves."""
    plain = game.pgn_game()
    ucis = [m.uci() for m in game.moves]
    if annotation and annotation["moves"] == ucis:
        annotated = chess.pgn.read_game(io.StringIO(annotation["pgn"]))
        keep = {k: annotated.headers[k] for k in ("Annotator", "WhiteACPL", "BlackACPL")
                if k in annotated.headers}
        annotated.headers.clear()
        annotated.headers.update(plain.headers)
        annotated.headers.update(keep)
        end = annotated.end()
        if plain.end().comment and plain.end() is not plain:
            end.comment = (end.comment + " " if end.comment else "") + plain.end().comment
        plain = annotated
    exporter = chess.pgn.StringExporter(headers=True, variations=True, comments=True)
    return plain.accept(exporter) + "\n"
