"""UCI options, each declared once: type, default, range, what it means, how a value is read,
and the engine action its change runs (Stockfish's option table, python-chess's Option).
Plain Python: the UCI layer announces them before any compiled code is loaded."""
from dataclasses import dataclass
from typing import Any, Optional, Tuple

KINDS = ("spin", "check", "string", "button", "combo")
EMPTY = "<empty>"            # how UCI writes an empty string default


@dataclass(frozen=True)
class Option:
    """One UCI option. `on_change` names the engine method called with the new value (it may
    raise ValueError to refuse it: the option then keeps its value), preceded by `arg` when
    one is given (one method serving a family of options, such as SPSA's `Tune NAME`).
    A combo's choices are `var` (its default among them)."""
    name: str
    kind: str
    default: Any = None
    min: Optional[int] = None
    max: Optional[int] = None
    doc: str = ""
    on_change: Optional[str] = None
    arg: Optional[str] = None
    var: Tuple[str, ...] = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"option {self.name}: unknown type {self.kind!r}")
        if self.kind == "spin" and not self.min <= self.default <= self.max:
            raise ValueError(f"option {self.name}: default outside {self.min}..{self.max}")
        if self.kind == "combo" and self.default not in self.var:
            raise ValueError(f"option {self.name}: default {self.default!r} not among its "
                             f"choices")

    def parse(self, text):
        """The value of `setoption ... value TEXT` (None: no value given), or ValueError.
        Spins are whole numbers within min..max (out of range is refused, not clamped);
        checks are true or false in any case; combos are one of their choices in any case
        (the choice as declared is returned); strings are taken as written, `<empty>` or
        nothing meaning empty; buttons take no value."""
        if self.kind == "button":
            return None
        if text is None:
            raise ValueError(f"option {self.name} needs a value")
        if self.kind == "spin":
            try:
                v = int(text)
            except ValueError:
                raise ValueError(f"option {self.name} needs an integer, got {text!r}") from None
            if not self.min <= v <= self.max:
                raise ValueError(f"option {self.name} must be between {self.min} and "
                                 f"{self.max}, got {v}")
            return v
        if self.kind == "check":
            if text.lower() not in ("true", "false"):
                raise ValueError(f"option {self.name} needs true or false, got {text!r}")
            return text.lower() == "true"
        if self.kind == "combo":
            for choice in self.var:
                if choice.lower() == text.lower():
                    return choice
            raise ValueError(f"option {self.name} must be one of {', '.join(self.var)}, "
                             f"got {text!r}")
        return "" if text in (EMPTY, "") else text

    def declaration(self):
        """The `option name ...` line of the `uci` answer."""
        head = f"option name {self.name} type {self.kind}"
        if self.kind == "spin":
            return f"{head} default {self.default} min {self.min} max {self.max}"
        if self.kind == "check":
            return f"{head} default {str(self.default).lower()}"
        if self.kind == "string":
            return f"{head} default {self.default or EMPTY}"
        if self.kind == "combo":
            return f"{head} default {self.default}" + "".join(f" var {v}" for v in self.var)
        return head
