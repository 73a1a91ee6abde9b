"""`python -m black_numba`: the command line (UCI with no arguments)."""
import sys

from black_numba.frontends.cli import main

sys.exit(main())
