"""Compiled Syzygy probing: index computation, pairs decompression and the WDL/DTZ probes.

Arrays in, integers out. Everything a probe needs is in three arrays:

- ``T``: the bitboard tables (``bitboard.TABLES``), for move generation;
- ``meta``: one flat int64 array built by ``syzygy.Tablebase`` (layout below): the format's
  constant index tables, a hash from material to table, one record per table, one record per
  "pairs" sub-table (per side to move and, with pawns, per leading-pawn file) with its parsed
  header (offsets into the file, symbol counts, piece order, normalisation and factors), the
  symbol lengths and code bases of every sub-table, and the address and length of each memory-
  mapped file;
- ``buf``: a caller-owned int64 scratch array of ``BUF_SIZE`` entries (move lists of the small
  capture search, a few squares); one per thread.

The files are read through their raw addresses (``_peek``, one byte at a time; every read is
checked against the file's length) so the functions compile without Numba's reference counting
(``_nrt=False``) and can be called from the search's own compiled code. The ``Tablebase`` that
built ``meta`` keeps the memory maps open; ``Tablebase.close()`` empties the hash in ``meta``,
so a later probe answers "missing", never reads a closed map (do not close during a search).

A compiled search calls (``pos`` is the position array of ``position.py``; it is changed during
the probe by make/unmake and restored before the return)::

    v = probe_wdl(T, pos, meta, buf)   # -2..2 for the side to move, as python-chess
    d = probe_dtz(T, pos, meta, buf)   # python-chess's DTZ (rounded DTZ50'', signed)
    if v <= TB_ERROR: ...               # missing table, castling rights, corrupt file, ...

``probe_wdl`` resolves captures and en passant by a small alpha-beta over captures
(python-chess's ``probe_ab``); ``probe_dtz`` follows python-chess's ``probe_dtz`` to the letter.
Results at or below ``TB_ERROR`` are errors: ``error_kind(v)`` and ``error_detail(v)`` decode
them (the material key of a missing table, the index of a corrupt table).
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from black_numba.board.bitboard import U0, U1, lsb, popcount
from black_numba.board.movegen import MAX_MOVES, generate
from black_numba.board.move import (
    CAPTURE, DOUBLE_PUSH, EP_CAPTURE, PROMO, QUIET, is_capture, move_flag, move_from,
)
from black_numba.board.position import (
    B_KING, BOARD, CASTLE, EP, HALFMOVE, KING, NO_SQ, OCC, OCC_W, SIDE, SP, STACK, W_KING,
    attackers_to, make_move, unmake_move,
)

# ---- results and errors -----------------------------------------------------------------
TB_ERROR = -1_000_000           # a result at or below this is an error
ERR_MISSING_WDL = 1             # detail: material key of the missing table
ERR_MISSING_DTZ = 2             # detail: material key
ERR_CORRUPT = 3                 # detail: table index (a read out of bounds, a bad code)
ERR_CASTLING = 4                # positions with castling rights are not in the tables
ERR_TOO_MANY = 5                # detail: number of pieces
ERR_DEPTH = 6                   # the capture search ran out of scratch (never on valid tables)
ERR_INVALID = 7                 # an index outside the table: an illegal position
DTZ_OTHER_SIDE = -999_999       # the DTZ file stores the other side to move (internal)

TB_PIECES = 7                   # the format's largest tables
TB_MAX_PLY = 24                 # capture search and DTZ recursion depth bound (scratch plies)
SQ_SCRATCH = 0                  # buf[0:8]: the squares of the pieces being indexed
BUF_MOVES = 8
BUF_SIZE = BUF_MOVES + TB_MAX_PLY * MAX_MOVES
MAX_DECODE_STEPS = 70000        # symbols in one block (sizes are 16-bit): bounds the decoder
# Typed (not literal) arguments: a literal would compile a second copy of the callee.
CAPTURES = np.bool_(True)
ALL = np.bool_(False)
WDL_FILE = np.bool_(False)
DTZ_FILE = np.bool_(True)
ROOT_PLY = np.int64(0)
ZERO = np.int64(0)
PAWN_SKIP = np.int64(8)         # squares of the first rank: the other colour's pawns skip them

# ---- meta: header ------------------------------------------------------------------------
M_HASH_MASK = 0                 # hash slots - 1 (a power of two minus one)
M_HASH = 1                      # offset of the hash: slots x (canonical key, table index)
M_TABLES = 2                    # offset of the table records
M_SUBS = 3                      # offset of the sub-table records
M_NTABLES = 4
M_MAX_PIECES = 5                # the largest table's piece count
HEADER = 8

# ---- meta: the format's constant tables (python-chess / Stockfish names) -----------------
C_TRIANGLE = HEADER
C_DIAG = C_TRIANGLE + 64
C_LOWER = C_DIAG + 64
C_FLAP = C_LOWER + 64
C_PTWIST = C_FLAP + 64
C_KK_IDX = C_PTWIST + 64        # 10 x 64
C_PAWNIDX = C_KK_IDX + 640      # 5 x 24
C_BINOM = C_PAWNIDX + 120       # 8 x 64: binom(n, k) at k * 64 + n
C_FILE_TO_FILE = C_BINOM + 512
CONST_END = C_FILE_TO_FILE + 8

# ---- meta: a table record ----------------------------------------------------------------
T_NUM = 0                       # pieces, kings included
T_PAWNS = 1                     # 1 if the table has pawns
T_SYM = 2                       # 1 if both sides have the same material
T_PAWN0 = 3                     # pawns of the leading colour
T_PAWN1 = 4                     # pawns of the other colour
T_ENC = 5                       # pawnless encoding: 0 (three unique pieces) or 2 (two kings)
T_WDL_SUB = 6                   # first WDL sub-table, -1 if no WDL file
T_WDL_KEY = 7                   # material key of the WDL file's own white side
T_WDL_LEAD = 8                  # piece code of the leading pawns (pawnful WDL)
T_DTZ_SUB = 9
T_DTZ_KEY = 10
T_DTZ_LEAD = 11
TABLE_W = 12

# ---- meta: a sub-table record (one "pairs" block) ----------------------------------------
S_ADDR = 0                      # address of the file's memory map
S_LEN = 1                       # the file's length
S_TABLE = 2                     # index of the owning table (for error details)
S_PIECES = 3                    # 7 piece codes: type 1..6 (P N B R Q K), +8 for black
S_NORM = 10                     # 7
S_FACTOR = 17                   # 7
S_FLAGS = 24                    # the pairs flags byte (DTZ: side stored, map, plies, wide)
S_CONST = 25                    # 1: a single value (S_MINLEN) for the whole sub-table
S_IDXBITS = 26
S_BLOCKSIZE = 27
S_MINLEN = 28
S_MAXLEN = 29
S_NUMSYMS = 30
S_NUMBLOCKS = 31                # blocks with a size entry (real ones plus padding)
S_REALBLOCKS = 32
S_NUMIDX = 33
S_INDEXTABLE = 34
S_SIZETABLE = 35
S_DATA = 36
S_OFFSET = 37                   # offset table position, less 2 * min_len
S_SYMPAT = 38                   # the file's pair table (its contents are in the symbol words)
S_SYMLEN = 39                   # meta offset of num_syms symbol words (SYM_* fields)
S_BASE = 40                     # meta offset of max_len - min_len + 1 code bases (uint64 bits)
S_TBSIZE = 41
S_PMAP = 42                     # DTZ: position of the value maps
S_MAPIDX = 43                   # 4: DTZ map starts by WDL class
SUB_W = 48

# A symbol word: the values it expands to, less one (0: a literal) in the low SYM_BITS bits,
# then its pair's two symbols, 12 bits each (a literal keeps its 12-bit value in the first).
SYM_BITS = 24
SYM_MASK = (1 << SYM_BITS) - 1

WDL_TO_MAP = (1, 3, 0, 2, 0)
PA_FLAGS = (8, 0, 0, 0, 4)
WDL_TO_DTZ = (-1, -101, 0, 101, 1)
HASH_MUL = 2654435761


def material_key(white, black):
    """Material key of piece counts (P N B R Q for each colour, kings implied), as compiled."""
    k = 0
    for t in range(5):
        k |= (white[t] << (3 * t)) | (black[t] << (3 * (5 + t)))
    return k


def hash_slot(canon, mask):
    """The first hash slot of a canonical material key (the compiled lookup's formula)."""
    return ((canon * HASH_MUL) >> 7) & mask


@njit(cache=True, inline='always')
def error_code(kind, detail):
    """The error result of a kind and its detail."""
    return np.int64(TB_ERROR - (detail * 8 + kind))


def error_kind(v):
    return (TB_ERROR - v) & 7


def error_detail(v):
    return (TB_ERROR - v) >> 3


# ---- raw reads -----------------------------------------------------------------------------
@intrinsic
def _peek(typingctx, addr):
    """The byte at a raw address (inside a table file's memory map), as int64."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        ptr = builder.inttoptr(args[0], ir.PointerType(ir.IntType(8)))
        return builder.zext(builder.load(ptr), ir.IntType(64))
    return sig, codegen


@njit(cache=True, inline='always')
def _rd16(a):
    return _peek(a) | (_peek(a + 1) << 8)


@njit(cache=True, inline='always')
def _rd32(a):
    return _peek(a) | (_peek(a + 1) << 8) | (_peek(a + 2) << 16) | (_peek(a + 3) << 24)


@njit(cache=True, inline='always')
def _rd32be(a):
    return (_peek(a) << 24) | (_peek(a + 1) << 16) | (_peek(a + 2) << 8) | _peek(a + 3)


# ---- index computation -------------------------------------------------------------------
@njit(cache=True, inline='always')
def _binom(meta, n, k):
    if n < k or n < 0:
        return np.int64(0)
    return meta[C_BINOM + k * 64 + n]


@njit(cache=True, inline='always')
def _offdiag(sq):
    return (sq >> 3) - (sq & 7)


@njit(cache=True, inline='always')
def _flipdiag(sq):
    return ((sq >> 3) | (sq << 3)) & 63


@njit(cache=True, inline='always')
def _sort_group(sq, i, t):
    """Sort sq[i:i + t] ascending (t <= 7: exchange sort, as the format's reference)."""
    for j in range(i, i + t):
        for k in range(j + 1, i + t):
            if sq[j] > sq[k]:
                x = sq[j]
                sq[j] = sq[k]
                sq[k] = x


@njit(cache=True, _nrt=False)
def _encode_rest(meta, sub, sq, i, n, idx, pawn_skip):
    """Add the groups of like pieces from sq[i:] to idx: each group's squares, less the squares
    of the pieces placed before it, as a combination number times its factor."""
    while i < n:
        t = meta[sub + S_NORM + i]
        if t <= 0 or i + t > n:
            return np.int64(-1)
        _sort_group(sq, i, t)
        s = np.int64(0)
        for m in range(i, i + t):
            p = sq[m]
            j = 0
            for k in range(i):
                if p > sq[k]:
                    j += 1
            s += _binom(meta, p - j - pawn_skip, m - i + 1)
        idx += s * meta[sub + S_FACTOR + i]
        i += t
        pawn_skip = 0
    return idx


@njit(cache=True, _nrt=False)
def _encode_piece(meta, sub, sq, n, enc):
    """Index of a pawnless position (enc 0: three unique pieces, enc 2: two kings)."""
    if sq[0] & 4:
        for i in range(n):
            sq[i] ^= 7
    if sq[0] & 0x20:
        for i in range(n):
            sq[i] ^= 0x38
    lim = 3 if enc == 0 else 2
    for i in range(n):
        d = _offdiag(sq[i])
        if d != 0:
            if i < lim and d > 0:
                for k in range(n):
                    sq[k] = _flipdiag(sq[k])
            break
    if enc == 0:
        a, b, c = sq[0], sq[1], sq[2]
        i = 1 if b > a else 0
        j = (1 if c > a else 0) + (1 if c > b else 0)
        if _offdiag(a):
            idx = meta[C_TRIANGLE + a] * 63 * 62 + (b - i) * 62 + (c - j)
        elif _offdiag(b):
            idx = 6 * 63 * 62 + meta[C_DIAG + a] * 28 * 62 + meta[C_LOWER + b] * 62 + c - j
        elif _offdiag(c):
            idx = (6 * 63 * 62 + 4 * 28 * 62 + meta[C_DIAG + a] * 7 * 28
                   + (meta[C_DIAG + b] - i) * 28 + meta[C_LOWER + c])
        else:
            idx = (6 * 63 * 62 + 4 * 28 * 62 + 4 * 7 * 28 + meta[C_DIAG + a] * 7 * 6
                   + (meta[C_DIAG + b] - i) * 6 + (meta[C_DIAG + c] - j))
        start = 3
    else:
        idx = meta[C_KK_IDX + meta[C_TRIANGLE + sq[0]] * 64 + sq[1]]
        if idx < 0:
            return np.int64(-1)
        start = 2
    idx *= meta[sub + S_FACTOR]
    return _encode_rest(meta, sub, sq, start, n, idx, ZERO)


@njit(cache=True, _nrt=False)
def _encode_pawn(meta, sub, sq, n, pawns0, pawns1):
    """Index of a position with pawns (the leading pawn sq[0] on files a-d after pawn_file)."""
    if sq[0] & 4:
        for i in range(n):
            sq[i] ^= 7
    for i in range(1, pawns0):
        for j in range(i + 1, pawns0):
            if meta[C_PTWIST + sq[i]] < meta[C_PTWIST + sq[j]]:
                x = sq[i]
                sq[i] = sq[j]
                sq[j] = x
    t = pawns0 - 1
    idx = meta[C_PAWNIDX + t * 24 + meta[C_FLAP + sq[0]]]
    for i in range(t, 0, -1):
        idx += _binom(meta, meta[C_PTWIST + sq[i]], t - i + 1)
    idx *= meta[sub + S_FACTOR]
    i = pawns0
    if pawns1 > 0:
        # the other colour's pawns: 48 squares less the leading pawns'
        return _encode_rest(meta, sub, sq, i, n, idx, PAWN_SKIP)
    return _encode_rest(meta, sub, sq, i, n, idx, ZERO)


# ---- pairs decompression -------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _decompress(meta, sub, idx, dtz):
    """The symbol value stored at index idx of a sub-table; -1 on a corrupt block."""
    if meta[sub + S_CONST]:
        return meta[sub + S_MINLEN]
    if idx < 0 or idx >= meta[sub + S_TBSIZE]:
        return np.int64(-1)
    addr = meta[sub + S_ADDR]
    flen = meta[sub + S_LEN]
    idxbits = meta[sub + S_IDXBITS]
    mainidx = idx >> idxbits
    if mainidx >= meta[sub + S_NUMIDX]:
        return np.int64(-1)
    litidx = (idx & ((np.int64(1) << idxbits) - 1)) - (np.int64(1) << (idxbits - 1))
    it = meta[sub + S_INDEXTABLE] + 6 * mainidx
    block = _rd32(addr + it)
    litidx += _rd16(addr + it + 4)
    nblocks = meta[sub + S_NUMBLOCKS]
    st = addr + meta[sub + S_SIZETABLE]
    if block >= nblocks:
        return np.int64(-1)
    if litidx < 0:
        while litidx < 0:
            block -= 1
            if block < 0:
                return np.int64(-1)
            litidx += _rd16(st + 2 * block) + 1
    else:
        while litidx > _rd16(st + 2 * block):
            litidx -= _rd16(st + 2 * block) + 1
            block += 1
            if block >= nblocks:
                return np.int64(-1)
    ptr = meta[sub + S_DATA] + (block << meta[sub + S_BLOCKSIZE])
    if block >= meta[sub + S_REALBLOCKS] or ptr + 8 > flen:
        return np.int64(-1)
    m = meta[sub + S_MINLEN]
    maxlen = meta[sub + S_MAXLEN]
    base = meta[sub + S_BASE] - m                     # base[l] at meta[base + l]
    symlen = meta[sub + S_SYMLEN]
    nsyms = meta[sub + S_NUMSYMS]
    offset = addr + meta[sub + S_OFFSET]
    code = U0
    for k in range(8):
        code = (code << np.uint64(8)) | np.uint64(_peek(addr + ptr + k))
    ptr += 8
    bitcnt = 0
    sym = np.int64(0)
    found = False
    for _ in range(MAX_DECODE_STEPS):
        l = m
        while l < maxlen and code < np.uint64(meta[base + l]):
            l += 1
        sym = _rd16(offset + 2 * l) + np.int64((code - np.uint64(meta[base + l]))
                                                >> np.uint64(64 - l))
        if sym >= nsyms:
            return np.int64(-1)
        sl = meta[symlen + sym] & SYM_MASK
        if litidx < sl + 1:
            found = True
            break
        litidx -= sl + 1
        code <<= np.uint64(l)
        bitcnt += l
        if bitcnt >= 32:
            bitcnt -= 32
            if ptr + 4 > flen:
                return np.int64(-1)
            code |= np.uint64(_rd32be(addr + ptr)) << np.uint64(bitcnt)
            ptr += 4
    if not found:
        return np.int64(-1)
    # descend the pair tree to the literal (depth < number of symbols)
    for _ in range(nsyms):
        word = meta[symlen + sym]
        if (word & SYM_MASK) == 0:
            break
        s1 = (word >> SYM_BITS) & 0xFFF
        l1 = meta[symlen + s1] & SYM_MASK
        if litidx < l1 + 1:
            sym = s1
        else:
            litidx -= l1 + 1
            sym = (word >> (SYM_BITS + 12)) & 0xFFF
    value = (meta[symlen + sym] >> SYM_BITS) & 0xFFF
    if dtz:
        return value
    return value & 0xFF


# ---- one table lookup ------------------------------------------------------------------------
@njit(cache=True, inline='always')
def _material(pos):
    k = np.int64(0)
    mk = np.int64(0)
    for t in range(5):
        w = popcount(pos[t])
        b = popcount(pos[6 + t])
        k |= (w << (3 * t)) | (b << (3 * (5 + t)))
        mk |= (b << (3 * t)) | (w << (3 * (5 + t)))
    return k, mk


@njit(cache=True, inline='always')
def _find_table(meta, canon):
    mask = meta[M_HASH_MASK]
    h = meta[M_HASH]
    slot = ((canon * HASH_MUL) >> 7) & mask
    for _ in range(mask + 1):
        k = meta[h + 2 * slot]
        if k == canon:
            return meta[h + 2 * slot + 1]
        if k < 0:
            return np.int64(-1)
        slot = (slot + 1) & mask
    return np.int64(-1)


@njit(cache=True, _nrt=False)
def _place(pos, meta, sub, sq, i, n, cmirror, mirror):
    """Fill sq[i:n] with the squares of the pieces in the sub-table's piece order; returns n
    or -1 when the position's pieces do not fill the order (wrong material)."""
    while i < n:
        pc = meta[sub + S_PIECES + i]
        colour = (pc ^ cmirror) >> 3
        bb = pos[colour * 6 + (pc & 7) - 1]
        if bb == U0:
            return np.int64(-1)
        while bb:
            if i >= n:
                return np.int64(-1)
            sq[i] = lsb(bb) ^ mirror
            bb &= bb - U1
            i += 1
    return i


@njit(cache=True, _nrt=False)
def _table_value(pos, meta, sq, dtz, wdl):
    """The value a WDL (res - 2) or DTZ file stores for pos, without captures: python-chess's
    probe_wdl_table / probe_dtz_table. DTZ_OTHER_SIDE when the DTZ file holds the other side."""
    if pos[OCC] == (pos[W_KING] | pos[B_KING]):
        return np.int64(0)
    key, mkey = _material(pos)
    canon = min(key, mkey)
    tid = _find_table(meta, canon)
    if tid < 0:
        return error_code(ERR_MISSING_DTZ if dtz else ERR_MISSING_WDL, key)
    rec = meta[M_TABLES] + tid * TABLE_W
    sub0 = meta[rec + (T_DTZ_SUB if dtz else T_WDL_SUB)]
    if sub0 < 0:
        return error_code(ERR_MISSING_DTZ if dtz else ERR_MISSING_WDL, key)
    fkey = meta[rec + (T_DTZ_KEY if dtz else T_WDL_KEY)]
    white = pos[SIDE] == U0
    symmetric = meta[rec + T_SYM] != 0
    if not symmetric:
        if key != fkey:
            cmirror, mirror, bside = 8, 0x38, 1 if white else 0
        else:
            cmirror, mirror, bside = 0, 0, 0 if white else 1
    else:
        cmirror = 0 if white else 8
        mirror = 0 if white else 0x38
        bside = 0
    n = meta[rec + T_NUM]
    subs = meta[M_SUBS]
    if not meta[rec + T_PAWNS]:
        if dtz:
            sub = subs + sub0 * SUB_W
            if (meta[sub + S_FLAGS] & 1) != bside and not symmetric:
                return np.int64(DTZ_OTHER_SIDE)
        else:
            sub = subs + (sub0 + bside) * SUB_W
        if _place(pos, meta, sub, sq, ZERO, n, cmirror, ZERO) != n:
            return error_code(ERR_CORRUPT, tid)
        idx = _encode_piece(meta, sub, sq, n, meta[rec + T_ENC])
    else:
        lead = meta[rec + (T_DTZ_LEAD if dtz else T_WDL_LEAD)] ^ cmirror
        bb = pos[(lead >> 3) * 6 + (lead & 7) - 1]
        i = 0
        while bb:
            if i >= n:
                return error_code(ERR_CORRUPT, tid)
            sq[i] = lsb(bb) ^ mirror
            bb &= bb - U1
            i += 1
        pawns0 = meta[rec + T_PAWN0]
        if i != pawns0:
            return error_code(ERR_CORRUPT, tid)
        # pawn_file: the leading pawn is the one with the smallest flap value
        for k in range(1, pawns0):
            if meta[C_FLAP + sq[0]] > meta[C_FLAP + sq[k]]:
                x = sq[0]
                sq[0] = sq[k]
                sq[k] = x
        f = meta[C_FILE_TO_FILE + (sq[0] & 7)]
        if dtz:
            sub = subs + (sub0 + f) * SUB_W
            if (meta[sub + S_FLAGS] & 1) != bside:
                return np.int64(DTZ_OTHER_SIDE)
        else:
            sub = subs + (sub0 + 2 * f + bside) * SUB_W
        if _place(pos, meta, sub, sq, i, n, cmirror, mirror) != n:
            return error_code(ERR_CORRUPT, tid)
        idx = _encode_pawn(meta, sub, sq, n, pawns0, meta[rec + T_PAWN1])
    if idx < 0:
        return error_code(ERR_INVALID, tid)
    res = _decompress(meta, sub, idx, dtz)
    if res < 0 or (not dtz and res > 4):
        return error_code(ERR_CORRUPT, tid)
    if not dtz:
        return res - 2
    flags = meta[sub + S_FLAGS]
    if flags & 2:
        addr = meta[sub + S_ADDR]
        at = meta[sub + S_PMAP]
        start = meta[sub + S_MAPIDX + WDL_TO_MAP[wdl + 2]]
        if not flags & 16:
            at += start + res
            if at >= meta[sub + S_LEN]:
                return error_code(ERR_CORRUPT, tid)
            res = _peek(addr + at)
        else:
            at += 2 * (start + res)
            if at + 2 > meta[sub + S_LEN]:
                return error_code(ERR_CORRUPT, tid)
            res = _rd16(addr + at)
    if (not (flags & PA_FLAGS[wdl + 2])) or (wdl & 1):
        res *= 2
    return res


# ---- the probes --------------------------------------------------------------------------------
@njit(cache=True, inline='always')
def _is_capture(move):
    """Plain and promoting captures, not en passant (the probes resolve it apart)."""
    return is_capture(move) and move_flag(move) != EP_CAPTURE


@njit(cache=True, _nrt=False)
def _probe_ab(T, pos, meta, buf, ply, alpha, beta):
    """Alpha-beta over captures (e.p. aside) down to the tables: (value, 2 if a capture decides
    it else 1), python-chess's probe_ab; (error, 0) on an error."""
    start = BUF_MOVES + ply * MAX_MOVES
    if ply >= TB_MAX_PLY:
        return error_code(ERR_DEPTH, 0), 0
    end = generate(T, pos, buf, start, CAPTURES)
    for i in range(start, end):
        m = buf[i]
        if not _is_capture(m):
            continue
        make_move(T, pos, m)
        v, _ = _probe_ab(T, pos, meta, buf, ply + 1, -beta, -alpha)
        unmake_move(T, pos)
        if v <= TB_ERROR:
            return v, 0
        v = -v
        if v > alpha:
            if v >= beta:
                return v, 2
            alpha = v
    v = _table_value(pos, meta, buf[SQ_SCRATCH:SQ_SCRATCH + 8], WDL_FILE, ZERO)
    if v <= TB_ERROR:
        return v, 0
    if alpha >= v:
        return alpha, 2 if alpha > 0 else 1
    return v, 1


@njit(cache=True, _nrt=False)
def _only_ep_moves(T, pos, buf, ply):
    """True when every legal move is an en-passant capture."""
    start = BUF_MOVES + ply * MAX_MOVES
    end = generate(T, pos, buf, start, ALL)
    for i in range(start, end):
        if move_flag(buf[i]) != EP_CAPTURE:
            return False
    return True


@njit(cache=True, _nrt=False)
def _best_ep(T, pos, meta, buf, ply):
    """The best value of the legal en-passant captures (-3 if none)."""
    v1 = np.int64(-3)
    if np.int64(pos[EP]) == NO_SQ:
        return v1
    start = BUF_MOVES + ply * MAX_MOVES
    end = generate(T, pos, buf, start, CAPTURES)
    for i in range(start, end):
        m = buf[i]
        if move_flag(m) != EP_CAPTURE:
            continue
        make_move(T, pos, m)
        v0, _ = _probe_ab(T, pos, meta, buf, ply + 1, np.int64(-2), np.int64(2))
        unmake_move(T, pos)
        if v0 <= TB_ERROR:
            return v0
        if -v0 > v1:
            v1 = -v0
    return v1


@njit(cache=True, _nrt=False)
def _probe_wdl(T, pos, meta, buf, ply):
    """python-chess's probe_wdl at scratch ply `ply`."""
    v, _ = _probe_ab(T, pos, meta, buf, ply, np.int64(-2), np.int64(2))
    if v <= TB_ERROR or np.int64(pos[EP]) == NO_SQ:
        return v
    v1 = _best_ep(T, pos, meta, buf, ply)
    if v1 <= TB_ERROR:
        return v1
    if v1 > -3:
        if v1 >= v:
            v = v1
        elif v == 0 and _only_ep_moves(T, pos, buf, ply):
            v = v1
    return v


@njit(cache=True, _nrt=False)
def _root_check(pos, meta):
    """The preconditions python-chess checks first: no castling rights, at most 8 pieces."""
    if pos[CASTLE] != U0:
        return error_code(ERR_CASTLING, 0)
    n = popcount(pos[OCC])
    if n > TB_PIECES + 1:
        return error_code(ERR_TOO_MANY, n)
    return np.int64(0)


@njit(cache=True, _nrt=False)
def probe_wdl(T, pos, meta, buf):
    """WDL of pos for the side to move: 2 win, 1 cursed win, 0 draw, -1 blessed loss, -2 loss,
    assuming the last move zeroed the fifty-move counter; an error code <= TB_ERROR."""
    e = _root_check(pos, meta)
    if e != 0:
        return e
    return _probe_wdl(T, pos, meta, buf, ROOT_PLY)


@njit(cache=True, inline='always')
def _dtz_before_zeroing(wdl):
    if wdl == 0:
        return np.int64(0)
    s = 1 if wdl > 0 else -1
    return s * (1 if (wdl == 2 or wdl == -2) else 101)


@njit(cache=True, _nrt=False)
def _is_mate(T, pos, buf, ply):
    """True when the side to move is checkmated."""
    start = BUF_MOVES + ply * MAX_MOVES
    if generate(T, pos, buf, start, ALL) != start:
        return False
    us = np.int64(pos[SIDE])
    ksq = lsb(pos[us * 6 + KING])
    return attackers_to(T, pos, ksq, pos[OCC], us ^ 1) != U0


@njit(cache=True, _nrt=False)
def _probe_dtz(T, pos, meta, buf, ply):
    """python-chess's probe_dtz (probe_dtz_no_ep, then en passant) at scratch ply `ply`."""
    if ply >= TB_MAX_PLY - 2:
        return error_code(ERR_DEPTH, 0)
    start = BUF_MOVES + ply * MAX_MOVES
    us = np.int64(pos[SIDE])
    pawn = us * 6
    # --- probe_dtz_no_ep
    wdl, success = _probe_ab(T, pos, meta, buf, ply, np.int64(-2), np.int64(2))
    if wdl <= TB_ERROR:
        return wdl
    v = np.int64(0)
    done = False
    if wdl == 0:
        done = True
    elif success == 2 or (pos[OCC_W + us] & ~pos[pawn]) == U0:
        v = _dtz_before_zeroing(wdl)
        done = True
    if not done and wdl > 0:
        # a winning pawn move (not a capture) zeroes at once
        end = generate(T, pos, buf, start, ALL)
        for i in range(start, end):
            m = buf[i]
            flag = move_flag(m)
            if np.int64(pos[BOARD + move_from(m)]) != pawn:
                continue
            if not (flag == QUIET or flag == DOUBLE_PUSH or (flag & (PROMO | CAPTURE)) == PROMO):
                continue
            make_move(T, pos, m)
            c = _probe_wdl(T, pos, meta, buf, ply + 1)
            unmake_move(T, pos)
            if c <= TB_ERROR:
                return c
            if -c == wdl:
                v = np.int64(1 if wdl == 2 else 101)
                done = True
                break
    if not done:
        d = _table_value(pos, meta, buf[SQ_SCRATCH:SQ_SCRATCH + 8], DTZ_FILE, wdl)
        if d <= TB_ERROR:
            return d
        if d != DTZ_OTHER_SIDE:
            v = _dtz_before_zeroing(wdl) + (d if wdl > 0 else -d)
            done = True
    if not done:
        end = generate(T, pos, buf, start, ALL)
        if wdl > 0:
            best = np.int64(0xFFFF)
            for i in range(start, end):
                m = buf[i]
                if np.int64(pos[BOARD + move_from(m)]) == pawn or move_flag(m) != QUIET:
                    continue
                make_move(T, pos, m)
                c = _probe_dtz(T, pos, meta, buf, ply + 1)
                if c <= TB_ERROR:
                    unmake_move(T, pos)
                    return c
                c = -c
                if c == 1 and _is_mate(T, pos, buf, ply + 1):
                    best = 1
                elif c > 0 and c + 1 < best:
                    best = c + 1
                unmake_move(T, pos)
            v = best
        else:
            best = np.int64(-1)
            for i in range(start, end):
                m = buf[i]
                make_move(T, pos, m)
                if pos[HALFMOVE] == U0:
                    if wdl == -2:
                        c = np.int64(-1)
                    else:
                        c, _ = _probe_ab(T, pos, meta, buf, ply + 1, np.int64(1), np.int64(2))
                        if c <= TB_ERROR:
                            unmake_move(T, pos)
                            return c
                        c = np.int64(0) if c == 2 else np.int64(-101)
                else:
                    c = _probe_dtz(T, pos, meta, buf, ply + 1)
                    if c <= TB_ERROR:
                        unmake_move(T, pos)
                        return c
                    c = -c - 1
                unmake_move(T, pos)
                if c < best:
                    best = c
            v = best
    # --- en passant
    if np.int64(pos[EP]) == NO_SQ:
        return v
    v1 = _best_ep(T, pos, meta, buf, ply)
    if v1 <= TB_ERROR:
        return v1
    if v1 > -3:
        v1 = WDL_TO_DTZ[v1 + 2]
        if v < -100:
            if v1 >= 0:
                v = v1
        elif v < 0:
            if v1 >= 0 or v1 < -100:
                v = v1
        elif v > 100:
            if v1 > 0:
                v = v1
        elif v > 0:
            if v1 == 1:
                v = v1
        elif v1 >= 0:
            v = v1
        elif _only_ep_moves(T, pos, buf, ply):
            v = v1
    return v


@njit(cache=True, _nrt=False)
def probe_dtz(T, pos, meta, buf):
    """DTZ of pos with python-chess's conventions (positive: the side to move wins; |d| > 100:
    cursed win or blessed loss; 0 draw); an error code <= TB_ERROR."""
    e = _root_check(pos, meta)
    if e != 0:
        return e
    return _probe_dtz(T, pos, meta, buf, ROOT_PLY)


@njit(cache=True, _nrt=False)
def probe_many(T, rows, pos, meta, buf, dtz, out):
    """probe_wdl (or probe_dtz) of many positions, each row the first STACK words of a
    position array (copied into pos, the undo stack emptied): checks and benchmarks."""
    for i in range(rows.shape[0]):
        for j in range(rows.shape[1]):
            pos[j] = rows[i, j]
        pos[SP] = U0
        if dtz:
            out[i] = probe_dtz(T, pos, meta, buf)
        else:
            out[i] = probe_wdl(T, pos, meta, buf)


def new_buffer():
    """A scratch buffer for the probes (one per thread)."""
    return np.zeros(BUF_SIZE, dtype=np.int64)


def rows_of(positions):
    """Position arrays as rows for probe_many (their first STACK words)."""
    rows = np.zeros((len(positions), STACK), dtype=np.uint64)
    for i, p in enumerate(positions):
        rows[i] = p[:STACK]
    return rows
