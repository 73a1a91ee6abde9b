"""Root probes that can answer before any search: a Polyglot opening book and Syzygy
endgame tables, both read through python-chess (plain Python, imported on first use)."""
import os


def book_move(path, fen):
    """A weighted random book move (UCI text) for the position, or None when the book has
    none. OSError when the file cannot be read."""
    import chess
    import chess.polyglot
    try:
        with chess.polyglot.open_reader(path) as reader:
            entry = reader.weighted_choice(chess.Board(fen))
    except IndexError:
        return None
    return entry.move.uci()


def open_tablebase(path):
    """(tablebase, number of files) for ':'-separated Syzygy folders; ValueError naming the
    folders that do not exist."""
    import chess.syzygy
    dirs = [d for d in path.split(os.pathsep) if d]
    missing = [d for d in dirs if not os.path.isdir(d)]
    if missing:
        raise ValueError(f"SyzygyPath folder not found: {', '.join(missing)}")
    tb = chess.syzygy.Tablebase()
    n = sum(tb.add_directory(d) for d in dirs)
    return tb, n


def tablebase_move(tablebase, fen, searchmoves=(), max_pieces=7):
    """(UCI move, WDL) of the root move that keeps the best WDL, winning with the shortest
    DTZ and losing with the longest; None when no table covers the position."""
    import chess
    import chess.syzygy
    board = chess.Board(fen)
    if chess.popcount(board.occupied) > max_pieces or board.castling_rights:
        return None
    best = None
    try:
        for move in board.legal_moves:
            if searchmoves and move.uci() not in searchmoves:
                continue
            board.push(move)
            wdl = -tablebase.probe_wdl(board)
            dtz = -tablebase.probe_dtz(board)
            board.pop()
            zeroing = board.is_zeroing(move)
            key = (wdl, -abs(dtz) if wdl > 0 else abs(dtz), zeroing if wdl > 0 else 0)
            if best is None or key > best[0]:
                best = (key, move, wdl)
    except (KeyError, chess.syzygy.MissingTableError):
        return None
    if best is None:
        return None
    return best[1].uci(), best[2]
