"""Two chess clocks kept on the server (Fischer increment), read from the monotonic clock so
that a page reload shows the same times and a flag falls with no page open."""
import time

import chess


class Clock:
    """base_ms each, inc_ms added to a side's time after each of its moves. Not running until
    `start`; `press` ends the mover's turn and starts the other side's."""

    def __init__(self, base_ms, inc_ms, now=time.monotonic):
        self.base_ms, self.inc_ms = int(base_ms), int(inc_ms)
        self._now = now
        self._left = {chess.WHITE: float(self.base_ms), chess.BLACK: float(self.base_ms)}
        self.running = None          # the colour whose time runs, None when stopped
        self._since = 0.0

    def remaining(self, color):
        """Milliseconds left to color now (negative once its flag has fallen)."""
        left = self._left[color]
        if self.running == color:
            left -= (self._now() - self._since) * 1000.0
        return left

    def start(self, color):
        """Run color's time (stopping the other's)."""
        self.stop()
        self.running, self._since = color, self._now()

    def stop(self):
        if self.running is not None:
            self._left[self.running] = self.remaining(self.running)
            self.running = None

    def press(self, mover):
        """mover has moved: its increment is added and the other side's time runs."""
        self.stop()
        self._left[mover] += self.inc_ms
        self.start(not mover)

    def flagged(self):
        """The colour whose time has run out, or None."""
        for color in (chess.WHITE, chess.BLACK):
            if self.remaining(color) <= 0:
                return color
        return None

    def snapshot(self):
        """The clock as the page shows it: whole milliseconds left (at least 0) and the side
        whose time runs."""
        return {"white": max(0, int(self.remaining(chess.WHITE))),
                "black": max(0, int(self.remaining(chess.BLACK))),
                "running": None if self.running is None else
                ("white" if self.running == chess.WHITE else "black"),
                "base_ms": self.base_ms, "inc_ms": self.inc_ms}

    def control(self):
        """The time control as PGN's TimeControl tag writes it: seconds+increment."""
        return f"{self.base_ms / 1000:g}+{self.inc_ms / 1000:g}"
