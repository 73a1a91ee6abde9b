"""Perft (move-path enumeration): bulk counting at the last ply, divide, threads and a hash.

Techniques (docs/architecture.md, "Perft"):
- bulk counting: the last ply's legal moves are counted by popcount (``count_legal``), never
  made or written; the last two plies run in one loop;
- at the last two plies, copy-make: each child's bitboards, side, en-passant square and
  rights are written into a scratch position (all that count_legal reads), nothing undone;
  and perft's own inlined copy of count_legal there;
- threads: the tree is split into the subtrees below the first two plies, which threads take
  from a shared queue; the compiled count releases the GIL;
- an optional hash table of (position, depth) -> count shared by the threads (``--hash MB``):
  two-entry buckets of four words, an entry kept only if its Zobrist key, a second,
  independent 64-bit check word and its depth all match, each stored xor the data word, so an
  entry torn by two threads writing at once fails its check and is never trusted.
"""
import itertools
import threading
import time

import numpy as np
from numba import njit

from black_numba.board.bitboard import TABLES, U0, U1, mix64
from black_numba.board.movegen import (
    ALL_MOVES, MAX_MOVES, MAX_PLY, count_legal, generate, legal_moves, new_move_buffer,
)
from black_numba.board.move import (
    DOUBLE_PUSH, EP_CAPTURE, castle_wing, is_castling, is_promotion, move_flag, move_from,
    move_to, promo_piece_type,
)
from black_numba.board.position import (
    BOARD, CASTLE, CASTLE_KING_TO, CASTLE_ROOK, CASTLE_ROOK_TO, EMPTY, EP, KEY, KING, NO_SQ,
    OCC, OCC_W, PAWN, RIGHTS_KEPT, ROOK, SIDE, make_move, move_to_uci, unmake_move,
)

# Perft's own inlined copy of count_legal for its innermost loop (the same Python function): a
# call between compiled functions passes each array as a struct of seven words, which cost
# perft a third of its time at the last plies. Elsewhere the plain calls keep compiling short.
_count = njit(cache=True, inline="always")(count_legal.py_func)

ENTRY_WORDS = 4                  # key ^ data, check ^ data, data, unused: 32 bytes
BUCKET_WORDS = 2 * ENTRY_WORDS   # slot 0 keeps the deeper entry, slot 1 takes the rest
DEPTH_BITS = np.uint64(8)
DEPTH_MASK = np.uint64(255)
MAX_STORED_COUNT = (1 << 56) - 1
MIN_HASH_DEPTH = 2               # shallower subtrees cost less than a probe
MAX_HASH_MB = 65536
NO_TABLE = np.zeros(BUCKET_WORDS, dtype=np.uint64)   # a one-bucket stand-in when off
_SEED = np.uint64(0x9E3779B97F4A7C15)
_S8, _S16, _S24 = np.uint64(8), np.uint64(16), np.uint64(24)


@njit(cache=True, inline="always")
def _rook_files(pos):
    return (pos[CASTLE_ROOK] | (pos[CASTLE_ROOK + 1] << _S8) | (pos[CASTLE_ROOK + 2] << _S16)
            | (pos[CASTLE_ROOK + 3] << _S24))


@njit(cache=True, inline="always")
def hash_key(pos):
    """The table's index key: the Polyglot key, with the castling rooks' squares mixed in so
    Chess960 positions that differ only there never share an entry."""
    return pos[KEY] ^ mix64(_rook_files(pos) ^ _SEED)


@njit(cache=True, inline="always")
def check_word(pos):
    """A second 64-bit hash of the position, independent of the Zobrist key: the raw piece
    bitboards, side, en-passant square, rights and castling rooks, mixed in turn."""
    h = _SEED
    for i in range(12):
        h = mix64(h ^ pos[i])
    h = mix64(h ^ (pos[SIDE] | (pos[EP] << _S8) | (pos[CASTLE] << _S16)))
    return mix64(h ^ _rook_files(pos))


@njit(cache=True, inline="always")
def probe(table, mask, key, pos, depth):
    """The stored count of (pos, depth), or -1."""
    b = (key & mask) * np.uint64(BUCKET_WORDS)
    d = np.uint64(depth)
    for e in range(2):
        i = b + np.uint64(e * ENTRY_WORDS)
        data = table[i + np.uint64(2)]
        if table[i] ^ data == key and data & DEPTH_MASK == d:
            if table[i + np.uint64(1)] ^ data == check_word(pos):
                return np.int64(data >> DEPTH_BITS)
    return np.int64(-1)


