#!/usr/bin/env python3
"""Write tests/data/pgn_corpus.pgn.xz: real games in the styles people paste, for the strict
PGN reader's tests (black_numba/board/pgn.py).

    python3 tools/make_pgn_corpus.py [--games 1000] [--nodes 1000] [--seed 1]
        [--stockfish /usr/games/stockfish] [--out tests/data/pgn_corpus.pgn.xz]

The games are Stockfish 15.1 (Debian's) playing itself at a few nodes a move after four
random plies, now and then its second choice; each is
written in one of these styles, in turn: a lichess export (clock comments, `1... e5` after
a comment), a chess.com export (`{[%clk 0:02:59.9]}`), movetext pasted without headers
(`1.e4 e5`), an annotated game (NAGs as `$2` and `?!`, the engine's second line as a
variation, a nested one, words in comments), a hand-typed game (`0-0`, a missing `x`, `e8Q`,
no check signs), a Windows file (CRLF, 80 columns), and a game from a FEN with Black to
move (`1...`). Every game is valid PGN: python-chess reads each without an error.
"""
import argparse
import io
import lzma
import os
import random

import chess
import chess.engine
import chess.pgn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STYLES = ("lichess", "chesscom", "bare", "annotated", "typed", "windows", "fen")
MAX_PLIES = 160
OPENING_PLIES = 4          # random first plies
SECOND_CHOICE = 0.1        # how often a move is the engine's second line, for variety


def play(engine, board, nodes, rng):
    """[(move, second line or None, score drop)] of a game from `board` to its end."""
    out = []
    while not board.is_game_over(claim_draw=True) and len(out) < MAX_PLIES:
        infos = engine.analyse(board, chess.engine.Limit(nodes=nodes), multipv=2)
        lines = [i for i in infos if i.get("pv")]
        pick = 1 if len(lines) > 1 and rng.random() < SECOND_CHOICE else 0
        best = lines[0]["score"].relative.score(mate_score=10000)
        got = lines[pick]["score"].relative.score(mate_score=10000)
        other = lines[1 - pick]["pv"][:rng.randint(2, 6)] if len(lines) > 1 else None
        move = lines[pick]["pv"][0]
        out.append((move, other, best - got))
        board.push(move)
    return out


def clock_text(seconds, tenths):
    h, rest = divmod(max(seconds, 0), 3600)
    m, s = divmod(rest, 60)
    return f"{int(h)}:{int(m):02d}:{s:04.1f}" if tenths else f"{int(h)}:{int(m):02d}:{int(s):02d}"


def headers(game, style, k, rng, result):
    names = ["Carlsen", "Nakamura", "Hou", "Ding", "Firouzja", "Ju", "Caruana", "Muzychuk"]
    white, black = rng.sample(names, 2)
    h = game.headers
    if style == "lichess":
        h.update(Event="Rated Blitz game", Site=f"https://lichess.org/{k:08x}",
                 Date="2026.11.30", Round="-", White=white, Black=black, Result=result,
                 UTCDate="2026.11.30", UTCTime="12:00:00", WhiteElo=str(rng.randint(1500, 2800)),
                 BlackElo=str(rng.randint(1500, 2800)), TimeControl="180+2",
                 Termination="Normal")
    elif style == "chesscom":
        h.update(Event="Live Chess", Site="Chess.com", Date="2026.11.30", Round="?",
                 White=white, Black=black, Result=result, TimeControl="180",
                 Link=f"https://www.chess.com/game/live/{1000000 + k}")
    else:
        h.update(Event="Club championship", Site="Paris FRA", Date="2026.??.??",
                 Round=str(k % 9 + 1), White=white, Black=black, Result=result)


def typed(san, board, move, rng):
    """A move as people type it: 0-0, a dropped capture x or check sign, e8Q."""
    if san.startswith("O-O"):
        return san.replace("O", "0")
    if "=" in san and rng.random() < 0.5:
        san = san.replace("=", "")
    if san[-1] in "+#" and rng.random() < 0.5:
        san = san[:-1]
    piece = board.piece_at(move.from_square)
    if "x" in san and piece.piece_type != chess.PAWN and rng.random() < 0.3:
        san = san.replace("x", "")
    return san


