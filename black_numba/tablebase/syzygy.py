"""Syzygy tables for compiled code: discovery, memory maps, header parsing and the registry.

``Tablebase(path)`` scans folders (``:``-separated, ``;`` accepted too; ``;`` only on Windows)
for WDL (``.rtbw``) and DTZ (``.rtbz``) files of regular chess, maps each file read-only,
parses and checks its header, and packs everything the compiled probes need into one int64
array, ``tb.meta`` (layout in ``tbprobe.py``). The probes in ``tbprobe`` then take plain arrays:

    from black_numba.board.bitboard import TABLES
    from black_numba.tablebase import tbprobe
    tb = Tablebase("/tables/3-4-5")
    buf = tbprobe.new_buffer()                       # scratch, one per thread
    v = tbprobe.probe_wdl(TABLES, pos, tb.meta, buf)  # in compiled code too
    if v <= tbprobe.TB_ERROR: tb.raise_for(v, pos)

For Python users ``tb.probe_wdl(board)`` and ``tb.probe_dtz(board)`` take a ``chess.Board``
and answer with python-chess's values and sign conventions, raising ``MissingTableError`` (a
``KeyError``) when a table is missing, ``KeyError`` with castling rights or too many pieces.

A file that is not a valid table (wrong size, bad magic, another variant, pieces that are not
the material its name says, offsets outside the file, inconsistent block index) raises
``TablebaseError`` naming the file when it is added; ``Tablebase(path)`` skips such files,
keeps loading the others and lists the errors in ``tb.errors`` (``strict=True`` raises the
first). Nothing is verified beyond the headers and block indexes (the compressed blocks are
read only when probed): a damaged block gives ``TablebaseError`` at the probe, never a crash.
"""
import mmap
import os
import re

import numpy as np

from black_numba.tablebase import tbprobe as tp
from black_numba.board.bitboard import TABLES

WDL_SUFFIX, DTZ_SUFFIX = ".rtbw", ".rtbz"
WDL_MAGIC = bytes((0x71, 0xE8, 0x23, 0x5D))
DTZ_MAGIC = bytes((0xD7, 0x66, 0x0C, 0xA5))
# Magics of the variants' tables (atomic, antichess/giveaway): a clear error, not garbage.
OTHER_MAGICS = {
    bytes((0x55, 0x8D, 0xA4, 0x49)): "atomic WDL", bytes((0x91, 0xA9, 0x5E, 0xEB)): "atomic DTZ",
    bytes((0x7B, 0xF6, 0x93, 0x15)): "antichess WDL", bytes((0xE4, 0xCF, 0xE7, 0x23)): "antichess DTZ",
    bytes((0xBC, 0x55, 0xBC, 0x21)): "giveaway WDL", bytes((0xD6, 0xF5, 0x1B, 0x50)): "giveaway DTZ",
}
PIECE_ORDER = "KQRBNP"              # the order of a normalised table name
TYPE_CODE = {"P": 1, "N": 2, "B": 3, "R": 4, "Q": 5, "K": 6}   # the files' piece codes
NAME_RE = re.compile(r"^K[QRBNP]*vK[QRBNP]*$")
PIVFAC = (31332, 0, 462)            # positions of the pivot pieces, encodings 0 and 2
MAX_MAX_LEN = 32                    # longest Huffman code the decoder's 64-bit window allows

# ---- the format's index tables (as Stockfish and python-chess define them) -----------------
TRIANGLE = (
    6, 0, 1, 2, 2, 1, 0, 6,
    0, 7, 3, 4, 4, 3, 7, 0,
    1, 3, 8, 5, 5, 8, 3, 1,
    2, 4, 5, 9, 9, 5, 4, 2,
    2, 4, 5, 9, 9, 5, 4, 2,
    1, 3, 8, 5, 5, 8, 3, 1,
    0, 7, 3, 4, 4, 3, 7, 0,
    6, 0, 1, 2, 2, 1, 0, 6,
)
LOWER = (
    28, 0, 1, 2, 3, 4, 5, 6,
    0, 29, 7, 8, 9, 10, 11, 12,
    1, 7, 30, 13, 14, 15, 16, 17,
    2, 8, 13, 31, 18, 19, 20, 21,
    3, 9, 14, 18, 32, 22, 23, 24,
    4, 10, 15, 19, 22, 33, 25, 26,
    5, 11, 16, 20, 23, 25, 34, 27,
    6, 12, 17, 21, 24, 26, 27, 35,
)
DIAG = (
    0, 0, 0, 0, 0, 0, 0, 8,
    0, 1, 0, 0, 0, 0, 9, 0,
    0, 0, 2, 0, 0, 10, 0, 0,
    0, 0, 0, 3, 11, 0, 0, 0,
    0, 0, 0, 12, 4, 0, 0, 0,
    0, 0, 13, 0, 0, 5, 0, 0,
    0, 14, 0, 0, 0, 0, 6, 0,
    15, 0, 0, 0, 0, 0, 0, 7,
)
FLAP = (
    0, 0, 0, 0, 0, 0, 0, 0,
    0, 6, 12, 18, 18, 12, 6, 0,
    1, 7, 13, 19, 19, 13, 7, 1,
    2, 8, 14, 20, 20, 14, 8, 2,
    3, 9, 15, 21, 21, 15, 9, 3,
    4, 10, 16, 22, 22, 16, 10, 4,
    5, 11, 17, 23, 23, 17, 11, 5,
    0, 0, 0, 0, 0, 0, 0, 0,
)
PTWIST = (
    0, 0, 0, 0, 0, 0, 0, 0,
    47, 35, 23, 11, 10, 22, 34, 46,
    45, 33, 21, 9, 8, 20, 32, 44,
    43, 31, 19, 7, 6, 18, 30, 42,
    41, 29, 17, 5, 4, 16, 28, 40,
    39, 27, 15, 3, 2, 14, 26, 38,
    37, 25, 13, 1, 0, 12, 24, 36,
    0, 0, 0, 0, 0, 0, 0, 0,
)
INVFLAP = (8, 16, 24, 32, 40, 48, 9, 17, 25, 33, 41, 49,
           10, 18, 26, 34, 42, 50, 11, 19, 27, 35, 43, 51)
