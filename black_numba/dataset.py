"""Training data for the network: text lines ``<FEN> | <score> | <result>`` (centipawns and
result from White's point of view, the format NNUE trainers read), plain or xz-compressed.

``load(paths)`` parses them with a compiled reader into arrays: for each position its pieces as
``piece * 64 + square`` (up to 32, -1 padded), the side to move, the score and the result.
Parsed files are kept as ``.npz`` beside Numba's cache (keyed by path, size and mtime), so a
second training run starts at once.
"""
import hashlib
import lzma
import os
import sys

import numpy as np
from numba import njit

from black_numba.cache import base_dir

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
                pieces[n, cnt] = pc * 64 + rank * 8 + file
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


def _read(path):
    """The file's positions as text lines; compact files (gamefile.py: .bng games, .bnp
    position records) are converted."""
    if path.endswith((".bng", ".bnp")):
        from black_numba import gamefile
        if path.endswith(".bng"):
            rows = (row for game in gamefile.read_games(path)
                    for row in gamefile.game_positions(*game))
        else:
            rows = gamefile.read_positions(path)
        return "".join(f"{f} | {s} | {r:.1f}\n" for f, s, r in rows).encode()
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rb") as f:
        return f.read()


def _cache_path(path):
    st = os.stat(path)
    tag = f"{os.path.abspath(path)}|{st.st_size}|{st.st_mtime_ns}"
    name = hashlib.sha256(tag.encode()).hexdigest()[:20]
    return os.path.join(base_dir(), "black_numba-data", name + ".npz")


def load_file(path, log=sys.stderr, use_cache=True):
    cached = _cache_path(path)
    if use_cache and os.path.exists(cached):
        z = np.load(cached)
        return z["pieces"], z["stm"], z["score"], z["result"]
    pieces, stm, score, result, bad = parse_bytes(_read(path))
    if bad:
        print(f"{path}: {bad} malformed lines skipped", file=log)
    if use_cache:
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        tmp = cached + f".{os.getpid()}.tmp.npz"
        np.savez(tmp, pieces=pieces, stm=stm, score=score, result=result)
        os.replace(tmp, cached)
    return pieces, stm, score, result


def load(paths, log=sys.stderr, use_cache=True):
    """Concatenated arrays of several files (see parse_bytes)."""
    parts = [load_file(p, log, use_cache) for p in paths]
    if not parts:
        raise ValueError("no training files given")
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(4))