def render(start, plies, result, style, k, rng):
    """The game's text in `style`."""
    board = start.copy()
    if style in ("lichess", "chesscom", "annotated", "windows", "fen"):
        game = chess.pgn.Game()
        if start.fen() != chess.STARTING_FEN:
            game.setup(start)
        headers(game, style, k, rng, result)
        node = game
        clocks = [180.0, 180.0]
        for i, (move, other, drop) in enumerate(plies):
            side = 0 if node.board().turn == chess.WHITE else 1
            node = node.add_variation(move)
            if style in ("lichess", "chesscom"):
                clocks[side] -= rng.uniform(0.5, 8.0) - (2 if style == "lichess" else 0)
                node.comment = f"[%clk {clock_text(clocks[side], style == 'chesscom')}]"
            if style == "annotated":
                if drop >= 200:
                    node.nags.add(chess.pgn.NAG_BLUNDER)
                elif drop >= 90:
                    node.nags.add(chess.pgn.NAG_MISTAKE)
                elif drop >= 40:
                    node.nags.add(rng.choice([chess.pgn.NAG_DUBIOUS_MOVE,
                                              chess.pgn.NAG_SPECULATIVE_MOVE]))
                if other and rng.random() < 0.25:
                    var = node.parent.add_variation(other[0])
                    for m in other[1:]:
                        var = var.add_variation(m)
                    if rng.random() < 0.3:
                        var.comment = rng.choice(["with the idea Nd5", "unclear",
                                                  "better was this", "Kasparov's line"])
                if rng.random() < 0.05:
                    node.comment = rng.choice(["A critical moment.", "Black is better here",
                                               "the only move", "White should be careful"])
        game.headers["Result"] = result
        exporter = chess.pgn.StringExporter(headers=True, variations=True, comments=True,
                                            columns=80)
        text = game.accept(exporter)
        if style == "chesscom":
            text = text.replace("{ [%clk", "{[%clk").replace("] }", "]}")
        if style == "windows":
            text = text.replace("\n", "\r\n")
        return text
    # movetext by hand: bare (compact, no headers) or typed (0-0, dropped x and signs)
    words = []
    if board.turn == chess.BLACK:
        words.append(f"{board.fullmove_number}...")
    for move, _, _ in plies:
        san = board.san(move)
        if style == "typed":
            san = typed(san, board, move, rng)
        if board.turn == chess.WHITE:
            words.append(f"{board.fullmove_number}.{san}" if style == "bare" else
                         f"{board.fullmove_number}. {san}")
        else:
            words.append(san)
        board.push(move)
    words.append(result)
    text = " ".join(words)
    if style == "typed":
        game = chess.pgn.Game()
        headers(game, style, k, rng, result)
        head = "".join(f'[{t} "{v}"]\n' for t, v in game.headers.items())
        text = head + "\n" + text
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "pgn_corpus.pgn.xz"))
    args = ap.parse_args()
    rng = random.Random(args.seed)
    texts = []
    with chess.engine.SimpleEngine.popen_uci(args.stockfish) as engine:
        engine.configure({"Threads": 1, "Hash": 16})
        for k in range(args.games):
            style = STYLES[k % len(STYLES)]
            # the game from the start: its first plies random (a different game each time);
            # the fen style's game begins after them, with Black to move
            board = chess.Board()
            opening = []
            for _ in range(OPENING_PLIES + (style == "fen")):
                move = rng.choice(sorted(board.legal_moves, key=lambda m: m.uci()))
                opening.append((move, None, 0))
                board.push(move)
            start = board.copy() if style == "fen" else chess.Board()
            plies = ([] if style == "fen" else opening) + play(engine, board, args.nodes, rng)
            result = board.result(claim_draw=True)
            texts.append(render(start, plies, result, style, k, rng))
            if (k + 1) % 100 == 0:
                print(f"{k + 1} games", flush=True)
    text = "\n\n".join(t.rstrip() for t in texts) + "\n"
    handle = io.StringIO(text)
    for k in range(args.games):
        game = chess.pgn.read_game(handle)
        assert game is not None and not game.errors, (k, game and game.errors)
    with lzma.open(args.out, "wt", encoding="utf-8", preset=9) as f:
        f.write(text)
    print(f"{args.out}: {args.games} games, {len(text)} characters")


if __name__ == "__main__":
    main()
