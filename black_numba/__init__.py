"""black_numba: a UCI chess engine compiled with Numba.

Importing the package has one side effect, on purpose: it points ``NUMBA_CACHE_DIR`` at a
cache folder keyed by a hash of this checkout's sources (and removes stale sibling folders),
see ``cache.py``. It must happen before Numba is imported, and every entry point (the CLI,
the UCI loop, the tests, a script that imports ``black_numba.search.search``) imports the package
first, so it is done here rather than in each of them.
"""
from black_numba.cache import configure as _configure_cache

__version__ = "0.1.0"
_configure_cache()


def __getattr__(name):
    """`black_numba.Engine`, the in-process interface (api.py), `black_numba.annotate`,
    a game's moves scored (annotation.py), `black_numba.style_report`, a player's style
    from its games (arena/style.py), and `black_numba.read_game` (with `read_games` and
    `PgnError`), the strict PGN reader (board/pgn.py), imported on first use so that the UCI loop still
    answers `uci` before loading python-chess or compiled code."""
    if name == "Engine":
        from black_numba.frontends.api import Engine
        return Engine
    if name == "annotate":
        from black_numba.frontends.annotation import annotate
        return annotate
    if name in ("read_game", "read_games", "PgnError"):
        from black_numba.board import pgn
        return getattr(pgn, name)
    if name == "style_report":
        from black_numba.arena.style import style_report
        return style_report
    raise AttributeError(f"module 'black_numba' has no attribute {name!r}")
