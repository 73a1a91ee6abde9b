"""Training-data chunks (``.bnc``): whole games at about 2 bytes a kept position, xz-compressed.

The project's own training data lives in the repository's ``data/`` folder as chunks listed in
``data/manifest.json`` (docs/data.md). A chunk is one xz stream holding, uncompressed:

    magic  b"BNC1"
    header 5 x u32: games, plies, kept positions, FEN bytes, score bytes
    fens   each game's start FEN (ASCII), newline-terminated
    plies  games x u16: the plies of each game
    result games x u8: 0 Black won, 1 draw, 2 White won
    ranks  plies x u8: each move played as its rank among the legal moves of its position
    keep   ceil(plies / 8) bytes: bit i (LSB first) set when ply i's position is kept
    scores the kept positions' scores, centipawns from White's view, each as the zigzag
           varint of its difference from the game's previous kept score (the first from 0)

Columns of like values compress well, and a move's rank among the legal moves (about 5 bits
of information) replaces its 16-bit code: storing the moves rather than the positions is what
makes a position cost 2 bytes instead of 36. The rank order is fixed by the format, not by the
engine's move generator: moves sorted by (from square, to square, promotion piece n < b < r
< q), squares a1 = 0 .. h8 = 63, castling written as the king's two-square move. Standard chess.

Decoding replays each game in compiled code and yields the trainer's arrays directly (pieces
as ``piece * 64 + square`` in FEN order, side to move, score, result: dataset.py's layout).
"""
import json
import lzma
import os
import struct

import numpy as np
from numba import njit

from black_numba.board.move import is_promotion, move_from, move_to, piece_square, promo_piece_type
from black_numba.board.movegen import MAX_MOVES, generate
from black_numba.board.position import BOARD, EMPTY, SIDE, SP, TABLES, make_move, new_position, set_fen
from black_numba.provenance import file_sha256

MAGIC = b"BNC1"
HEADER = struct.Struct("<5I")
SUFFIX = ".bnc"
MANIFEST = "manifest.json"
MAX_PIECES = 32
MAX_CHUNK_BYTES = 20 << 20       # a chunk's size limit (the repository keeps every chunk)
XZ_PRESET = 9 | lzma.PRESET_EXTREME
RESULT_CODES = {0.0: 0, 0.5: 1, 1.0: 2}
RESULT_VALUES = np.array([0.0, 0.5, 1.0], dtype=np.float32)
_ALL_MOVES = np.bool_(False)


class ChunkError(ValueError):
    """A chunk that cannot be read: truncated, corrupt, or not a chunk at all."""


# ---------------------------------------------------------------------------------------
# Compiled: move ranks, replay


@njit(cache=True, inline='always')
def _order_key(move):
    """The format's sort key of an engine move: (from, to, promotion) as one integer."""
    promo = promo_piece_type(move) if is_promotion(move) else 0    # knight 1 .. queen 4
    return (move_from(move) * 64 + move_to(move)) * 8 + promo


@njit(cache=True)
def _rank_moves(T, pos, moves, buf, ranks):
    """Play moves (engine codes) from pos, writing each one's rank into ranks; returns the
    number played, which is less than len(moves) when a move is not legal where it stands."""
    for i in range(moves.shape[0]):
        n = generate(T, pos, buf, 0, _ALL_MOVES)
        key = _order_key(moves[i])
        found = False
        r = 0
        for j in range(n):
            k = _order_key(buf[j])
            if k < key:
                r += 1
            elif k == key and buf[j] == moves[i]:
                found = True
        if not found:
            return i
        ranks[i] = r
        pos[SP] = 0             # never unmade: the undo stack restarts every ply
        make_move(T, pos, moves[i])
    return moves.shape[0]


@njit(cache=True)
def _replay(T, pos, ranks, keep, scores, result, buf, pieces, stm, score, res, start):
    """Replay one game from pos: its kept positions into pieces/stm/score/res from row start.
    ranks, keep (0/1 a ply) and scores (kept plies only, as differences) are the game's. Returns the rows
    written, or -1 - ply when a rank is out of range (a corrupt chunk)."""
    row = start
    k = 0
    cp = 0                          # scores are stored as differences within the game
    for i in range(ranks.shape[0]):
        if keep[i]:
            c = 0
            for rank in range(7, -1, -1):
                for f in range(8):
                    sq = rank * 8 + f
                    p = np.int64(pos[BOARD + sq])
                    if p != EMPTY and c < MAX_PIECES:
                        pieces[row, c] = piece_square(p, sq)
                        c += 1
            for j in range(c, MAX_PIECES):
                pieces[row, j] = -1
            stm[row] = pos[SIDE]
            cp += scores[k]
            score[row] = cp
            res[row] = result
            k += 1
            row += 1
        n = generate(T, pos, buf, 0, _ALL_MOVES)
        want = np.int64(ranks[i])
        if want >= n:
            return -1 - i
        # the move with exactly `want` moves before it in the format's order
        pick = -1
        for j in range(n):
            key = _order_key(buf[j])
            before = 0
            for m in range(n):
                if _order_key(buf[m]) < key:
                    before += 1
            if before == want:
                pick = j
                break
        pos[SP] = 0
        make_move(T, pos, buf[pick])
    return row - start


