"""The engine core every front end drives (UCI, the Python API, the browser board): one
engine's state and typed calls (engine.py), its options (options.py) and the opening book
(book.py)."""
