"""Transposition table: one uint64 array of (key ^ data, data) pairs in buckets of two.

data packs move (16 bits), score + 32768 (16), static eval + 32768 (16), depth + 16 (8),
bound (2) and generation (6). Mate scores are stored relative to the node, not the root.

The first word holds the key xor-ed with the data ("lockless hashing", Hyatt and Mann): the
table is shared without locks by the search threads, and an entry torn by two threads writing
it at once (one thread's key word beside another's data word) no longer matches its key, so
it is never trusted. Empty entries are (0, 0) and are never found.
"""
import llvmlite.ir as ir
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from black_numba.board.bitboard import U0
from black_numba.board.movegen import MAX_PLY

BOUND_UPPER, BOUND_LOWER, BOUND_EXACT = 1, 2, 3
MATE = 32000
MATE_IN_MAX = MATE - 256
# Syzygy results sit just inside the mate scores, by distance from the root like mates:
# TB_WIN - ply for a tablebase win found at ply; at or beyond TB_WIN_IN_MAX a score is
# decisive (a mate or a tablebase result) and is stored by distance from its node.
TB_WIN = MATE_IN_MAX - 1
TB_WIN_IN_MAX = TB_WIN - MAX_PLY
_M16 = np.uint64(0xFFFF)
_U16 = np.uint64(16)
_U32 = np.uint64(32)
_U48 = np.uint64(48)
_U56 = np.uint64(56)
_U58 = np.uint64(58)
_U63 = np.uint64(63)
_U3 = np.uint64(3)
_UFF = np.uint64(0xFF)


def new_table(mb):
    """A zeroed table of about mb megabytes (16 bytes an entry, an even number of entries)."""
    entries = max(2, (int(mb) * 1024 * 1024 // 16) & ~1)
    return np.zeros(2 * entries, dtype=np.uint64)


@njit(cache=True, _nrt=False)
def score_to_tt(score, ply):
    """Mate and tablebase scores become distances from this node."""
    if score >= TB_WIN_IN_MAX:
        return score + ply
    if score <= -TB_WIN_IN_MAX:
        return score - ply
    return score


@njit(cache=True, _nrt=False)
def score_from_tt(score, ply):
    """Mate and tablebase distances from a node become distances from the root."""
    if score >= TB_WIN_IN_MAX:
        return score - ply
    if score <= -TB_WIN_IN_MAX:
        return score + ply
    return score


@njit(cache=True, _nrt=False)
def _bucket(tt, key):
    buckets = np.uint64(tt.shape[0] >> 2)
    # multiply-shift maps the high key bits onto any bucket count (no power of two needed)
    return np.int64(((key >> _U32) * buckets) >> _U32) * 4


@intrinsic
def _prefetch(typingctx, arr, idx):
    """Ask the CPU to bring the cache line of arr[idx] in (llvm.prefetch: a read, high
    locality); no effect on any value."""
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):
        arrty = signature.args[0]
        ary = context.make_array(arrty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, arrty, ary, [args[1]])
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, inline='always')
def tt_prefetch(tt, key):
    """Start loading key's bucket while the caller does other work (a table larger than the
    caches misses on nearly every probe; Stockfish prefetches in do_move)."""
    _prefetch(tt, _bucket(tt, key))


@njit(cache=True, _nrt=False)
def tt_probe(tt, key):
    """(found, data) for key."""
    b = _bucket(tt, key)
    # read each data word once: another thread may rewrite it between two reads
    d = tt[b + 1]
    if tt[b] ^ d == key and d != U0:
        return True, d
    d = tt[b + 3]
    if tt[b + 2] ^ d == key and d != U0:
        return True, d
    return False, U0


@njit(cache=True, _nrt=False)
def tt_store(tt, key, move, score, static_eval, depth, bound, age, ply):
    """Store, replacing the same key, else the shallower or older entry of the bucket."""
    b = _bucket(tt, key)
    slot = b
    d0 = tt[b + 1]
    d1 = tt[b + 3]
    if tt[b] ^ d0 != key:
        if tt[b + 2] ^ d1 == key:
            slot = b + 2
        else:
            v0 = np.int64((d0 >> _U48) & _UFF) - 8 * ((age - np.int64(d0 >> _U58)) & 63)
            v1 = np.int64((d1 >> _U48) & _UFF) - 8 * ((age - np.int64(d1 >> _U58)) & 63)
            if v1 < v0:
                slot = b + 2
    else:
        # keep a deeper entry of this generation unless the new one is exact
        if move == 0:
            move = np.int64(d0 & _M16)
        if bound != BOUND_EXACT and np.int64((d0 >> _U48) & _UFF) - 16 > depth + 3 \
                and np.int64(d0 >> _U58) == age:
            return
    old = tt[slot + 1]
    if tt[slot] ^ old == key and move == 0:
        move = np.int64(old & _M16)
    s = score_to_tt(score, ply)
    data = (np.uint64(move & 0xFFFF) | (np.uint64(s + 32768) << _U16)
            | (np.uint64(static_eval + 32768) << _U32) | (np.uint64(depth + 16) << _U48)
            | (np.uint64(bound) << _U56) | (np.uint64(age & 63) << _U58))
    tt[slot] = key ^ data
    tt[slot + 1] = data


@njit(cache=True, _nrt=False)
def tt_move(data):
    return np.int64(data & _M16)


@njit(cache=True, _nrt=False)
def tt_score(data, ply):
    return score_from_tt(np.int64((data >> _U16) & _M16) - 32768, ply)


@njit(cache=True, _nrt=False)
def tt_eval(data):
    return np.int64((data >> _U32) & _M16) - 32768


@njit(cache=True, _nrt=False)
def tt_depth(data):
    return np.int64((data >> _U48) & _UFF) - 16


@njit(cache=True, _nrt=False)
def tt_bound(data):
    return np.int64((data >> _U56) & _U3)


@njit(cache=True, _nrt=False)
def hashfull(tt, age):
    """Per mille of the first 1000 entries written in this generation."""
    n = min(1000, tt.shape[0] >> 1)
    used = 0
    for i in range(n):
        d = tt[2 * i + 1]
        if d != U0 and np.int64(d >> _U58) == (age & 63):
            used += 1
    return used * 1000 // n