@njit(cache=True)
def _unzigzag(data, count, out):
    """Decode count zigzag varints from data into out; returns the bytes used, -1 if short."""
    i = 0
    for k in range(count):
        v = 0
        shift = 0
        while True:
            if i >= data.shape[0] or shift > 35:
                return -1
            b = np.int64(data[i])
            i += 1
            v |= (b & 127) << shift
            shift += 7
            if b < 128:
                break
        out[k] = (v >> 1) ^ -(v & 1)
    return i


# ---------------------------------------------------------------------------------------
# Writing


def _zigzag_bytes(values):
    out = bytearray()
    for v in values:
        z = (v << 1) ^ (v >> 63) if v < 0 else v << 1
        z &= (1 << 64) - 1
        while z >= 128:
            out.append((z & 127) | 128)
            z >>= 7
        out.append(z)
    return bytes(out)


def encode_chunk(games):
    """The compressed bytes of a chunk. games: (start FEN, [(move code, score or None)],
    result 0/0.5/1) as gamefile.read_games yields them; a move not legal where it stands
    raises ValueError."""
    pos = new_position()
    buf = np.zeros(MAX_MOVES, dtype=np.int64)
    fens, plies, results, ranks, keep, deltas = [], [], [], [], [], []
    kept = 0
    for g, (fen, moves, result) in enumerate(games):
        set_fen(pos, fen)
        codes = np.array([m for m, _ in moves], dtype=np.int64)
        r = np.zeros(len(moves), dtype=np.uint8)
        done = _rank_moves(TABLES, pos, codes, buf, r)
        if done != len(moves):
            raise ValueError(f"game {g}: move {done + 1} ({int(codes[done])}) is not legal")
        fens.append(fen.encode("ascii") + b"\n")
        plies.append(len(moves))
        results.append(RESULT_CODES[result])
        ranks.append(r.tobytes())
        prev = 0
        for _, s in moves:
            keep.append(s is not None)
            if s is not None:
                deltas.append(int(s) - prev)
                prev = int(s)
                kept += 1
    return _compress(fens, plies, results, ranks, keep, deltas, kept)


def encode_ranked(games):
    """The compressed bytes of a chunk of games given as the format stores them: (start FEN,
    ranks (u8 a ply), keep flags (a ply), scores of the kept plies, result 0/0.5/1), as
    Chunk.games_iter yields them (relabel.py cuts and rescores them)."""
    fens, plies, results, ranks, keep, deltas = [], [], [], [], [], []
    kept = 0
    for fen, r, k, scores, result in games:
        r = np.asarray(r, dtype=np.uint8)
        k = np.asarray(k, dtype=bool)
        if len(k) != len(r) or int(k.sum()) != len(scores):
            raise ValueError(f"{fen}: {len(r)} ranks, {len(k)} keep flags, "
                             f"{int(k.sum())} kept and {len(scores)} scores")
        fens.append(fen.encode("ascii") + b"\n")
        plies.append(len(r))
        results.append(RESULT_CODES[result])
        ranks.append(r.tobytes())
        keep += k.tolist()
        prev = 0
        for s in scores:
            deltas.append(int(s) - prev)
            prev = int(s)
        kept += len(scores)
    return _compress(fens, plies, results, ranks, keep, deltas, kept)


def _compress(fens, plies, results, ranks, keep, deltas, kept):
    """The columns as one xz stream (the layout in the module's docstring)."""
    fen_bytes = b"".join(fens)
    score_bytes = _zigzag_bytes(deltas)
    payload = b"".join([
        MAGIC, HEADER.pack(len(plies), sum(plies), kept, len(fen_bytes), len(score_bytes)),
        fen_bytes, np.array(plies, dtype="<u2").tobytes(),
        np.array(results, dtype=np.uint8).tobytes(), b"".join(ranks),
        np.packbits(np.array(keep, dtype=bool), bitorder="little").tobytes(), score_bytes])
    return lzma.compress(payload, format=lzma.FORMAT_XZ, preset=XZ_PRESET)


# ---------------------------------------------------------------------------------------
# Reading


