"""Training data for the network: text lines ``<FEN> | <score> | <result>`` (centipawns and
result from White's point of view, the format NNUE trainers read), plain or xz-compressed, the
compact game and position files (gamefile.py) and the data chunks of ``data/`` (chunks.py).

``load(paths)`` parses them with a compiled reader into arrays: for each position its pieces as
``piece * 64 + square`` (up to 32, -1 padded), the side to move, the score and the result.
Parsed files are kept as raw arrays beside Numba's cache (keyed by path, size and mtime; parsed
a block at a time), so a second training run starts at once and the trainer can read ranges.
"""
import hashlib
import json
import lzma
import os
import shutil
import sys

import numpy as np
from numba import njit

from black_numba.cache import base_dir
from black_numba.board.move import piece_square

MAX_PIECES = 32
_PIECE_CODE = np.full(128, -1, dtype=np.int64)
for _i, _ch in enumerate("PNBRQKpnbrqk"):
    _PIECE_CODE[ord(_ch)] = _i


@njit(cache=True)
def _parse(buf, code, pieces, stm, score, result):
    """Parse every line of buf (uint8); returns (positions read, lines rejected)."""
    n = 0
    bad = 0
    i = 0
    size = buf.shape[0]
    while i < size:
        j = i
        while j < size and buf[j] != 10:
            j += 1
        # -- board field
        k = i
        rank = 7
        file = 0
        cnt = 0
        ok = True
        while k < j and buf[k] != 32:
            ch = buf[k]
            if ch == 47:
                rank -= 1
                file = 0
            elif 49 <= ch <= 56:
                file += ch - 48
            else:
                pc = code[ch] if ch < 128 else -1
                if pc < 0 or cnt >= MAX_PIECES or rank < 0 or file > 7:
                    ok = False
                    break
                pieces[n, cnt] = piece_square(pc, rank * 8 + file)
                cnt += 1
                file += 1
            k += 1
        if ok and k + 1 < j and (buf[k + 1] == 119 or buf[k + 1] == 98) and rank == 0:
            side = 0 if buf[k + 1] == 119 else 1
            # -- score after the first '|', result after the second
            while k < j and buf[k] != 124:
                k += 1
            k += 1
            while k < j and buf[k] == 32:
                k += 1
            neg = False
            if k < j and buf[k] == 45:
                neg = True
                k += 1
            val = 0
            digits = 0
            while k < j and 48 <= buf[k] <= 57:
                val = val * 10 + buf[k] - 48
                digits += 1
                k += 1
            while k < j and buf[k] != 124:
                k += 1
            k += 1
            while k < j and buf[k] == 32:
                k += 1
            res = -1.0
            if k < j and buf[k] == 49:
                res = 1.0
            elif k < j and buf[k] == 48:
                res = 0.0
                if k + 2 < j and buf[k + 1] == 46 and buf[k + 2] == 53:
                    res = 0.5
            if digits > 0 and res >= 0.0:
                for r in range(cnt, MAX_PIECES):
                    pieces[n, r] = -1
                stm[n] = side
                score[n] = -val if neg else val
                result[n] = res
                n += 1
            else:
                bad += 1
        elif j > i:
            bad += 1
        i = j + 1
    return n, bad


def parse_bytes(data):
    """Arrays (pieces int16 [n, 32], stm int8, score int32, result float32) of a text."""
    buf = np.frombuffer(data, dtype=np.uint8)
    lines = int(np.count_nonzero(buf == 10)) + 1
    pieces = np.empty((lines, MAX_PIECES), dtype=np.int16)
    stm = np.empty(lines, dtype=np.int8)
    score = np.empty(lines, dtype=np.int32)
    result = np.empty(lines, dtype=np.float32)
    n, bad = _parse(buf, _PIECE_CODE, pieces, stm, score, result)
    return pieces[:n].copy(), stm[:n].copy(), score[:n].copy(), result[:n].copy(), bad


BLOCK_BYTES = 64 << 20          # text parsed a block at a time, so memory stays bounded
FIELDS = (("pieces", np.int16, MAX_PIECES), ("stm", np.int8, 1), ("score", np.int32, 1),
          ("result", np.float32, 1))


def _compact_rows(path):
    """(FEN, score, result) rows of a compact file (gamefile.py: .bng games, .bnp records)."""
    from black_numba.training import gamefile
    if path.endswith(".bng"):
        return (row for game in gamefile.read_games(path)
                for row in gamefile.game_positions(*game))
    return gamefile.read_positions(path)


