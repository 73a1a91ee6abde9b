"""What one search may spend: the `go` command's limits, typed (Stockfish's LimitsType,
python-chess's Limit). Plain Python, so the UCI layer can parse `go` before any compiled code
is loaded."""
from dataclasses import dataclass, fields, replace
from typing import Optional

MAX_VALUE = 10 ** 12        # larger numbers in `go` are read as this
MAX_DEPTH = 100             # `go depth` beyond this is read as this
TIMES = ("movetime", "wtime", "btime", "winc", "binc")    # milliseconds, fractions allowed


@dataclass
class Limits:
    """The limits of one search; None means no such limit. Times are in milliseconds.

    depth: plies of iterative deepening; nodes: nodes of all threads together; mate: stop at
    a mate in this many moves; movetime: time for this move; wtime, btime, winc, binc,
    movestogo: the clock; infinite: search until `stop`; perft: count leaf nodes instead
    (`go perft N`)."""
    depth: Optional[int] = None
    nodes: Optional[int] = None
    mate: Optional[int] = None
    movetime: Optional[int] = None
    wtime: Optional[int] = None
    btime: Optional[int] = None
    winc: Optional[int] = None
    binc: Optional[int] = None
    movestogo: Optional[int] = None
    infinite: bool = False
    perft: Optional[int] = None

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "infinite" or v is None:
                continue
            kinds = (int, float) if f.name in TIMES else (int,)
            if isinstance(v, bool) or not isinstance(v, kinds):
                what = "a number" if f.name in TIMES else "a whole number"
                raise TypeError(f"limit {f.name} must be {what}, got {v!r}")
            if v < 0 and f.name not in ("wtime", "btime"):
                raise ValueError(f"limit {f.name} must not be negative, got {v}")

    def clock(self, white):
        """(time left, increment) of the side to move; None where the clock is not given."""
        return (self.wtime, self.winc) if white else (self.btime, self.binc)

    def capped(self):
        """These limits with depth within 1..MAX_DEPTH and `nodes 0` read as 1 node."""
        depth = self.depth if self.depth is None else max(1, min(self.depth, MAX_DEPTH))
        nodes = 1 if self.nodes == 0 else self.nodes
        return replace(self, depth=depth, nodes=nodes)

    def bounded(self):
        """Is the search bounded by something other than the clock (depth, nodes, mate,
        infinite)? A single legal reply is then searched, not answered at once."""
        return bool(self.depth or self.nodes or self.mate or self.infinite)


INT_LIMITS = tuple(f.name for f in fields(Limits) if f.name != "infinite")
