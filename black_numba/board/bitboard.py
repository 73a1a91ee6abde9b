"""Bitboard helpers and precomputed attack tables (magic bitboards for sliders).

All tables live in one flat uint64 array ``T`` that is passed to every compiled function, so a
changed table can never be baked into a stale compiled cache and the Python-to-Numba call
carries one array. Offsets into ``T`` are module-level integers.
"""
import numpy as np
from numba import njit

from black_numba.board.move import piece_square

U0 = np.uint64(0)
U1 = np.uint64(1)
U6 = np.uint64(6)
FULL = np.uint64(0xFFFFFFFFFFFFFFFF)
NOT_A = np.uint64(0xFEFEFEFEFEFEFEFE)
NOT_H = np.uint64(0x7F7F7F7F7F7F7F7F)
RANK_1 = np.uint64(0x00000000000000FF)
RANK_2 = np.uint64(0x000000000000FF00)
RANK_3 = np.uint64(0x0000000000FF0000)
RANK_6 = np.uint64(0x0000FF0000000000)
RANK_7 = np.uint64(0x00FF000000000000)
RANK_8 = np.uint64(0xFF00000000000000)
FILE_A = np.uint64(0x0101010101010101)

# Magic multipliers found offline by random search (plain magics, variable shift).
ROOK_MAGICS = (
    0x4080022040008010, 0x2040022000CA5000, 0x0100110020020840, 0x0180080005801000,
    0x1A00020050382004, 0x0900220811000400, 0x0480008003000A00, 0x2880010006204080,
    0x1000802280084001, 0x0005004001082080, 0x6205801000842000, 0x024A004200081020,
    0x4000800801800400, 0x1002000804CA0010, 0x2012001200040801, 0x000200040E004081,
    0x9042420022010081, 0x0C40008020018440, 0x0018420022038011, 0x8000AA0020401200,
    0x0008010008A50010, 0x0202008002801C00, 0xA200040010086102, 0x00C0860001008044,
    0x008000404000A000, 0x00A0400240201000, 0x0200200100184100, 0x0001500080080081,
    0x4284040080080080, 0x0004000C01108820, 0x0080300400613806, 0x0220802A80014900,
    0x8000604012800081, 0x0281004003002180, 0x2004821004802000, 0x0040803000801800,
    0x0000800801800400, 0x00410C0080805200, 0x0400120844002510, 0x0000800250800100,
    0xC040008420408011, 0x0622C02010044004, 0x860D500020008080, 0x0200A1009001000A,
    0x02A8000400088080, 0x0202000410020008, 0x4010A822100C0001, 0x0400038041020004,
    0x0100400080006080, 0x0010400080200880, 0x0002802000100880, 0x44A4082030010100,
    0x0000080080040080, 0x8101000294000900, 0x0827080A51106C00, 0x0000230884045200,
    0x802110810040220A, 0x0021002050804001, 0x014100401509A001, 0x0100181000210025,
    0x88020008A0100426, 0x24050002080C0001, 0x2000083210290184, 0x0110052084144102,
)

BISHOP_MAGICS = (
    0x00440810880A00C0, 0x0802080228820008, 0x06080201E6008019, 0x8814040080800020,
    0x0018484000C40C24, 0x3891821040080008, 0x0001044120080000, 0xA000820301201220,
    0x8000204604080081, 0x0802080108022042, 0x0000104C80890400, 0x80A0110C02800800,
    0x0B00011040220082, 0x102A008210408040, 0x4C00090288201822, 0x0108408600B00C04,
    0x2010004084050423, 0x008400101002004A, 0x0408007000204011, 0x1021001805450080,
    0x0140809C00A080A4, 0x04010002016A0218, 0x2004040202120600, 0x4101014200430400,
    0x0810401009220400, 0x510C240012100400, 0x0004030152020C00, 0x00400C0000410020,
    0x0510040020802100, 0x0004408024100420, 0x0108026080840400, 0x4010820403044200,
    0x048C040400401000, 0x051802380010010C, 0x000120A810040800, 0x0010C00920460200,
    0x0001100C00108020, 0x0020006881410080, 0x0008A89404030300, 0x0018092840010040,
    0x01080C142000D40C, 0x100A049248006000, 0x9101002104401000, 0x0000001148006400,
    0x40000200A2040C00, 0x1061211000811101, 0x090C081228404400, 0x0114911401042520,
    0x0002180C24140500, 0x0089008804062000, 0x04014100437000CC, 0x0004044942020000,
    0x30018410C20A0C20, 0x0000100210010000, 0x8004200202020200, 0x1820042400812700,
    0x8C10240848080808, 0x00000084009A3008, 0xC001101142024102, 0x080000040A421200,
    0x0104001250020208, 0x1100126891100080, 0x084237100A080100, 0x0040014242004500,
)

