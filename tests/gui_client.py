"""The tests' client of the browser board's server: bench/board_client.py (the GUI timing and
screenshot scripts use the same one), put on the module path here."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from board_client import (CHROMIUM_ARGS, ELO_MIN, ELO_STEP, EventLog,  # noqa: E402,F401
                          GuiServer, running_server)
