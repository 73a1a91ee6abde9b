"""Seeded fuzzing helpers shared by the tests/test_fuzz_*.py harnesses.

Every harness draws its cases from ``rng(name)``: one seed for the whole run
(``$FUZZ_SEED``, printed in pytest's header and in every failure), so a failure replays with
``FUZZ_SEED=<seed> pytest tests/test_fuzz_X.py``. ``$FUZZ_SCALE`` multiplies every case
count: CI runs the default (1), a long run sets it higher (docs/fuzzing.md).
"""
import os
import random
import zlib

SEED = int(os.environ.get("FUZZ_SEED", "20261127"))
SCALE = max(1, int(os.environ.get("FUZZ_SCALE", "1")))


def cases(n):
    """The number of cases a harness runs: n at the default scale."""
    return n * SCALE


def rng(name):
    """A generator for one harness, seeded by the run's seed and the harness's name."""
    return random.Random(SEED * 1_000_003 + zlib.crc32(name.encode()))


def where(name, i):
    """A failure's replay note."""
    return f"{name} case {i} (FUZZ_SEED={SEED}, FUZZ_SCALE={SCALE})"


def mutate(data, r):
    """A damaged copy of bytes: truncated, bytes flipped, inserted, deleted, zeroed, a range
    repeated, or emptied; (kind, new bytes)."""
    data = bytearray(data)
    kind = r.choice(("truncate", "flip", "insert", "delete", "zero", "repeat", "empty",
                     "flip"))
    n = len(data)
    if kind == "truncate" and n:
        del data[r.randrange(n):]
    elif kind == "flip" and n:
        for _ in range(r.randint(1, 8)):
            data[r.randrange(n)] ^= 1 << r.randrange(8)
    elif kind == "insert":
        at = r.randint(0, n)
        data[at:at] = bytes(r.randrange(256) for _ in range(r.randint(1, 16)))
    elif kind == "delete" and n:
        at = r.randrange(n)
        del data[at:at + r.randint(1, 16)]
    elif kind == "zero" and n:
        at, k = r.randrange(n), r.randint(1, 64)
        data[at:at + k] = bytes(len(data[at:at + k]))
    elif kind == "repeat" and n:
        at = r.randrange(n)
        data[at:at] = data[at:at + r.randint(1, 64)]
    else:
        kind = "empty"
        data = bytearray()
    return kind, bytes(data)