# Layout of the table array T.
KNIGHT_ATT = 0            # 64 knight attack sets
KING_ATT = 64             # 64 king attack sets
PAWN_ATT = 128        # 2 x 64 pawn attack sets, [colour * 64 + square]
ROOK_MASK = 256
ROOK_MAGIC = 320
ROOK_SHIFT = 384
ROOK_OFF = 448        # absolute index of each square's attack slice in T
BISHOP_MASK = 512
BISHOP_MAGIC = 576
BISHOP_SHIFT = 640
BISHOP_OFF = 704
BETWEEN = 768         # 64 x 64: squares strictly between two aligned squares
LINE = 4864           # 64 x 64: the whole line through two aligned squares
ZOB_PIECE = 8960      # 12 x 64 Polyglot keys by our piece index
ZOB_CASTLE = 9728     # 16: xor of the Polyglot castling keys for each rights mask
ZOB_EP = 9744         # 8 files
ZOB_SIDE = 9752       # Polyglot "white to move" key
FILE_BB = 9760        # 8 file masks
ADJ_FILES = 9768      # 8: the files beside each file
FWD_RANKS = 9776      # 2 x 8: ranks strictly ahead of a rank, for each colour
DIST = 9792           # 64 x 64 Chebyshev (king) distance
ROOK_RAYS = 13888     # 64: rook attacks on an empty board (does any rook line up at all?)
BISHOP_RAYS = 13952   # 64: bishop attacks on an empty board
SLIDER = 14016        # rook then bishop attack slices
TABLE_SIZE = SLIDER + 102400 + 5248

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_U2 = np.uint64(2)
_U4 = np.uint64(4)
_U56 = np.uint64(56)


@njit(cache=True, _nrt=False)
def popcount(x):
    """SWAR population count; LLVM turns it into one popcnt and it runs on the GPU too."""
    x = x - ((x >> U1) & _M1)
    x = (x & _M2) + ((x >> _U2) & _M2)
    x = (x + (x >> _U4)) & _M4
    return np.int64((x * _H01) >> _U56)


_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S27, _S30, _S31 = np.uint64(27), np.uint64(30), np.uint64(31)


@njit(cache=True, inline="always")
def mix64(x):
    """SplitMix64's finaliser: every input bit moves every output bit (hashes of bitboards
    that are not Zobrist keys: perft's check word, the pawn structure's index)."""
    x = (x ^ (x >> _S30)) * _MIX1
    x = (x ^ (x >> _S27)) * _MIX2
    return x ^ (x >> _S31)


@njit(cache=True, _nrt=False)
def lsb(x):
    """Index of the lowest set bit (x != 0): the bits below it, counted. Written as
    ~x & (x - 1), the form LLVM folds into one tzcnt once it has turned popcount into ctpop."""
    return popcount(~x & (x - U1))


@njit(cache=True, _nrt=False)
def rook_attacks(T, sq, occ):
    """Rook attacks from sq through occupancy occ (magic lookup)."""
    idx = ((occ & T[ROOK_MASK + sq]) * T[ROOK_MAGIC + sq]) >> T[ROOK_SHIFT + sq]
    return T[T[ROOK_OFF + sq] + idx]


@njit(cache=True, _nrt=False)
def bishop_attacks(T, sq, occ):
    """Bishop attacks from sq through occupancy occ (magic lookup)."""
    idx = ((occ & T[BISHOP_MASK + sq]) * T[BISHOP_MAGIC + sq]) >> T[BISHOP_SHIFT + sq]
    return T[T[BISHOP_OFF + sq] + idx]


@njit(cache=True, _nrt=False)
def _slide(sq, occ, dr, df):
    att = U0
    r = sq // 8 + dr
    f = sq % 8 + df
    while 0 <= r < 8 and 0 <= f < 8:
        b = U1 << np.uint64(r * 8 + f)
        att |= b
        if occ & b:
            break
        r += dr
        f += df
    return att


@njit(cache=True, _nrt=False)
def _slider_set(sq, occ, rook):
    if rook:
        return (_slide(sq, occ, 1, 0) | _slide(sq, occ, -1, 0)
                | _slide(sq, occ, 0, 1) | _slide(sq, occ, 0, -1))
    return (_slide(sq, occ, 1, 1) | _slide(sq, occ, 1, -1)
            | _slide(sq, occ, -1, 1) | _slide(sq, occ, -1, -1))


