"""black_numba: a UCI chess engine compiled with Numba."""
from black_numba.cache import configure as _configure_cache

__version__ = "0.1.0"
_configure_cache()
