"""Random and walked endgame positions of a material signature, for checks and benchmarks:
python-chess boards with a table's material (random_board), boards reached from one by quiet
moves that keep a tablebase value (walk_boards), and a board's images under the symmetries
that keep its value (symmetric_boards)."""
import chess


def random_board(name, rng, en_passant=False, tries=10000):
    """A random legal chess.Board with a table's material (for checks against python-chess):
    random squares, a random side to move; with en_passant (both colours having pawns), the
    side that just moved has pushed a pawn two squares beside an enemy pawn and the board
    keeps the en-passant square. None if no legal placement was found."""
    w, b = name.split("v")
    for _ in range(tries):
        board = chess.Board(None)
        board.turn = rng.random() < 0.5
        pieces = [(c, chess.WHITE) for c in w] + [(c, chess.BLACK) for c in b]
        free = set(range(64))
        ep_square = None
        if en_passant and "P" in w and "P" in b:
            mover = not board.turn                 # the side that just pushed two squares
            f = rng.randrange(8)
            rank = 3 if mover == chess.WHITE else 4
            sq = chess.square(f, rank)
            nf = f + rng.choice((-1, 1))
            if not 0 <= nf < 8:
                nf = f - (nf - f)
            cap = chess.square(nf, rank)
            board.set_piece_at(sq, chess.Piece(chess.PAWN, mover))
            board.set_piece_at(cap, chess.Piece(chess.PAWN, not mover))
            pieces.remove(("P", mover))
            pieces.remove(("P", not mover))
            ep_square = sq - 8 if mover == chess.WHITE else sq + 8
            behind = sq - 16 if mover == chess.WHITE else sq + 16
            free -= {sq, cap, ep_square, behind}
        squares = rng.sample(sorted(free), len(pieces))
        ok = True
        for (c, colour), sq in zip(pieces, squares):
            if c == "P" and chess.square_rank(sq) in (0, 7):
                ok = False
                break
            board.set_piece_at(sq, chess.Piece(chess.PIECE_SYMBOLS.index(c.lower()), colour))
        if not ok:
            continue
        board.ep_square = ep_square
        if board.is_valid():
            return board
    return None


def walk_boards(probe, board, rng, count, keep=lambda v: v in (-1, 1), max_steps=None):
    """Boards reached from board by random quiet moves (no captures) whose probe(board) value
    satisfies keep: e.g. from one cursed win, other cursed wins and blessed losses (far too
    rare for random placements to find: KRBvKR has 2,180 cursed wins with White to move).
    Distinct positions, at most count, in at most max_steps moves."""
    out = []
    seen = set()
    cur = board.copy(stack=False)
    max_steps = max_steps or 50 * count
    for _ in range(max_steps):
        if len(out) >= count:
            break
        moves = [m for m in cur.legal_moves if not cur.is_capture(m)]
        rng.shuffle(moves)
        moved = False
        for m in moves:
            nxt = cur.copy(stack=False)
            nxt.push(m)
            if keep(probe(nxt)):
                cur = nxt.copy(stack=False)
                moved = True
                key = (cur.board_fen(), cur.turn)
                if key not in seen:
                    seen.add(key)
                    out.append(cur.copy(stack=False))
                break
        if not moved:
            cur = (rng.choice(out) if out else board).copy(stack=False)
    return out


def symmetric_boards(board):
    """The board and its images under the symmetries that keep its tablebase value: colours
    swapped with the board flipped, and (without pawns) the files mirrored."""
    out = [board, board.mirror()]
    if not board.pawns:
        out += [b.transform(chess.flip_horizontal) for b in out]
    return out