@njit(cache=True, _nrt=False)
def _fill(T, rook_magics, bishop_magics):
    for sq in range(64):
        r, f = sq // 8, sq % 8
        kn = U0
        kg = U0
        for dr in range(-2, 3):
            for df in range(-2, 3):
                rr, ff = r + dr, f + df
                if not (0 <= rr < 8 and 0 <= ff < 8) or (dr == 0 and df == 0):
                    continue
                b = U1 << np.uint64(rr * 8 + ff)
                if abs(dr) * abs(df) == 2:
                    kn |= b
                if abs(dr) <= 1 and abs(df) <= 1:
                    kg |= b
        T[KNIGHT_ATT + sq] = kn
        T[KING_ATT + sq] = kg
        T[ROOK_RAYS + sq] = _slider_set(sq, U0, True)
        T[BISHOP_RAYS + sq] = _slider_set(sq, U0, False)
        wp = U0
        bp = U0
        for df in (-1, 1):
            if 0 <= f + df < 8:
                if r < 7:
                    wp |= U1 << np.uint64((r + 1) * 8 + f + df)
                if r > 0:
                    bp |= U1 << np.uint64((r - 1) * 8 + f + df)
        T[PAWN_ATT + sq] = wp
        T[PAWN_ATT + 64 + sq] = bp
    off = SLIDER
    for rook in (True, False):
        for sq in range(64):
            r, f = sq // 8, sq % 8
            # relevant-occupancy mask: the rays without their last square
            m = U0
            full = _slider_set(sq, U0, rook)
            b = full
            while b:
                s = lsb(b)
                b &= b - U1
                sr, sf = s // 8, s % 8
                edge = False
                if rook:
                    edge = (sr == r and (sf == 0 or sf == 7)) or (sf == f and (sr == 0 or sr == 7))
                else:
                    edge = sr == 0 or sr == 7 or sf == 0 or sf == 7
                if not edge:
                    m |= U1 << np.uint64(s)
            bits = popcount(m)
            base = ROOK_MASK if rook else BISHOP_MASK
            T[base + sq] = m
            T[base + 64 + sq] = np.uint64(rook_magics[sq] if rook else bishop_magics[sq])
            T[base + 128 + sq] = np.uint64(64 - bits)
            T[base + 192 + sq] = np.uint64(off)
            # enumerate the subsets of m (Carry-Rippler)
            sub = U0
            while True:
                idx = (sub * T[base + 64 + sq]) >> T[base + 128 + sq]
                T[np.uint64(off) + idx] = _slider_set(sq, sub, rook)
                sub = (sub - m) & m
                if sub == U0:
                    break
            off += 1 << bits
    for a in range(64):
        for b in range(64):
            if a == b:
                continue
            ar, af, br, bf = a // 8, a % 8, b // 8, b % 8
            rook = ar == br or af == bf
            bish = abs(ar - br) == abs(af - bf)
            if not (rook or bish):
                continue
            ba = U1 << np.uint64(a)
            bb = U1 << np.uint64(b)
            T[BETWEEN + a * 64 + b] = _slider_set(a, bb, rook) & _slider_set(b, ba, rook)
            T[LINE + a * 64 + b] = (_slider_set(a, U0, rook) & _slider_set(b, U0, rook)) | ba | bb
    for f in range(8):
        T[FILE_BB + f] = FILE_A << np.uint64(f)
    for f in range(8):
        adj = U0
        if f > 0:
            adj |= T[FILE_BB + f - 1]
        if f < 7:
            adj |= T[FILE_BB + f + 1]
        T[ADJ_FILES + f] = adj
    for r in range(8):
        w = U0
        for rr in range(r + 1, 8):
            w |= RANK_1 << np.uint64(8 * rr)
        b = U0
        for rr in range(0, r):
            b |= RANK_1 << np.uint64(8 * rr)
        T[FWD_RANKS + r] = w
        T[FWD_RANKS + 8 + r] = b
    for a in range(64):
        for b in range(64):
            T[DIST + a * 64 + b] = np.uint64(max(abs(a // 8 - b // 8), abs(a % 8 - b % 8)))
    return off


def build_tables():
    """Return the table array T (attack sets, magics, geometry, Polyglot Zobrist keys)."""
    from chess.polyglot import POLYGLOT_RANDOM_ARRAY as R

    T = np.zeros(TABLE_SIZE, dtype=np.uint64)
    end = _fill(T, np.array(ROOK_MAGICS, dtype=np.uint64), np.array(BISHOP_MAGICS, dtype=np.uint64))
    assert end == TABLE_SIZE
    # Polyglot piece kinds: black pawn 0, white pawn 1, black knight 2, ...; ours: colour*6+type.
    for p in range(12):
        colour, ptype = divmod(p, 6)
        kind = ptype * 2 + (0 if colour else 1)
        T[ZOB_PIECE + piece_square(p, 0): ZOB_PIECE + piece_square(p + 1, 0)] = \
            R[64 * kind: 64 * kind + 64]
    for rights in range(16):
        k = 0
        for bit in range(4):
            if rights >> bit & 1:
                k ^= R[768 + bit]
        T[ZOB_CASTLE + rights] = k
    T[ZOB_EP: ZOB_EP + 8] = R[772:780]
    T[ZOB_SIDE] = R[780]
    return T


TABLES = build_tables()
