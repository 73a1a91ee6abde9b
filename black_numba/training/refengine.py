"""A reference UCI engine (e.g. Stockfish) for labelling positions and as datagen's opponent,
on the project's UCI client (black_numba.uci_client).

python-chess's engine client parses every `info` line in an event-loop thread: in datagen that
cost about 1 ms of CPU a label beside Stockfish's 4 ms at 5,000 nodes. This client sends the
same commands python-chess's `analyse` sends (`UCI_AnalyseMode` on, `ucinewgame` + `isready`
at a new game, `position fen`, `go nodes N`) and reads only the last score, so the labels are
the same, bit for bit.
"""
from black_numba.uci_client import MATE_CP, EngineCrash, EngineHang, UciProcess

START_TIMEOUT_S = 600        # `uci` to `uciok`, `isready` to `readyok` (a cold compile: minutes)
SEARCH_TIMEOUT_S = 600       # one search: past it the engine hangs, unless starved or paused
MATE_PLIES_MAX = 1000        # a score within this of MATE_CP is a mate, not centipawns


class EngineError(RuntimeError):
    """The reference engine died, hung or answered something unreadable."""


class RefEngine:
    """One engine process; `score(fen, nodes, game)` is its score in centipawns for the side
    to move, or None for a mate score; `bestmove` its move, for an opponent in datagen."""

    def __init__(self, path, options=None, analyse=True):
        self.path = path
        self.game = None
        try:
            self.uci = UciProcess([path], name=path)
        except EngineCrash as e:
            raise EngineError(str(e)) from None               # "cannot start ...: why"
        self.uci.patient = True      # datagen runs at nice 19: a starved engine is not hung
        try:
            self.uci.handshake(START_TIMEOUT_S)
            if analyse and "UCI_AnalyseMode" in self.uci.options:
                self.uci.set_option("UCI_AnalyseMode", "true")
            for name, value in (options or {}).items():
                if name in self.uci.options:
                    self.uci.set_option(name, value)
        except (EngineCrash, EngineHang) as e:
            self.uci.kill()
            raise EngineError(f"{path} is gone before it was ready: {e}") from None
        self.name = self.uci.id_name or path

    def _search(self, position, limit, game):
        """(bestmove text, last score) of a search of `position` (a UCI position line) at
        `limit`: nodes, or a whole go line ("go depth 8")."""
        go = limit if isinstance(limit, str) else f"go nodes {limit}"
        try:
            if game != self.game:
                self.game = game
                self.uci.new_game(START_TIMEOUT_S)
            best, score, _, _ = self.uci.go(position, go, SEARCH_TIMEOUT_S)
        except (EngineCrash, EngineHang) as e:
            raise EngineError(f"{self.path}: {e}") from None
        return best, score

    def bestmove(self, start, moves, limit, game):
        """The engine's move (UCI text) at limit (nodes, or a go line) in the game from FEN
        start after moves (UCI texts): the whole game is sent, so that it sees repetitions."""
        best, _ = self._search(f"position fen {start}" + (" moves " + " ".join(moves)
                                                          if moves else ""), limit, game)
        if best in ("", "(none)", "0000"):
            raise EngineError(f"{self.path} gave no move in {start} after {len(moves)} plies")
        return best

    def score(self, fen, nodes, game):
        _, score = self._search("position fen " + fen, nodes, game)
        if score is None:
            raise EngineError(f"{self.path} gave no score for {fen}")
        return None if abs(score) >= MATE_CP - MATE_PLIES_MAX else score

    def searched_nodes(self, nodes):
        """The nodes the engine says it searched at `go nodes nodes` from the start position
        (UciProcess.searched_nodes); the next search starts a new game."""
        try:
            seen = self.uci.searched_nodes(nodes, SEARCH_TIMEOUT_S)
        except (EngineCrash, EngineHang) as e:
            raise EngineError(f"{self.path}: {e}") from None
        self.game = None
        return seen

    def close(self):
        self.uci.close()