FILE_TO_FILE = (0, 1, 2, 3, 3, 2, 1, 0)


def _binom(n, k):
    if n < k or n < 0 or k < 0:
        return 0
    r = 1
    for i in range(k):
        r = r * (n - i) // (i + 1)
    return r


def _kk_index():
    """Index of two kings, the first in the a1-d1-d4 triangle (numbered by TRIANGLE), over
    the legal placements of the second; with the first on the a1-h8 diagonal the second is
    not above it, and placements with both on the diagonal come last (462 in all)."""
    kk = [[-1] * 64 for _ in range(10)]
    code = 0
    both_on_diag = []
    firsts = sorted((TRIANGLE[s], s) for s in (1, 2, 3, 10, 11, 19, 0, 9, 18, 27))
    for t, s1 in firsts:
        f1, r1 = s1 & 7, s1 >> 3
        for s2 in range(64):
            f2, r2 = s2 & 7, s2 >> 3
            if max(abs(f1 - f2), abs(r1 - r2)) <= 1:
                continue
            if r1 == f1 and r2 - f2 > 0:
                continue
            if r1 == f1 and r2 == f2:
                both_on_diag.append((t, s2))
            else:
                kk[t][s2] = code
                code += 1
    for t, s2 in both_on_diag:
        kk[t][s2] = code
        code += 1
    return kk


def _pawn_index():
    """PAWNIDX[k][flap] and PFACTOR[k][file] for k + 1 leading pawns."""
    pawnidx = [[0] * 24 for _ in range(5)]
    pfactor = [[0] * 4 for _ in range(5)]
    for i in range(5):
        for f in range(4):
            s = 0
            for j in range(6 * f, 6 * f + 6):
                pawnidx[i][j] = s
                s += 1 if i == 0 else _binom(PTWIST[INVFLAP[j]], i)
            pfactor[i][f] = s
    return pawnidx, pfactor


KK_IDX = _kk_index()
PAWNIDX, PFACTOR = _pawn_index()


def _constants():
    c = np.zeros(tp.CONST_END, dtype=np.int64)
    c[tp.C_TRIANGLE:tp.C_TRIANGLE + 64] = TRIANGLE
    c[tp.C_DIAG:tp.C_DIAG + 64] = DIAG
    c[tp.C_LOWER:tp.C_LOWER + 64] = LOWER
    c[tp.C_FLAP:tp.C_FLAP + 64] = FLAP
    c[tp.C_PTWIST:tp.C_PTWIST + 64] = PTWIST
    c[tp.C_KK_IDX:tp.C_KK_IDX + 640] = np.array(KK_IDX).ravel()
    c[tp.C_PAWNIDX:tp.C_PAWNIDX + 120] = np.array(PAWNIDX).ravel()
    c[tp.C_BINOM:tp.C_BINOM + 512] = [_binom(n, k) for k in range(8) for n in range(64)]
    c[tp.C_FILE_TO_FILE:tp.C_FILE_TO_FILE + 8] = FILE_TO_FILE
    return c[tp.HEADER:]


_CONSTANTS = _constants()


class TablebaseError(ValueError):
    """A file that is not a valid Syzygy table of regular chess; names the file."""

    def __init__(self, path, message):
        super().__init__(f"{path}: {message}")
        self.path = path


class MissingTableError(KeyError):
    """A table the probe needs was not found (python-chess's MissingTableError)."""


# ---- names and material ----------------------------------------------------------------------
def normalize_name(name):
    """python-chess's normalised table name (the stronger side first)."""
    w, b = name.split("v", 1)
    w = "".join(sorted(w, key=PIECE_ORDER.index))
    b = "".join(sorted(b, key=PIECE_ORDER.index))
    if (len(w), [PIECE_ORDER.index(c) for c in b]) < (len(b), [PIECE_ORDER.index(c) for c in w]):
        return b + "v" + w
    return w + "v" + b


def _counts(side):
    """P N B R Q counts of one side's letters."""
    return [side.count(c) for c in "PNBRQ"]


def _name_of_key(key):
    """A table name (white first) from a material key."""
    letters = "PNBRQ"
    w = "K" + "".join(letters[t] * ((key >> (3 * t)) & 7) for t in range(4, -1, -1))
    b = "K" + "".join(letters[t] * ((key >> (3 * (5 + t))) & 7) for t in range(4, -1, -1))
    return w + "v" + b