class Chunk:
    """A chunk's columns, decompressed and checked (lengths, counts); positions() replays."""

    def __init__(self, path):
        self.path = str(path)
        try:
            with open(path, "rb") as f:
                raw = lzma.decompress(f.read(), format=lzma.FORMAT_XZ)
        except (lzma.LZMAError, EOFError) as e:
            raise ChunkError(f"{path}: not a readable xz stream ({e})") from None
        if raw[:4] != MAGIC or len(raw) < 4 + HEADER.size:
            raise ChunkError(f"{path}: not a black_numba data chunk (magic {raw[:4]!r})")
        self.games, self.plies, self.kept, fen_n, score_n = HEADER.unpack_from(raw, 4)
        i = 4 + HEADER.size
        sizes = (fen_n, 2 * self.games, self.games, self.plies, (self.plies + 7) // 8, score_n)
        if i + sum(sizes) != len(raw):
            raise ChunkError(f"{path}: its columns take {i + sum(sizes)} bytes, it holds "
                             f"{len(raw)}")
        cols = []
        for n in sizes:
            cols.append(raw[i:i + n])
            i += n
        fens = cols[0].decode("ascii", "replace").split("\n")
        if len(fens) != self.games + 1 or fens[-1]:
            raise ChunkError(f"{path}: {len(fens) - 1} start FENs for {self.games} games")
        self.fens = fens[:-1]
        self.game_plies = np.frombuffer(cols[1], dtype="<u2").astype(np.int64)
        self.results = np.frombuffer(cols[2], dtype=np.uint8)
        self.ranks = np.frombuffer(cols[3], dtype=np.uint8)
        self.keep = np.unpackbits(np.frombuffer(cols[4], dtype=np.uint8),
                                  bitorder="little")[:self.plies]
        if int(self.game_plies.sum()) != self.plies:
            raise ChunkError(f"{path}: the games' plies add up to {int(self.game_plies.sum())}, "
                             f"the header says {self.plies}")
        if int(self.keep.sum()) != self.kept:
            raise ChunkError(f"{path}: {int(self.keep.sum())} kept plies, the header says "
                             f"{self.kept}")
        if np.any(self.results > 2):
            raise ChunkError(f"{path}: a game result out of range")
        self.scores = np.zeros(self.kept, dtype=np.int64)
        if _unzigzag(np.frombuffer(cols[5], dtype=np.uint8), self.kept, self.scores) != score_n:
            raise ChunkError(f"{path}: the score column does not hold {self.kept} scores")

    def positions(self):
        """Arrays (pieces int16 [n, 32], stm int8, score int32, result float32) of every kept
        position, in game order."""
        n = self.kept
        pieces = np.empty((n, MAX_PIECES), dtype=np.int16)
        stm = np.empty(n, dtype=np.int8)
        score = np.empty(n, dtype=np.int32)
        result = np.empty(n, dtype=np.float32)
        pos = new_position()
        buf = np.zeros(MAX_MOVES, dtype=np.int64)
        ply = row = 0
        starts = np.concatenate([[0], np.cumsum(self.keep, dtype=np.int64)])
        for g in range(self.games):
            k = int(self.game_plies[g])
            try:
                set_fen(pos, self.fens[g])
            except ValueError as e:
                raise ChunkError(f"{self.path}: game {g}: bad start FEN ({e})") from None
            got = _replay(TABLES, pos, self.ranks[ply:ply + k], self.keep[ply:ply + k],
                          self.scores[starts[ply]:starts[ply + k]],
                          RESULT_VALUES[self.results[g]], buf, pieces, stm, score, result, row)
            if got < 0:
                raise ChunkError(f"{self.path}: game {g}: move {-got} is out of range")
            row += got
            ply += k
        return pieces, stm, score, result

    def games_iter(self):
        """(start FEN, ranks, keep flags, scores of kept plies, result 0/0.5/1) per game."""
        ply = 0
        starts = np.concatenate([[0], np.cumsum(self.keep, dtype=np.int64)])
        for g in range(self.games):
            k = int(self.game_plies[g])
            yield (self.fens[g], self.ranks[ply:ply + k], self.keep[ply:ply + k],
                   np.cumsum(self.scores[starts[ply]:starts[ply + k]]),
                   float(RESULT_VALUES[self.results[g]]))
            ply += k




# ---------------------------------------------------------------------------------------
# The manifest


def read_manifest(folder):
    """The manifest of a data folder: {"format": ..., "chunks": [entry, ...]}."""
    path = os.path.join(folder, MANIFEST)
    try:
        with open(path) as f:
            man = json.load(f)
    except OSError as e:
        raise ChunkError(f"{path}: cannot read the manifest ({e.strerror})") from None
    except ValueError as e:
        raise ChunkError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(man, dict) or not isinstance(man.get("chunks"), list):
        raise ChunkError(f"{path}: no list of chunks")
    for i, entry in enumerate(man["chunks"]):
        why = _entry_fault(entry)
        if why:
            raise ChunkError(f"{path}: chunk entry {i}: {why}")
    return man


ENTRY_COUNTS = ("games", "positions", "plies", "bytes")


def _entry_fault(entry):
    """What makes a manifest entry unusable (its types), or None."""
    if not isinstance(entry, dict):
        return "not an object"
    name = entry.get("file")
    if not isinstance(name, str) or not name.endswith(SUFFIX) or os.path.basename(name) != name \
            or name.startswith("."):
        return f"file {name!r} is not a chunk's name in the folder"
    for key in ENTRY_COUNTS:
        v = entry.get(key)
        if type(v) is not int or not 0 <= v < 1 << 40:
            return f"{key} {v!r} is not a count"
    digest = entry.get("sha256")
    if not isinstance(digest, str) or len(digest) != 64 or \
            any(ch not in "0123456789abcdef" for ch in digest):
        return f"sha256 {digest!r} is not a SHA-256"
    for key in ("seed", "games_from", "games_to"):
        if key in entry and type(entry[key]) is not int:
            return f"{key} {entry[key]!r} is not an integer"
    return None


def write_manifest(folder, man):
    path = os.path.join(folder, MANIFEST)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(man, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def chunk_paths(folder):
    """The chunk files of a data folder, in the manifest's order."""
    return [os.path.join(folder, e["file"]) for e in read_manifest(folder)["chunks"]]


def check_entry(folder, entry, count=True):
    """A list of what is wrong with one manifest entry (empty when it matches its file)."""
    path = os.path.join(folder, entry["file"])
    if not os.path.isfile(path):
        return [f"{path}: missing"]
    bad = []
    size = os.path.getsize(path)
    if size != entry.get("bytes"):
        bad.append(f"{path}: {size} bytes, the manifest says {entry.get('bytes')}")
    if file_sha256(path) != entry.get("sha256"):
        bad.append(f"{path}: SHA-256 differs from the manifest's")
    if count and not bad:
        try:
            c = Chunk(path)
        except ChunkError as e:
            return [str(e)]
        for key, have in (("games", c.games), ("positions", c.kept), ("plies", c.plies)):
            if have != entry.get(key):
                bad.append(f"{path}: {have} {key}, the manifest says {entry.get(key)}")
    return bad


def check_folder(folder, count=True):
    """Everything wrong with a data folder: manifest entries against their files, files the
    manifest does not list, chunks over MAX_CHUNK_BYTES (a repository's budget for its data
    is the repository's own: tools/check_records.py holds this one's)."""
    man = read_manifest(folder)
    bad = []
    listed = set()
    for entry in man["chunks"]:
        listed.add(entry["file"])
        bad += check_entry(folder, entry, count)
        if entry["bytes"] > MAX_CHUNK_BYTES:
            bad.append(f"{entry['file']}: over {MAX_CHUNK_BYTES} bytes")
    for name in sorted(os.listdir(folder)):
        if name.endswith(SUFFIX) and name not in listed:
            bad.append(f"{os.path.join(folder, name)}: not in the manifest")
    return bad


def expand(paths, skip_bad=False, log=None):
    """Training paths with each data folder (one holding a manifest) replaced by its datagen
    chunks, each checked against its entry (size, SHA-256); relabelled chunks (relabel.py)
    enter only when named, since their positions are the datagen chunks' again. A chunk that
    does not match raises ChunkError naming it, or with skip_bad is reported through log and
    left out."""
    out = []
    for p in paths:
        if not os.path.isdir(p):
            out.append(p)
            continue
        for entry in read_manifest(p)["chunks"]:
            if entry.get("source", "datagen") != "datagen":
                continue
            bad = check_entry(p, entry, count=False)
            if bad and not skip_bad:
                raise ChunkError("; ".join(bad))
            if bad:
                if log is not None:
                    log(f"skipped: {'; '.join(bad)}")
                continue
            out.append(os.path.join(p, entry["file"]))
    return out


def locate(names, places):
    """The files called `names` (in that order), looked up in `places`: files (matched by name)
    and folders, a data folder's chunks checked against its manifest entry. A name found
    nowhere, or a chunk that does not match its entry, raises ChunkError."""
    entries = {p: {e["file"]: e for e in read_manifest(p)["chunks"]} for p in places
               if os.path.isfile(os.path.join(p, MANIFEST))}     # each manifest read once
    found = []
    for name in names:
        for place in places:
            if not os.path.isdir(place):
                if os.path.basename(place) == name:
                    found.append(place)
                    break
                continue
            path = os.path.join(place, name)
            if not os.path.isfile(path):
                continue
            if place in entries:
                entry = entries[place].get(name)
                bad = [f"{path}: not in {place}'s manifest"] if entry is None else \
                    check_entry(place, entry, count=False)
                if bad:
                    raise ChunkError("; ".join(bad))
            found.append(path)
            break
        else:
            raise ChunkError(f"{name}: in none of {', '.join(places)}")
    return found
