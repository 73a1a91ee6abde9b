"""A reference UCI engine (e.g. Stockfish) over a plain pipe, for labelling positions and as
datagen's opponent.

python-chess's engine client parses every `info` line in an event-loop thread: in datagen that
cost about 1 ms of CPU a label beside Stockfish's 4 ms at 5,000 nodes (profiled, docs/datagen.md).
This client sends the same commands python-chess's `analyse` sends (`UCI_AnalyseMode` on,
`ucinewgame` + `isready` at a new game, `position fen`, `go nodes N`) and reads only the last
score, so the labels are the same, bit for bit.
"""
import subprocess


class EngineError(RuntimeError):
    """The reference engine died or answered something unreadable."""


class RefEngine:
    """One engine process; `score(fen, nodes, game)` is its score in centipawns for the side
    to move, or None for a mate score; `bestmove` its move, for an opponent in datagen."""

    def __init__(self, path, options=None, analyse=True):
        try:
            self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except OSError as e:
            raise EngineError(f"cannot start {path}: {e}") from None
        self.path = path
        self.game = None
        self.name = path
        names = set()
        self._send("uci")
        for line in self._until("uciok"):
            if line.startswith("id name "):
                self.name = line[8:].strip()
            elif line.startswith("option name "):
                names.add(line[12:].split(" type ")[0])
        if analyse and "UCI_AnalyseMode" in names:
            self._send("setoption name UCI_AnalyseMode value true")
        for name, value in (options or {}).items():
            if name in names:
                self._send(f"setoption name {name} value {value}")

    def _send(self, text):
        try:
            self.p.stdin.write(text + "\n")
            self.p.stdin.flush()
        except (BrokenPipeError, OSError):
            raise EngineError(f"{self.path} is gone (sending {text!r})") from None

    def _until(self, word):
        """Lines up to the one starting with word (that line last)."""
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise EngineError(f"{self.path} closed its output while we waited for {word}")
            yield line
            if line.startswith(word):
                return

    def _new_game(self, game):
        if game != self.game:
            self.game = game
            self._send("ucinewgame")
            self._send("isready")
            for _ in self._until("readyok"):
                pass

    def bestmove(self, start, moves, nodes, game):
        """The engine's move (UCI text) at nodes in the game from FEN start after moves (UCI
        texts): the whole game is sent, so that it sees repetitions."""
        self._new_game(game)
        self._send(f"position fen {start}" + (" moves " + " ".join(moves) if moves else ""))
        self._send(f"go nodes {nodes}")
        for line in self._until("bestmove"):
            pass
        words = line.split()
        if len(words) < 2 or words[1] in ("(none)", "0000"):
            raise EngineError(f"{self.path} gave no move in {start} after {len(moves)} plies")
        return words[1]

    def score(self, fen, nodes, game):
        self._new_game(game)
        self._send("position fen " + fen)
        self._send(f"go nodes {nodes}")
        last = None
        for line in self._until("bestmove"):
            if " score " in line:
                last = line
        if last is None:
            raise EngineError(f"{self.path} gave no score for {fen}")
        kind, value = last.split(" score ", 1)[1].split()[:2]
        return int(value) if kind == "cp" else None

    def close(self):
        try:
            self._send("quit")
            self.p.wait(timeout=5)
        except (EngineError, subprocess.TimeoutExpired):
            self.p.kill()