def _frame_key(codes):
    """Material key of a list of piece codes in the file's own colours (bit 3: black)."""
    w = [0] * 5
    b = [0] * 5
    for c in codes:
        t = c & 7
        if t < 1 or t > 6 or c & 0xF0:
            return None
        if t == 6:
            continue
        (b if c & 8 else w)[t - 1] += 1
    if sum(1 for c in codes if c & 7 == 6) != 2 or sum(1 for c in codes if c == 6) != 1:
        return None
    return tp.material_key(w, b)


class _File:
    """A read-only memory map of one table file, with checked little/big-endian reads."""

    def __init__(self, path):
        self.path = path
        try:
            with open(path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size == 0:
                    raise TablebaseError(path, "empty file")
                self.mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except OSError as e:
            raise TablebaseError(path, f"cannot map the file: {e}") from None
        if hasattr(self.mm, "madvise") and hasattr(mmap, "MADV_RANDOM"):
            try:
                self.mm.madvise(mmap.MADV_RANDOM)
            except OSError:
                pass
        self.data = np.frombuffer(self.mm, dtype=np.uint8)
        self.size = len(self.data)
        self.addr = self.data.ctypes.data

    def fail(self, message):
        raise TablebaseError(self.path, message)

    def check(self, at, n, what):
        if at < 0 or n < 0 or at + n > self.size:
            self.fail(f"truncated or corrupt: {what} at byte {at} (+{n}) is outside the "
                      f"file of {self.size} bytes")

    def u8(self, at):
        self.check(at, 1, "a header byte")
        return int(self.data[at])

    def u16(self, at):
        self.check(at, 2, "a header word")
        return int(self.data[at]) | int(self.data[at + 1]) << 8

    def u32(self, at):
        self.check(at, 4, "a header word")
        d = self.data
        return int(d[at]) | int(d[at + 1]) << 8 | int(d[at + 2]) << 16 | int(d[at + 3]) << 24

    def close(self):
        self.data = None
        try:
            self.mm.close()
        except (BufferError, ValueError):
            pass          # a numpy view still exported: the map closes when it is freed


class _Sub:
    """One pairs sub-table: its parsed header and the arrays the decoder needs."""

    def __init__(self):
        self.pieces = [0] * 7
        self.norm = [0] * 7
        self.factor = [0] * 7
        self.flags = 0
        self.const = 0
        self.idxbits = self.blocksize = self.min_len = self.max_len = 0
        self.num_syms = self.num_blocks = self.real_blocks = self.num_idx = 0
        self.indextable = self.sizetable = self.data = self.offset = self.sympat = 0
        self.symlen = np.zeros(0, dtype=np.int64)
        self.base = np.zeros(0, dtype=np.int64)
        self.tb_size = 0
        self.p_map = 0
        self.map_idx = [0, 0, 0, 0]
        self.sizes = (0, 0, 0)
        self.missing = False


class _TableFile:
    """A parsed WDL or DTZ file: its sub-tables and the key of its own white side."""

    def __init__(self, path, name, dtz):
        self.path = path
        self.name = name
        self.dtz = dtz
        w, b = name.split("v")
        self.num = len(name) - 1
        self.has_pawns = "P" in name
        self.name_key = tp.material_key(_counts(w), _counts(b))
        self.name_mkey = tp.material_key(_counts(b), _counts(w))
        self.symmetric = self.name_key == self.name_mkey
        if self.has_pawns:
            # python-chess: the leading colour has the fewer (but some) pawns
            p = [b.count("P"), w.count("P")]
            if p[1] > 0 and (p[0] == 0 or p[1] < p[0]):
                p = [p[1], p[0]]
            self.pawns = p
            self.enc = 0
        else:
            self.pawns = [0, 0]
            j = sum((b.count(c) == 1) + (w.count(c) == 1) for c in PIECE_ORDER)
            self.enc = 0 if j >= 3 else 2
        self.file = _File(path)
        try:
            self._parse()
        except TablebaseError:
            self.file.close()
            raise
        except (IndexError, ValueError, OverflowError) as e:
            self.file.close()
            raise TablebaseError(path, f"corrupt header ({e})") from None

    # -- pieces, normalisation and factors (python-chess's setup functions)
    def _norm_piece(self, pieces):
        norm = [0] * 7
        norm[0] = 3 if self.enc == 0 else 2
        i = norm[0]
        while i < self.num:
            j = i
            while j < self.num and pieces[j] == pieces[i]:
                norm[i] += 1
                j += 1
            i += norm[i]
        return norm

    def _norm_pawn(self, pieces):
        norm = [0] * 7
        p0, p1 = self.pawns
        norm[0] = p0
        if p1:
            norm[p0] = p1
        i = p0 + p1
        while i < self.num:
            j = i
            while j < self.num and pieces[j] == pieces[i]:
                norm[i] += 1
                j += 1
            i += norm[i]
        return norm

    def _factors_piece(self, norm, order):
        factor = [0] * 7
        n = 64 - norm[0]
        f = 1
        i = norm[0]
        k = 0
        seen = False
        while i < self.num or k == order:
            if k > 16:
                break
            if k == order:
                factor[0] = f
                f *= PIVFAC[self.enc]
                seen = True
            else:
                factor[i] = f
                f *= _binom(n, norm[i])
                n -= norm[i]
                i += norm[i]
            k += 1
        if not seen:
            self.file.fail(f"corrupt header: piece order {order} out of range")
        return factor, f

    def _factors_pawn(self, norm, order, order2, fl):
        factor = [0] * 7
        i = norm[0]
        if order2 < 0x0F:
            i += norm[i]
        n = 64 - i
        fac = 1
        k = 0
        seen = False
        while i < self.num or k == order or k == order2:
            if k > 16:
                break
            if k == order:
                factor[0] = fac
                fac *= PFACTOR[norm[0] - 1][fl]
                seen = True
            elif k == order2:
                factor[norm[0]] = fac
                fac *= _binom(48 - norm[0], norm[norm[0]])
            else:
                factor[i] = fac
                fac *= _binom(n, norm[i])
                n -= norm[i]
                i += norm[i]
            k += 1
        if not seen:
            self.file.fail(f"corrupt header: piece order {order} out of range")
        return factor, fac

    def _check_frame(self, codes, pawnful):
        key = _frame_key(codes)
        if key is None:
            self.file.fail("corrupt header: bad piece codes (not a table of regular chess)")
        want = (self.name_key,) if pawnful else (self.name_key, self.name_mkey)
        if key not in want:
            self.file.fail(f"the file holds {_name_of_key(key)}, not the {self.name} its "
                           f"name says")
        return key

    # -- the pairs header of one sub-table
    def _pairs(self, ptr, tb_size, wdl):
        F = self.file
        d = _Sub()
        d.tb_size = tb_size
        d.flags = F.u8(ptr)
        if d.flags & 0x80:
            d.const = 1
            d.min_len = F.u8(ptr + 1) if wdl else 0
            if wdl and d.min_len > 4:
                F.fail(f"corrupt header: single value {d.min_len}")
            return d, ptr + 2
        d.blocksize = F.u8(ptr + 1)
        d.idxbits = F.u8(ptr + 2)
        d.real_blocks = F.u32(ptr + 4)
        d.num_blocks = d.real_blocks + F.u8(ptr + 3)
        d.max_len = F.u8(ptr + 8)
        d.min_len = F.u8(ptr + 9)
        if not (1 <= d.min_len <= d.max_len <= MAX_MAX_LEN):
            F.fail(f"corrupt header: code lengths {d.min_len}..{d.max_len}")
        if not (1 <= d.idxbits <= 40) or d.blocksize > 24:
            F.fail(f"corrupt header: index bits {d.idxbits}, block size 2^{d.blocksize}")
        h = d.max_len - d.min_len + 1
        d.num_syms = F.u16(ptr + 10 + 2 * h)
        d.offset = ptr + 10 - 2 * d.min_len
        d.sympat = ptr + 12 + 2 * h
        nxt = ptr + 12 + 2 * h + 3 * d.num_syms + (d.num_syms & 1)
        F.check(d.sympat, 3 * d.num_syms, "the symbol table")
        d.num_idx = (tb_size + (1 << d.idxbits) - 1) >> d.idxbits
        d.sizes = (6 * d.num_idx, 2 * d.num_blocks, (1 << d.blocksize) * d.real_blocks)
        # symbol lengths: a symbol is a literal or a pair of earlier-expanded symbols
        pat = F.data[d.sympat:d.sympat + 3 * d.num_syms].astype(np.int64).reshape(-1, 3)
        left = ((pat[:, 1] & 0xF) << 8) | pat[:, 0]
        right = (pat[:, 2] << 4) | (pat[:, 1] >> 4)
        symlen = [0] * d.num_syms
        state = [0] * d.num_syms          # 0 new, 1 expanding (its pair pending), 2 done
        for s in range(d.num_syms):
            stack = [s]
            while stack:
                t = stack[-1]
                if state[t] == 2:
                    stack.pop()
                    continue
                r = int(right[t])
                if r == 0xFFF:                # a literal
                    state[t] = 2
                    stack.pop()
                    continue
                a = int(left[t])
                if a >= d.num_syms or r >= d.num_syms:
                    F.fail("corrupt header: a symbol pair names a symbol out of range")
                state[t] = 1
                pending = [x for x in {a, r} if state[x] != 2]
                if not pending:
                    symlen[t] = symlen[a] + symlen[r] + 1
                    state[t] = 2
                    stack.pop()
                    continue
                for x in pending:
                    if state[x] == 1:         # an ancestor of t: the pairs form a cycle
                        F.fail("corrupt header: the symbol pairs form a cycle")
                    stack.append(x)
        if max(symlen, default=0) > tp.SYM_MASK:
            F.fail("corrupt header: a symbol expands too far")
        # one word per symbol: expansion length, then the pair (or a literal's value)
        d.symlen = (np.array(symlen, dtype=np.int64) | (left << tp.SYM_BITS)
                    | (right << (tp.SYM_BITS + 12)))
        # canonical Huffman code bases, left-aligned in 64 bits
        base = [0] * h
        for i in range(h - 2, -1, -1):
            base[i] = (base[i + 1] + F.u16(ptr + 10 + 2 * i) - F.u16(ptr + 12 + 2 * i)) // 2
        for i in range(h):
            if base[i] < 0 or base[i] > (1 << (d.min_len + i)):
                F.fail("corrupt header: bad Huffman code counts")
            base[i] = (base[i] << (64 - (d.min_len + i))) & 0xFFFFFFFFFFFFFFFF
        d.base = np.array(base, dtype=np.uint64).view(np.int64)
        return d, nxt

    def _check_blocks(self, d, what):
        """The block index agrees with the block sizes: every main index lands inside its
        block, and the blocks cover the table (a cheap check of the index and size tables)."""
        F = self.file
        if d.const:
            return
        F.check(d.indextable, d.sizes[0], f"the {what} index table")
        F.check(d.sizetable, d.sizes[1], f"the {what} size table")
        F.check(d.data, d.sizes[2], f"the {what} data blocks")
        sizes = np.frombuffer(F.mm, dtype="<u2", count=d.num_blocks, offset=d.sizetable)
        ent = np.frombuffer(F.mm, dtype=np.dtype([("b", "<u4"), ("o", "<u2")]),
                            count=d.num_idx, offset=d.indextable)
        blocks = ent["b"].astype(np.int64)
        offs = ent["o"].astype(np.int64)
        if d.num_idx and (blocks.max() >= d.num_blocks):
            F.fail(f"corrupt {what} block index (a block number past the last block)")
        starts = np.concatenate(([0], np.cumsum(sizes.astype(np.int64) + 1)))
        if starts[d.real_blocks] != d.tb_size:
            F.fail(f"corrupt {what} block sizes (they cover {starts[d.real_blocks]} of "
                   f"{d.tb_size} positions)")
        # each main index names the block and offset of the middle of its span
        half = 1 << (d.idxbits - 1)
        want = np.arange(d.num_idx, dtype=np.int64) * (1 << d.idxbits) + half
        got = starts[blocks] + offs
        if d.num_idx and not np.array_equal(got, want):
            F.fail(f"corrupt {what} block index (it disagrees with the block sizes)")
        del sizes, ent

    def _parse(self):
        F = self.file
        if F.size % 64 != 16:
            F.fail(f"invalid file size {F.size} (a Syzygy file is 16 more than a multiple of "
                   f"64 bytes): truncated or not a table")
        magic = bytes(F.data[:4])
        want = DTZ_MAGIC if self.dtz else WDL_MAGIC
        if magic != want:
            if magic in OTHER_MAGICS:
                F.fail(f"a table of another variant ({OTHER_MAGICS[magic]}), not regular chess")
            if magic in (WDL_MAGIC, DTZ_MAGIC):
                F.fail("a WDL file named as DTZ or the other way round")
            F.fail("not a Syzygy table (bad magic number)")
        hdr = F.u8(4)
        split = hdr & 1
        files = 4 if hdr & 2 else 1
        if (files == 4) != self.has_pawns:
            F.fail("corrupt header: the pawn-file flag disagrees with the material")
        self.subs = []
        ptr = 5
        if not self.dtz:
            self._parse_wdl(ptr, split, files)
        else:
            self._parse_dtz(ptr, files)
        for i, d in enumerate(self.subs):
            if not d.missing:
                self._check_blocks(d, f"sub-table {i}")

    def _parse_wdl(self, ptr, split, files):
        F = self.file
        num = self.num
        if not self.has_pawns:
            F.check(ptr, num + 1, "the piece list")
            subs = []
            for side in range(2):
                shift = 4 * side
                codes = [(F.u8(ptr + 1 + i) >> shift) & 0xF for i in range(num)]
                order = (F.u8(ptr) >> shift) & 0xF
                key = self._check_frame(codes, False)
                norm = self._norm_piece(codes)
                factor, size = self._factors_piece(norm, order)
                subs.append((codes, norm, factor, size, key))
            if subs[0][4] != subs[1][4]:
                F.fail("corrupt header: the two sides' piece lists disagree")
            self.key = subs[0][4]
            ptr += num + 1
            ptr += ptr & 1
            parsed = []
            for side in range(2 if split else 1):
                d, ptr = self._pairs(ptr, subs[side][3], True)
                parsed.append(d)
            for side, d in enumerate(parsed):
                d.pieces, d.norm, d.factor = subs[side][0], subs[side][1], subs[side][2]
            ordered = [parsed]
        else:
            s = 1 + (self.pawns[1] > 0)
            per_file = []
            for f in range(4):
                F.check(ptr, num + s, "the piece list")
                sides = []
                for side in range(2):
                    shift = 4 * side
                    order = (F.u8(ptr) >> shift) & 0xF
                    order2 = (F.u8(ptr + 1) >> shift) & 0xF if self.pawns[1] else 0xF
                    codes = [(F.u8(ptr + i + s) >> shift) & 0xF for i in range(num)]
                    self._check_frame(codes, True)
                    self._check_pawns(codes)
                    norm = self._norm_pawn(codes)
                    factor, size = self._factors_pawn(norm, order, order2, f)
                    sides.append((codes, norm, factor, size))
                per_file.append(sides)
                ptr += num + s
            ptr += ptr & 1
            self.key = self.name_key
            self.lead = per_file[0][0][0][0]
            ordered = []
            for f in range(files):
                row = []
                for side in range(2 if split else 1):
                    d, ptr = self._pairs(ptr, per_file[f][side][3], True)
                    d.pieces, d.norm, d.factor = per_file[f][side][:3]
                    row.append(d)
                ordered.append(row)
        # index tables, size tables, then the 64-byte aligned data, in file order
        for row in ordered:
            for d in row:
                d.indextable = ptr
                ptr += d.sizes[0]
        for row in ordered:
            for d in row:
                d.sizetable = ptr
                ptr += d.sizes[1]
        for row in ordered:
            for d in row:
                ptr = (ptr + 0x3F) & ~0x3F
                d.data = ptr
                ptr += d.sizes[2]
        if ptr > F.size:
            F.fail(f"truncated: the tables need {ptr} bytes, the file has {F.size}")
        # sub-table order in meta: pawnless [side 0, side 1]; pawnful [file f: side 0, side 1]
        for row in ordered:
            if len(row) == 1:
                missing = _Sub()
                missing.missing = True
                row.append(missing)
            self.subs.extend(row)

    def _check_pawns(self, codes):
        lead = codes[0]
        if lead & 7 != 1:
            self.file.fail("corrupt header: the first piece is not a pawn")
        same = sum(1 for c in codes if c == lead)
        other = sum(1 for c in codes if c == lead ^ 8)
        if (same, other) != tuple(self.pawns):
            self.file.fail("corrupt header: the pawns disagree with the name")

    def _parse_dtz(self, ptr, files):
        F = self.file
        num = self.num
        if not self.has_pawns:
            F.check(ptr, num + 1, "the piece list")
            codes = [F.u8(ptr + 1 + i) & 0xF for i in range(num)]
            order = F.u8(ptr) & 0xF
            self.key = self._check_frame(codes, False)
            norm = self._norm_piece(codes)
            factor, size = self._factors_piece(norm, order)
            ptr += num + 1
            ptr += ptr & 1
            d, ptr = self._pairs(ptr, size, False)
            d.pieces, d.norm, d.factor = codes, norm, factor
            d.p_map = ptr
            if d.flags & 2:
                for i in range(4):
                    if not d.flags & 16:
                        d.map_idx[i] = ptr + 1 - d.p_map
                        ptr += 1 + F.u8(ptr)
                    else:
                        d.map_idx[i] = (ptr + 2 - d.p_map) // 2
                        ptr += 2 + 2 * F.u16(ptr)
            ptr += ptr & 1
            row = [d]
        else:
            s = 1 + (self.pawns[1] > 0)
            per_file = []
            for f in range(4):
                F.check(ptr, num + s, "the piece list")
                order = F.u8(ptr) & 0xF
                order2 = F.u8(ptr + 1) & 0xF if self.pawns[1] else 0xF
                codes = [F.u8(ptr + i + s) & 0xF for i in range(num)]
                self._check_frame(codes, True)
                self._check_pawns(codes)
                norm = self._norm_pawn(codes)
                factor, size = self._factors_pawn(norm, order, order2, f)
                per_file.append((codes, norm, factor, size))
                ptr += num + s
            ptr += ptr & 1
            self.key = self.name_key
            self.lead = per_file[0][0][0]
            row = []
            for f in range(files):
                d, ptr = self._pairs(ptr, per_file[f][3], False)
                d.pieces, d.norm, d.factor = per_file[f][:3]
                row.append(d)
            p_map = ptr
            for d in row:
                d.p_map = p_map
                if d.flags & 2:
                    if not d.flags & 16:
                        for i in range(4):
                            d.map_idx[i] = ptr + 1 - p_map
                            ptr += 1 + F.u8(ptr)
                    else:
                        ptr += ptr & 1
                        for i in range(4):
                            d.map_idx[i] = (ptr + 2 - p_map) // 2
                            ptr += 2 + 2 * F.u16(ptr)
            ptr += ptr & 1
        if ptr > F.size:
            F.fail("truncated: the value maps run past the end of the file")
        for d in row:
            d.indextable = ptr
            ptr += d.sizes[0]
        for d in row:
            d.sizetable = ptr
            ptr += d.sizes[1]
        for d in row:
            ptr = (ptr + 0x3F) & ~0x3F
            d.data = ptr
            ptr += d.sizes[2]
        if ptr > F.size:
            F.fail(f"truncated: the tables need {ptr} bytes, the file has {F.size}")
        self.subs = row

    def close(self):
        self.file.close()


def split_path(path):
    """Folders of a SyzygyPath value: ':'- or ';'-separated (only ';' on Windows)."""
    if not path:
        return []
    seps = ";" if os.name == "nt" else ":;"
    return [p for p in re.split("[" + re.escape(seps) + "]", path) if p.strip()]


class Tablebase:
    """Syzygy WDL and DTZ tables, memory-mapped and packed for the compiled probes."""

    def __init__(self, path=None, *, strict=False):
        self.tables = {}          # normalised name -> [wdl _TableFile or None, dtz or None]
        self.errors = []          # TablebaseError for each file that could not be loaded
        self._retired = []        # replaced files: kept open, older metas may point at them
        self.strict = strict
        self.meta = None
        self.names = []
        self._buf = tp.new_buffer()
        if path:
            self.add_path(path)
        else:
            self._build()

    # -- discovery
    def add_path(self, path):
        """Add every table in the folders of a ':'/';'-separated path; returns files added."""
        n = 0
        for folder in split_path(path):
            n += self.add_directory(folder, rebuild=False)
        self._build()
        return n

    def add_directory(self, folder, *, rebuild=True):
        """Add the tables of one folder (not its sub-folders); returns the files added."""
        if not os.path.isdir(folder):
            err = TablebaseError(folder, "no such folder")
            if self.strict:
                raise err
            self.errors.append(err)
            return 0
        n = 0
        for entry in sorted(os.listdir(folder)):
            full = os.path.join(folder, entry)
            stem, ext = os.path.splitext(entry)
            if ext not in (WDL_SUFFIX, DTZ_SUFFIX) or not os.path.isfile(full):
                continue
            try:
                n += self.add_file(full, rebuild=False)
            except TablebaseError as e:
                if self.strict:
                    raise
                self.errors.append(e)
        if rebuild:
            self._build()
        return n

    def add_file(self, path, *, rebuild=True):
        """Add one .rtbw/.rtbz file; TablebaseError naming it when it is not a valid table
        (1 added, 0 for a name that is not a table of regular chess with 7 pieces at most)."""
        stem, ext = os.path.splitext(os.path.basename(path))
        if ext not in (WDL_SUFFIX, DTZ_SUFFIX):
            return 0
        if not NAME_RE.match(stem) or len(stem) - 1 > tp.TB_PIECES or stem == "KvK":
            raise TablebaseError(path, "not a table name of regular chess (e.g. KRPvKR)")
        if normalize_name(stem) != stem:
            raise TablebaseError(path, f"table names are normalised: {normalize_name(stem)}")
        tf = _TableFile(path, stem, ext == DTZ_SUFFIX)
        slot = self.tables.setdefault(stem, [None, None])
        k = 1 if tf.dtz else 0
        if slot[k] is not None:
            self._retired.append(slot[k])
        slot[k] = tf
        if rebuild:
            self._build()
        return 1

    # -- packing
    def _build(self):
        """Pack constants, hash, table and sub-table records into a new meta array."""
        names = sorted(self.tables)
        recs = []
        subs = []
        for name in names:
            wdl, dtz = self.tables[name]
            ref = wdl or dtz
            rec = [0] * tp.TABLE_W
            rec[tp.T_NUM] = ref.num
            rec[tp.T_PAWNS] = int(ref.has_pawns)
            rec[tp.T_SYM] = int(ref.symmetric)
            rec[tp.T_PAWN0], rec[tp.T_PAWN1] = ref.pawns
            rec[tp.T_ENC] = ref.enc
            for tf, f_sub, f_key, f_lead in ((wdl, tp.T_WDL_SUB, tp.T_WDL_KEY, tp.T_WDL_LEAD),
                                             (dtz, tp.T_DTZ_SUB, tp.T_DTZ_KEY, tp.T_DTZ_LEAD)):
                if tf is None:
                    rec[f_sub] = -1
                    continue
                rec[f_sub] = len(subs)
                rec[f_key] = tf.key
                rec[f_lead] = getattr(tf, "lead", 0)
                for d in tf.subs:
                    subs.append((tf, d, len(recs)))
            recs.append(rec)
        slots = 16
        while slots < 4 * max(1, len(names)):
            slots *= 2
        n_const = tp.CONST_END
        off_hash = n_const
        off_tables = off_hash + 2 * slots
        off_subs = off_tables + tp.TABLE_W * len(recs)
        off_extra = off_subs + tp.SUB_W * len(subs)
        total = off_extra + sum(len(d.symlen) + len(d.base) for _, d, _ in subs)
        meta = np.zeros(total, dtype=np.int64)
        meta[tp.HEADER:tp.CONST_END] = _CONSTANTS
        meta[tp.M_HASH_MASK] = slots - 1
        meta[tp.M_HASH] = off_hash
        meta[tp.M_TABLES] = off_tables
        meta[tp.M_SUBS] = off_subs
        meta[tp.M_NTABLES] = len(recs)
        meta[tp.M_MAX_PIECES] = max((r[tp.T_NUM] for r in recs), default=0)
        meta[off_hash:off_tables] = -1
        for tid, name in enumerate(names):
            ref = self.tables[name][0] or self.tables[name][1]
            canon = min(ref.name_key, ref.name_mkey)
            slot = tp.hash_slot(canon, slots - 1)
            while meta[off_hash + 2 * slot] >= 0:
                slot = (slot + 1) & (slots - 1)
            meta[off_hash + 2 * slot] = canon
            meta[off_hash + 2 * slot + 1] = tid
            meta[off_tables + tid * tp.TABLE_W:off_tables + (tid + 1) * tp.TABLE_W] = recs[tid]
        at = off_extra
        for i, (tf, d, tid) in enumerate(subs):
            r = off_subs + i * tp.SUB_W
            meta[r + tp.S_ADDR] = tf.file.addr
            meta[r + tp.S_LEN] = tf.file.size
            meta[r + tp.S_TABLE] = tid
            meta[r + tp.S_PIECES:r + tp.S_PIECES + 7] = d.pieces + [0] * (7 - len(d.pieces))
            meta[r + tp.S_NORM:r + tp.S_NORM + 7] = d.norm[:7]
            meta[r + tp.S_FACTOR:r + tp.S_FACTOR + 7] = d.factor[:7]
            meta[r + tp.S_FLAGS] = d.flags
            meta[r + tp.S_CONST] = d.const
            meta[r + tp.S_IDXBITS] = d.idxbits
            meta[r + tp.S_BLOCKSIZE] = d.blocksize
            meta[r + tp.S_MINLEN] = d.min_len
            meta[r + tp.S_MAXLEN] = d.max_len
            meta[r + tp.S_NUMSYMS] = d.num_syms
            meta[r + tp.S_NUMBLOCKS] = d.num_blocks
            meta[r + tp.S_REALBLOCKS] = d.real_blocks
            meta[r + tp.S_NUMIDX] = d.num_idx
            meta[r + tp.S_INDEXTABLE] = d.indextable
            meta[r + tp.S_SIZETABLE] = d.sizetable
            meta[r + tp.S_DATA] = d.data
            meta[r + tp.S_OFFSET] = d.offset
            meta[r + tp.S_SYMPAT] = d.sympat
            meta[r + tp.S_TBSIZE] = d.tb_size
            meta[r + tp.S_PMAP] = d.p_map
            meta[r + tp.S_MAPIDX:r + tp.S_MAPIDX + 4] = d.map_idx
            meta[r + tp.S_SYMLEN] = at
            meta[at:at + len(d.symlen)] = d.symlen
            at += len(d.symlen)
            meta[r + tp.S_BASE] = at
            meta[at:at + len(d.base)] = d.base
            at += len(d.base)
        self.meta = meta
        self.names = names
        self._index = {name: i for i, name in enumerate(names)}

    # -- facts
    def __len__(self):
        return sum(1 for w, _ in self.tables.values() if w is not None)

    @property
    def num_files(self):
        return sum((w is not None) + (d is not None) for w, d in self.tables.values())

    @property
    def max_pieces(self):
        """Pieces of the largest table with a WDL file (0 when none)."""
        return max((w.num for w, _ in self.tables.values() if w is not None), default=0)

    # -- probing from Python
    def _position(self, board):
        from black_numba.board.position import from_fen
        if board.castling_rights:
            raise KeyError(f"syzygy tables do not contain positions with castling rights: "
                           f"{board.fen()}")
        return from_fen(board.fen())

    def raise_for(self, v, board_or_fen=""):
        """Raise the Python exception for a compiled probe's error result v."""
        kind, detail = tp.error_kind(v), tp.error_detail(v)
        where = board_or_fen.fen() if hasattr(board_or_fen, "fen") else str(board_or_fen)
        if kind == tp.ERR_MISSING_WDL:
            raise MissingTableError(f"did not find wdl table {normalize_name(_name_of_key(detail))}")
        if kind == tp.ERR_MISSING_DTZ:
            raise MissingTableError(f"did not find dtz table {normalize_name(_name_of_key(detail))}")
        if kind == tp.ERR_CASTLING:
            raise KeyError(f"syzygy tables do not contain positions with castling rights: {where}")
        if kind == tp.ERR_TOO_MANY:
            raise KeyError(f"syzygy tables support up to {tp.TB_PIECES} pieces, not {detail}: "
                           f"{where}")
        if kind in (tp.ERR_CORRUPT, tp.ERR_INVALID) and 0 <= detail < len(self.names):
            w, d = self.tables[self.names[detail]]
            files = " or ".join(f.path for f in (w, d) if f is not None)
            if kind == tp.ERR_CORRUPT:
                raise TablebaseError(files, f"corrupt table data met while probing {where}")
            raise ValueError(f"position outside the table {self.names[detail]} (illegal?): {where}")
        raise ValueError(f"tablebase probe failed (error {kind}, {detail}): {where}")

    def probe_wdl(self, board):
        """WDL of a chess.Board as python-chess's probe_wdl: 2, 1 (cursed win), 0, -1
        (blessed loss), -2 for the side to move."""
        pos = self._position(board)
        v = int(tp.probe_wdl(TABLES, pos, self.meta, self._buf))
        if v <= tp.TB_ERROR:
            self.raise_for(v, board)
        return v

    def probe_dtz(self, board):
        """DTZ of a chess.Board as python-chess's probe_dtz."""
        pos = self._position(board)
        v = int(tp.probe_dtz(TABLES, pos, self.meta, self._buf))
        if v <= tp.TB_ERROR:
            self.raise_for(v, board)
        return v

    def get_wdl(self, board, default=None):
        try:
            return self.probe_wdl(board)
        except KeyError:
            return default

    def get_dtz(self, board, default=None):
        try:
            return self.probe_dtz(board)
        except KeyError:
            return default

    def close(self):
        """Unmap every file. The hash of the current meta is emptied first, so a compiled
        probe with it answers "missing" (close only when no search is probing)."""
        if self.meta is not None:
            h = int(self.meta[tp.M_HASH])
            self.meta[h:h + 2 * (int(self.meta[tp.M_HASH_MASK]) + 1)] = -1
        for w, d in self.tables.values():
            for tf in (w, d):
                if tf is not None:
                    tf.close()
        for tf in self._retired:
            tf.close()
        self.tables = {}
        self._retired = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def open_tablebase(path, *, strict=False):
    """A Tablebase over a ':'/';'-separated list of folders."""
    return Tablebase(path, strict=strict)