@njit(cache=True, inline="always")
def store(table, mask, key, pos, depth, count):
    if count > MAX_STORED_COUNT:
        return
    b = (key & mask) * np.uint64(BUCKET_WORDS)
    d = np.uint64(depth)
    data = (np.uint64(count) << DEPTH_BITS) | d
    i = b if d >= table[b + np.uint64(2)] & DEPTH_MASK else b + np.uint64(ENTRY_WORDS)
    table[i] = key ^ data
    table[i + np.uint64(1)] = check_word(pos) ^ data
    table[i + np.uint64(2)] = data


@njit(cache=True, inline="always")
def _child(pos, child, move):
    """Perft's copy-make for the last ply: child's bitboards, side, en-passant square and
    rights become pos's after move, as make_move would leave them; nothing else (count_legal
    reads nothing else: the castling geometry was copied once), and nothing to undo."""
    for i in range(CASTLE + 1):
        child[i] = pos[i]
    frm = move_from(move)
    to = move_to(move)
    flag = move_flag(move)
    us = np.int64(pos[SIDE])
    them = us ^ 1
    bf = U1 << np.uint64(frm)
    bt = U1 << np.uint64(to)
    new_ep = NO_SQ
    if is_castling(move):
        # both pieces leave before either lands (a Chess960 king may stay or take the rook's square)
        r = 2 * us + castle_wing(move)
        king, rook = us * 6 + KING, us * 6 + ROOK
        brf = U1 << pos[CASTLE_ROOK + r]
        bkt = U1 << np.uint64(CASTLE_KING_TO[r])
        brt = U1 << np.uint64(CASTLE_ROOK_TO[r])
        child[king] = (child[king] & ~bf) | bkt
        child[rook] = (child[rook] & ~brf) | brt
        gone = ~(bf | brf)
        come = bkt | brt
        child[OCC_W + us] = (child[OCC_W + us] & gone) | come
        child[OCC] = (child[OCC] & gone) | come
    else:
        piece = np.int64(pos[BOARD + frm])
        if flag == EP_CAPTURE:
            bc = U1 << np.uint64(to ^ 8)
            child[them * 6 + PAWN] ^= bc
            child[OCC_W + them] ^= bc
            child[OCC] ^= bc
        else:
            cap = np.int64(pos[BOARD + to])
            if cap != EMPTY:
                child[cap] ^= bt
                child[OCC_W + them] ^= bt
                child[OCC] ^= bt
        bft = bf | bt
        child[piece] ^= bft
        child[OCC_W + us] ^= bft
        child[OCC] ^= bft
        if is_promotion(move):
            child[piece] ^= bt
            child[us * 6 + promo_piece_type(move)] ^= bt
        elif flag == DOUBLE_PUSH:
            # set whether or not a pawn can take there: count_legal then finds no candidate
            new_ep = (frm + to) >> 1
    child[CASTLE] = pos[CASTLE] & pos[RIGHTS_KEPT + frm] & pos[RIGHTS_KEPT + to]
    child[EP] = np.uint64(new_ep)
    child[SIDE] = np.uint64(them)


@njit(cache=True, nogil=True, _nrt=False)
def perft_nodes(T, pos, depth, moves, ply, table, mask, hashed, child):
    """Leaf count of the move tree of pos to depth >= 1, releasing the GIL; with hashed, the
    subtrees of depth >= MIN_HASH_DEPTH go through the table. child: a scratch copy of pos
    (its castling geometry is read)."""
    start = ply * MAX_MOVES
    if depth <= 1:
        return np.int64(count_legal(T, pos, moves, start))
    key = U0
    if hashed:
        key = hash_key(pos)
        got = probe(table, mask, key, pos, depth)
        if got >= 0:
            return got
    end = generate(T, pos, moves, start, ALL_MOVES)
    total = np.int64(0)
    if depth == 2:
        # the last two plies in one loop: no call per leaf parent, no make or unmake
        for i in range(start, end):
            _child(pos, child, moves[i])
            total += _count(T, child, moves, end)
    else:
        for i in range(start, end):
            make_move(T, pos, moves[i])
            total += perft_nodes(T, pos, depth - 1, moves, ply + 1, table, mask, hashed, child)
            unmake_move(T, pos)
    if hashed:
        store(table, mask, key, pos, depth, total)
    return total


