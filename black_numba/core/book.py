"""The Polyglot opening book at the root, read through python-chess (plain Python, imported
on first use). Syzygy tables are probed by the search itself (syzygy.py, tbprobe.py)."""


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