def _text_blocks(path, block=BLOCK_BYTES):
    """The file's positions as text lines, in blocks of about `block` bytes, each ending at a
    line end; compact files are converted."""
    if path.endswith((".bng", ".bnp")):
        buf, size = [], 0
        for f, s, r in _compact_rows(path):
            line = f"{f} | {s} | {r:.1f}\n"
            buf.append(line)
            size += len(line)
            if size >= block:
                yield "".join(buf).encode()
                buf, size = [], 0
        if buf:
            yield "".join(buf).encode()
        return
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rb") as f:
        while True:
            data = f.read(block)
            if not data:
                return
            yield data + f.readline()


def _array_blocks(path):
    """The file's positions as blocks of arrays (pieces, stm, score, result, lines
    rejected): a data chunk (chunks.py) is replayed whole, text is parsed a block at a time."""
    from black_numba.training import chunks
    if path.endswith(chunks.SUFFIX):
        yield chunks.Chunk(path).positions() + (0,)
        return
    for block in _text_blocks(path):
        yield parse_bytes(block)


def _cache_dir(path):
    st = os.stat(path)
    tag = f"{os.path.abspath(path)}|{st.st_size}|{st.st_mtime_ns}"
    name = hashlib.sha256(tag.encode()).hexdigest()[:20]
    return os.path.join(base_dir(), "black_numba-data", name)


class Stored:
    """A data file parsed once into raw arrays on disk (one file per field beside Numba's
    cache, keyed by path, size and mtime), read by ranges, so that the trainer holds only what
    it asks for."""

    def __init__(self, path, log=sys.stderr):
        self.path = path
        self.dir = _cache_dir(path)
        meta = os.path.join(self.dir, "meta.json")
        if not os.path.exists(meta):
            self._build(log)
        with open(meta) as f:
            self.n = int(json.load(f)["n"])

    def _build(self, log):
        tmp = f"{self.dir}.{os.getpid()}.tmp"
        os.makedirs(tmp, exist_ok=True)
        outs = {name: open(os.path.join(tmp, name), "wb") for name, _, _ in FIELDS}
        n = bad = 0
        try:
            for arrays in _array_blocks(self.path):
                for (name, _, _), a in zip(FIELDS, arrays[:4]):
                    outs[name].write(a.tobytes())
                n += len(arrays[1])
                bad += arrays[4]
        finally:
            for f in outs.values():
                f.close()
        with open(os.path.join(tmp, "meta.json"), "w") as f:
            json.dump({"n": n, "path": os.path.abspath(self.path)}, f)
        if bad:
            print(f"{self.path}: {bad} malformed lines skipped", file=log)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.replace(tmp, self.dir)

    def read(self, start, stop):
        """Arrays (pieces, stm, score, result) of positions start..stop-1."""
        out = []
        for name, dtype, width in FIELDS:
            size = np.dtype(dtype).itemsize * width
            a = np.fromfile(os.path.join(self.dir, name), dtype=dtype,
                            count=(stop - start) * width, offset=start * size)
            out.append(a.reshape(-1, width) if width > 1 else a)
        return tuple(out)

    def take(self, index):
        """Arrays of the positions at sorted indices (through a memory map, dropped after)."""
        out = []
        for name, dtype, width in FIELDS:
            m = np.memmap(os.path.join(self.dir, name), dtype=dtype, mode="r",
                          shape=(self.n, width) if width > 1 else (self.n,))
            out.append(np.array(m[index]))
            del m
        return tuple(out)


def load_file(path, log=sys.stderr, use_cache=True):
    """Arrays (pieces, stm, score, result) of a whole file, in memory."""
    if use_cache:
        st = Stored(path, log)
        return st.read(0, st.n)
    parts = list(_array_blocks(path))
    pieces, stm, score, result = (np.concatenate([p[k] for p in parts]) for k in range(4))
    bad = sum(p[4] for p in parts)
    if bad:
        print(f"{path}: {bad} malformed lines skipped", file=log)
    return pieces, stm, score, result


def load(paths, log=sys.stderr, use_cache=True):
    """Concatenated arrays of several files (see parse_bytes)."""
    parts = [load_file(p, log, use_cache) for p in paths]
    if not parts:
        raise ValueError("no training files given")
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(4))