def new_table(mb):
    """A zeroed perft hash table of at most mb MB (a power of two of 64-byte buckets), and its
    index mask."""
    buckets = 1 << max(0, (mb * 1024 * 1024 // (BUCKET_WORDS * 8)).bit_length() - 1)
    return np.zeros(buckets * BUCKET_WORDS, dtype=np.uint64), np.uint64(buckets - 1)


class Perft:
    """One perft run: counts per root move in legal-move order, whatever order the threads
    finish in. `nodes_done()` may be read from another thread while `run()` works."""

    def __init__(self, pos, depth, threads=1, hash_mb=0, table=None):
        if not 0 <= depth <= MAX_PLY:     # deeper would run past the move buffer's plies
            raise ValueError(f"perft depth must be between 0 and {MAX_PLY}, got {depth}")
        if threads < 1:
            raise ValueError(f"perft needs at least one thread, got {threads}")
        if not 0 <= hash_mb <= MAX_HASH_MB:
            raise ValueError(f"perft hash must be between 0 and {MAX_HASH_MB} MB, got {hash_mb}")
        self.pos = pos.copy()
        self.depth = depth
        self.threads = threads
        if table is not None:
            self.table, self.mask = table
        elif hash_mb:
            self.table, self.mask = new_table(hash_mb)
        else:
            self.table, self.mask = NO_TABLE, np.uint64(0)
        self.hashed = table is not None or hash_mb > 0
        self.roots = legal_moves(self.pos)
        self.counts = [0] * len(self.roots)
        self.tasks = []           # (root index, reply or None), each a subtree of depth - 2
        self._done = [0] * threads
        self._tasks_done = [0] * threads

    def _subtree(self, pos, buf, depth):
        if depth <= 0:
            return 1
        return int(perft_nodes(TABLES, pos, np.int64(depth), buf, np.int64(0), self.table,
                               self.mask, self.hashed, pos.copy()))

    def _split(self):
        """Tasks below the first two plies: enough of them to keep every thread busy."""
        for i, m in enumerate(self.roots):
            make_move(TABLES, self.pos, np.int64(m))
            for r in legal_moves(self.pos):
                self.tasks.append((i, r))
            unmake_move(TABLES, self.pos)

    def _worker(self, w, queue, partial):
        pos = self.pos.copy()
        buf = new_move_buffer()
        for k in queue:
            if k >= len(self.tasks):
                return
            i, r = self.tasks[k]
            make_move(TABLES, pos, np.int64(self.roots[i]))
            make_move(TABLES, pos, np.int64(r))
            c = self._subtree(pos, buf, self.depth - 2)
            unmake_move(TABLES, pos)
            unmake_move(TABLES, pos)
            partial[i] += c
            self._done[w] += c
            self._tasks_done[w] += 1

    def nodes_done(self):
        return sum(self._done)

    def share_done(self):
        """Finished tasks over all tasks (0 before the split): the basis of a time estimate."""
        return sum(self._tasks_done) / len(self.tasks) if self.tasks else 0.0

    def run(self, on_progress=None, every=0.5):
        """Counts per root move; on_progress(self) is called every `every` seconds while
        threads work."""
        if self.depth <= 2 or (self.threads == 1 and on_progress is None):
            buf = new_move_buffer()
            for i, m in enumerate(self.roots):
                make_move(TABLES, self.pos, np.int64(m))
                self.counts[i] = self._subtree(self.pos, buf, self.depth - 1)
                unmake_move(TABLES, self.pos)
                self._done[0] += self.counts[i]
            return self.counts
        self._split()
        queue = itertools.count()           # next() is atomic under the GIL
        partials = [[0] * len(self.roots) for _ in range(self.threads)]
        workers = [threading.Thread(target=self._worker, args=(w, queue, partials[w]),
                                    daemon=True, name=f"perft {w}")
                   for w in range(self.threads)]
        for t in workers:
            t.start()
        for t in workers:
            while t.is_alive():
                t.join(every)
                if on_progress is not None and t.is_alive():
                    on_progress(self)
        self.counts = [sum(p[i] for p in partials) for i in range(len(self.roots))]
        return self.counts


def perft(pos, depth, threads=1, hash_mb=0):
    """Number of leaf nodes at depth (perft(0) is 1)."""
    if depth <= 0:
        return 1
    return sum(Perft(pos, depth, threads, hash_mb).run())


def divide(pos, depth, chess960=False, threads=1, hash_mb=0):
    """[(uci_move, count)] for each root move, counts of perft(depth - 1) below it; castling
    written king-takes-rook with chess960."""
    if depth <= 0:
        return []
    p = Perft(pos, depth, threads, hash_mb)
    counts = p.run()
    return [(move_to_uci(m, pos if chess960 else None), c) for m, c in zip(p.roots, counts)]
