"""NNUE: an efficiently updatable neural network evaluation, in integer arithmetic.

Architecture (format version 1): 768 inputs (piece x square, seen from each side) -> N hidden
units per perspective (one shared feature transformer) -> clipped ReLU (CReLU, clamp to
[0, 1]) or its square (SCReLU) -> concatenation [side to move, other side] -> 1 output, from
one of B output layers chosen by the number of pieces on the board (output buckets; B = 1 is
the plain network).
Feature of a piece of colour c, type t on square sq from perspective p (the board flipped
vertically for Black):

    (c ^ p) * 384 + t * 64 + (sq ^ flip ^ 56 * p)

Input mirroring (``NN[H_MIRROR]`` = 1, a header word; 0 for the plain inputs): each
perspective sees the board mirrored between the a- and h-files (flip = 7) while its own king
stands on files e-h, so one set of weights serves both wings and the king is always on
files a-d of its own view. A king move across the d/e boundary changes every feature of its
own perspective: that accumulator is built again from the board (``update`` says which, the
caller refreshes it after making the move); the other perspective updates as usual.

King buckets (``NN[H_KBUCKETS]`` = K > 1; 1 for the plain inputs): K sets of the 768 inputs,
perspective p using set ``KING_MAP[v]`` where v is the square of p's own king in p's view
(flipped vertically for Black and, under input mirroring, between the files): feature
``bucket * 768 + feature``. The map (64 words after the header) is the network's, so any
layout loads; ``KING_LAYOUTS`` names those the trainer offers. A king move into another
bucket rebuilds its own perspective as a wing change does; ``refresh_cached`` builds it from
the last accumulator kept for that bucket and view (a refresh cache, Stockfish's
"Finny tables"), adding and removing only the pieces that differ.

Quantisation: feature weights and biases are int16 at scale QA (1.0 = 255), so an accumulator
is an int16 vector and the clipped ReLU clamps to [0, QA]; output weights are int16 at scale QB
(1.0 = 64) and the output biases int32 at QA * QB. The score in centipawns is
``(sum + bias) * OUT_SCALE // (QA * QB)`` with CReLU and, the squares carrying one more QA,
``(sum + bias * QA) * OUT_SCALE // (QA * QA * QB)`` with SCReLU. Integer addition wraps the
same way in any order, so an accumulator updated move by move equals one built from scratch,
on the CPU and on the GPU.

The network lives in one flat int16 array ``NN`` (a header, the king map, then the weights):
``NN[0]`` is the hidden size N, 0 for "no network" (the search then uses the tapered
evaluation), ``NN[H_ACT]`` the activation (CRELU, SCRELU), ``NN[H_BUCKETS]`` the number of
output buckets B and ``NN[H_KBUCKETS]`` the number of king buckets K; each output bucket's
int32 bias is kept as two int16 words after the output weights.
The functions here allocate nothing (the caller owns the accumulator ``acc[2, N+]``);
``evaluate_list`` is the GPU's path, ``output`` runs explicit CPU vector code (``simd.py``).
The file format and loading are in ``netfile.py``.
"""
import numpy as np
from numba import njit

from black_numba.board.bitboard import U0, U1, lsb, popcount
from black_numba.board.move import (
    EP_CAPTURE, castle_wing, is_castling, is_promotion, move_flag, move_from, move_to,
    piece_square, promo_piece_type,
)
from black_numba.board.position import (
    BOARD, CASTLE_KING_TO, CASTLE_ROOK, CASTLE_ROOK_TO, EMPTY, KING, PAWN, ROOK, SIDE,
)
from black_numba.evaluation.simd import LANES, screlu_dot

FEATURES = 768
MAX_HIDDEN = 1024         # accumulator rows reserved per ply (a net may use fewer)
QA = 255                  # feature-transformer scale: activations clamp to [0, QA]
QB = 64                   # output-weight scale
OUT_SCALE = 400           # network output 1.0 = 400 centipawns
EVAL_LIMIT = 20000        # network scores are clamped inside the mate range
OUT_WEIGHT_MAX = 16383    # so that N * QA * |w| < 2^31: the int32 output sum cannot overflow
INT32_MAX = 2 ** 31 - 1
# Activations, by their code in NN[H_ACT] and their name in the file's architecture.
CRELU, SCRELU = 0, 1
ACTIVATIONS = ("crelu", "screlu")
MAX_BUCKETS = 8
PIECES_MAX = 32           # output bucket of a position: (pieces - 2) // ceil(32 / B)
# Header words of NN (int16).
H_HIDDEN, H_ACT, H_BUCKETS, H_MIRROR, H_KBUCKETS = 0, 3, 4, 5, 6
HEADER = 8
KING_MAP = HEADER         # 64 words: the king bucket of each own-king square (own view)
FT_START = KING_MAP + 64  # the feature weights
MAX_KING_BUCKETS = 16
CACHE_SLOTS = 2 * MAX_KING_BUCKETS   # refresh cache entries a perspective: bucket x file flip
# King bucket layouts the trainer offers, 64 squares of the own view (a1 = 0; symmetric
# between the wings, since input mirroring reads only files a-d): "none", one set; "k4", the
# king on the back rank's wings (files a-c, f-h: castled either way), on its centre (d-e),
# on the second rank, further up; "k8", ranks 1, 2, 3 and 4-8, each split into wings and
# centre alike.
KING_CENTRE_FILES = (3, 4)


def _king_layout(rank_group, wings):
    return tuple(rank_group[sq >> 3] * wings + (1 if wings == 2 and (sq & 7) in KING_CENTRE_FILES
                                                else 0)
                 for sq in range(64))


KING_LAYOUTS = {
    "none": (0,) * 64,
    "k4": tuple(b if sq >= 8 else (1 if (sq & 7) in KING_CENTRE_FILES else 0)
                for sq, b in enumerate(_king_layout((0, 2, 3, 3, 3, 3, 3, 3), 1))),
    "k8": _king_layout((0, 1, 2, 3, 3, 3, 3, 3), 2),
}
MIRROR_FILE = 4           # input mirroring: a king on this file or beyond flips its view
FILE_FLIP = 7             # sq ^ 7 mirrors a square between the a- and h-files
NO_REFRESH = -1           # update's answer when no accumulator needs building again


def out_weight_max(hidden, activation):
    """Largest |output weight| whose int32 output sum cannot overflow: N * QA * |w| < 2^31
    with CReLU; with SCReLU N * QA^2 * |w| < 2^31, and QA * |w| fits int16 (the product of
    an activation and a weight is formed first, as vector code does)."""
    if activation == SCRELU:
        return min(INT32_MAX // (hidden * QA * QA), 32767 // QA)
    return OUT_WEIGHT_MAX


@njit(cache=True, inline='always')
def layout(hidden, buckets, kbuckets=1):
    """Offsets in NN: (feature weights [K * 768, N], feature biases [N], output weights
    [B, 2N], output biases [B] as int16 pairs, total length)."""
    fw = FT_START
    fb = fw + FEATURES * max(kbuckets, 1) * hidden
    ow = fb + hidden
    ob = ow + 2 * hidden * buckets
    return fw, fb, ow, ob, ob + 2 * buckets


def pack(ft_w, ft_b, out_w, out_b, activation=CRELU, mirror=False, king_map=None):
    """The flat int16 array NN from quantised weights: int16 ft_w [K * 768, N], ft_b [N],
    out_w [B, 2N] (or [2N] for one bucket) and int out_b [B] (or one int); mirror: input
    mirroring by the king's file; king_map: the king bucket of each of the 64 own-view
    squares (K = its largest + 1; None: one set of inputs)."""
    hidden = ft_b.shape[0]
    kmap = np.zeros(64, dtype=np.int64) if king_map is None else \
        np.asarray(king_map, dtype=np.int64).reshape(-1)
    if kmap.shape[0] != 64 or kmap.min() < 0 or kmap.max() >= MAX_KING_BUCKETS:
        raise ValueError(f"a king map gives each of 64 squares a bucket 0..{MAX_KING_BUCKETS - 1}")
    kbuckets = int(kmap.max()) + 1
    if sorted(set(kmap.tolist())) != list(range(kbuckets)):
        raise ValueError("a king map uses every bucket from 0 to its largest")
    if np.asarray(ft_w).size != FEATURES * kbuckets * hidden:
        raise ValueError(f"feature weights of {np.asarray(ft_w).size} values, "
                         f"{kbuckets} x {FEATURES} x {hidden} expected")
    out_w = np.asarray(out_w, dtype=np.int64).reshape(-1, 2 * hidden)
    out_b = np.asarray(out_b, dtype=np.int64).reshape(-1)
    buckets = out_w.shape[0]
    if not 1 <= hidden <= MAX_HIDDEN:
        raise ValueError(f"hidden size {hidden} outside 1..{MAX_HIDDEN}")
    if not 1 <= buckets <= MAX_BUCKETS or out_b.shape[0] != buckets:
        raise ValueError(f"{buckets} output buckets with {out_b.shape[0]} biases "
                         f"(1..{MAX_BUCKETS}, one bias each)")
    if activation not in (CRELU, SCRELU):
        raise ValueError(f"activation {activation} is not one of {ACTIVATIONS}")
    limit = out_weight_max(hidden, activation)
    if np.abs(out_w).max(initial=0) > limit:
        raise ValueError(f"output weights beyond +-{limit}")
    fw, fb, ow, ob, size = layout(hidden, buckets, kbuckets)
    NN = np.zeros(size, dtype=np.int16)
    NN[H_HIDDEN] = hidden
    NN[H_ACT] = activation
    NN[H_BUCKETS] = buckets
    NN[H_MIRROR] = 1 if mirror else 0
    NN[H_KBUCKETS] = kbuckets
    NN[KING_MAP:FT_START] = kmap
    NN[fw:fb] = np.asarray(ft_w, dtype=np.int16).reshape(-1)
    NN[fb:ow] = ft_b
    NN[ow:ob] = out_w.reshape(-1)
    NN[ob:size] = (out_b.astype(np.int32).astype("<i4")).view("<i2")
    return NN


def unpack(NN):
    """(ft_w [K * 768, N], ft_b [N], out_w [B, 2N], out_b int64 [B]) of a packed network."""
    hidden, buckets, kbuckets = int(NN[H_HIDDEN]), int(NN[H_BUCKETS]), kbuckets_of(NN)
    fw, fb, ow, ob, size = layout(hidden, buckets, kbuckets)
    return (NN[fw:fb].reshape(FEATURES * kbuckets, hidden), NN[fb:ow],
            NN[ow:ob].reshape(buckets, 2 * hidden),
            np.ascontiguousarray(NN[ob:size]).astype("<i2").view("<i4").astype(np.int64))


def kbuckets_of(NN):
    """K, the number of king buckets of a packed network (1: the plain inputs)."""
    return max(int(NN[H_KBUCKETS]), 1)


def king_map(NN):
    """The king map of a packed network (64 buckets), None for the plain inputs."""
    return None if kbuckets_of(NN) == 1 else tuple(int(b) for b in NN[KING_MAP:FT_START])


NO_NET = np.zeros(FT_START, dtype=np.int16)   # NN of "no network": the tapered evaluation


@njit(cache=True, inline='always')
def bucket_of(pieces, buckets):
    """Output bucket, of `buckets`, of a position with `pieces` pieces on the board (kings
    included): equal piece-count bands of ceil(32 / buckets) from two pieces up."""
    k = (pieces - 2) // ((PIECES_MAX + buckets - 1) // buckets)
    return min(max(k, 0), buckets - 1)


@njit(cache=True, inline='always')
def bucket(NN, pieces):
    """Output bucket of a position with `pieces` pieces under the packed network NN."""
    return bucket_of(pieces, np.int64(NN[H_BUCKETS]))


@njit(cache=True, inline='always')
def _bias(NN, b):
    """The int32 output bias of bucket b (two int16 words, low first)."""
    n = np.int64(NN[H_HIDDEN])
    fw, fb, ow, ob, size = layout(n, np.int64(NN[H_BUCKETS]), np.int64(NN[H_KBUCKETS]))
    lo = np.int64(NN[ob + 2 * b]) & 0xFFFF
    hi = np.int64(NN[ob + 2 * b + 1])
    return hi * 65536 + lo


@njit(cache=True, _nrt=False)
def feature(p, piece, sq, flip=0):
    """Input index of piece (colour * 6 + type) on sq from perspective p, the board mirrored
    between the a- and h-files when flip is FILE_FLIP (input mirroring, flip_of)."""
    c = piece // 6
    return piece_square((c ^ p) * 6 + piece - 6 * c, sq ^ flip ^ (56 * p))


@njit(cache=True, inline='always')
def flip_of(mirror, ksq):
    """The file flip of a perspective whose own king stands on ksq: FILE_FLIP on files e-h
    under input mirroring (mirror != 0), else 0."""
    return FILE_FLIP if mirror != 0 and (ksq & 7) >= MIRROR_FILE else 0


@njit(cache=True, inline='always')
def king_bucket(NN, p, ksq, flip):
    """The king bucket of perspective p whose own king stands on ksq (its file flip given)."""
    return np.int64(NN[KING_MAP + (ksq ^ flip ^ (56 * p))])


@njit(cache=True, inline='always')
def view_of(NN, p, ksq):
    """(file flip, first feature row) of perspective p with its own king on ksq: the row
    offset of its king bucket's set of inputs, in rows of N."""
    flip = flip_of(NN[H_MIRROR], ksq)
    return flip, king_bucket(NN, p, ksq, flip) * FEATURES


@njit(cache=True, _nrt=False)
def refresh_side(NN, bb, acc, p):
    """acc[p, :N] = perspective p's accumulator built from the bitboards bb[0:12]."""
    n = np.int64(NN[H_HIDDEN])
    fw, fb, ow, ob, size = layout(n, np.int64(NN[H_BUCKETS]), np.int64(NN[H_KBUCKETS]))
    flip, base = view_of(NN, p, np.int64(lsb(bb[p * 6 + KING])))
    for i in range(n):
        acc[p, i] = NN[fb + i]
    for piece in range(12):
        b = bb[piece]
        while b != U0:
            sq = np.int64(lsb(b))
            b &= b - U1
            row = fw + (base + feature(p, piece, sq, flip)) * n
            for i in range(n):
                acc[p, i] = _wrap(np.int64(acc[p, i]) + np.int64(NN[row + i]))


@njit(cache=True, _nrt=False)
def refresh_cached(NN, bb, acc, p, cache_acc, cache_bb, cache_ok):
    """refresh_side through a refresh cache (Stockfish's "Finny tables"): for each of
    perspective p's king buckets and file flips, the accumulator of the pieces it last saw
    (cache_acc[p, slot], cache_bb[p, slot]); only the pieces that differ since are removed
    and added. cache_ok[p, slot] == 0 marks an empty slot (a new network: clear them)."""
    n = np.int64(NN[H_HIDDEN])
    fw, fb, ow, ob, size = layout(n, np.int64(NN[H_BUCKETS]), np.int64(NN[H_KBUCKETS]))
    flip, base = view_of(NN, p, np.int64(lsb(bb[p * 6 + KING])))
    slot = 2 * (base // FEATURES) + (1 if flip != 0 else 0)
    c = cache_acc[p, slot]
    cb = cache_bb[p, slot]
    if cache_ok[p, slot] == 0:
        for i in range(n):
            c[i] = NN[fb + i]
        for piece in range(12):
            cb[piece] = U0
        cache_ok[p, slot] = 1
    for piece in range(12):
        gone = cb[piece] & ~bb[piece]
        came = bb[piece] & ~cb[piece]
        cb[piece] = bb[piece]
        while gone != U0:
            sq = np.int64(lsb(gone))
            gone &= gone - U1
            w = NN[fw + (base + feature(p, piece, sq, flip)) * n:]
            for i in range(n):
                c[i] = c[i] - w[i]
        while came != U0:
            sq = np.int64(lsb(came))
            came &= came - U1
            w = NN[fw + (base + feature(p, piece, sq, flip)) * n:]
            for i in range(n):
                c[i] = c[i] + w[i]
    for i in range(n):
        acc[p, i] = c[i]


@njit(cache=True, _nrt=False)
def refresh(NN, bb, acc):
    """acc[p, :N] = the accumulator of both perspectives built from the bitboards bb[0:12]."""
    refresh_side(NN, bb, acc, 0)
    refresh_side(NN, bb, acc, 1)


@njit(cache=True, inline='always')
def _wrap(x):
    """x reduced to int16's range as int16 arithmetic would (the GPU and the simulator agree)."""
    return ((x + 32768) & 0xFFFF) - 32768


@njit(cache=True, _nrt=False)
def output(NN, acc, stm, pieces):
    """Centipawns from the side to move's view, from the accumulator pair acc[2, N+] of a
    position with `pieces` pieces on the board."""
    n = np.int64(NN[H_HIDDEN])
    b = bucket(NN, pieces)
    fw, fb, ow, ob, size = layout(n, np.int64(NN[H_BUCKETS]), np.int64(NN[H_KBUCKETS]))
    ow += 2 * n * b
    total = np.int64(0)
    squared = NN[H_ACT] == SCRELU
    for half in range(2):
        a = acc[stm ^ half]
        w = NN[ow + half * n:ow + half * n + n]
        s = np.int32(0)
        if squared:
            # (v * w) * v with v * w formed in int16 (|QA * w| < 2^15: out_weight_max), as
            # vector code multiplies 16-bit lanes first: whole blocks of LANES units in
            # explicit 256-bit vector code (LLVM's own loop vectoriser picks 128 bits here),
            # the rest in this loop
            blocks = n // LANES
            s = screlu_dot(a, w, blocks, QA)
            for i in range(blocks * LANES, n):
                v = min(max(a[i], np.int16(0)), np.int16(QA))
                vw = np.int16(v * w[i])
                s = np.int32(s + np.int32(vw) * np.int32(v))
        else:
            for i in range(n):
                v = min(max(np.int32(a[i]), np.int32(0)), np.int32(QA))
                s = np.int32(s + v * np.int32(w[i]))
        total += s
    return _score(NN, total, b)


@njit(cache=True, inline='always')
def _score(NN, total, b):
    """Centipawns of the output sum of bucket b (clamped inside the mate range)."""
    if NN[H_ACT] == SCRELU:
        score = (total + _bias(NN, b) * QA) * OUT_SCALE // (QA * QA * QB)
    else:
        score = (total + _bias(NN, b)) * OUT_SCALE // (QA * QB)
    return min(max(score, -EVAL_LIMIT), EVAL_LIMIT)


@njit(cache=True, _nrt=False)
def evaluate_board(NN, bb, stm, acc):
    """Full evaluation of bitboards bb from the side to move's view, acc as scratch."""
    refresh(NN, bb, acc)
    pieces = 0
    for piece in range(12):
        pieces += popcount(bb[piece])
    return output(NN, acc, stm, pieces)


@njit(cache=True, _nrt=False)
def evaluate_list(NN, feats, count, stm):
    """Centipawns from the side to move's view of the position whose inputs are
    feats[p, :count] (perspective p), without an accumulator: hidden unit by hidden unit, each
    sum wrapped to int16 as the accumulators wrap. The batch evaluators' path (one GPU thread
    a position keeps only 64 indices); equal to ``output`` after ``refresh``."""
    n = np.int64(NN[H_HIDDEN])
    b = bucket(NN, count)
    fw, fb, ow, ob, size = layout(n, np.int64(NN[H_BUCKETS]), np.int64(NN[H_KBUCKETS]))
    ow += 2 * n * b
    squared = NN[H_ACT] == SCRELU
    total = np.int64(0)
    for i in range(n):
        a0 = np.int64(NN[fb + i])
        a1 = a0
        for k in range(count):
            a0 += NN[fw + feats[0, k] * n + i]
            a1 += NN[fw + feats[1, k] * n + i]
        a0 = min(max(_wrap(a0), 0), QA)
        a1 = min(max(_wrap(a1), 0), QA)
        if squared:
            a0 *= a0
            a1 *= a1
        if stm == 0:
            total += a0 * np.int64(NN[ow + i]) + a1 * np.int64(NN[ow + n + i])
        else:
            total += a1 * np.int64(NN[ow + i]) + a0 * np.int64(NN[ow + n + i])
    return _score(NN, total, b)


@njit(cache=True, _nrt=False)
def update(NN, pos, m, src, dst):
    """dst = the accumulators after move m, from src before it (pos is before the move).
    Returns the perspective whose accumulator must be built again after the move (its king
    crossing the d/e boundary under input mirroring or into another king bucket:
    refresh_side or refresh_cached), else NO_REFRESH.

    Quiet moves and promotions touch two features per perspective, captures three,
    castling four (king and rook both move; in Chess960 either may stay put). Rows are
    sliced before the loops so that LLVM sees plain contiguous int16 vectors."""
    n = np.int64(NN[H_HIDDEN])
    fw = FT_START
    frm = move_from(m)
    to = move_to(m)
    us = np.int64(pos[SIDE])
    piece = np.int64(pos[BOARD + frm])
    castling = is_castling(m)
    if castling:
        r = 2 * us + castle_wing(m)
        cap = us * 6 + ROOK                    # the rook: removed from rfrom, added on rto
        capsq = np.int64(pos[CASTLE_ROOK + r])
        placed = piece
        to = CASTLE_KING_TO[r]
        rto = CASTLE_ROOK_TO[r]
    else:
        placed = piece
        if is_promotion(m):
            placed = us * 6 + promo_piece_type(m)
        cap = np.int64(pos[BOARD + to])
        capsq = to
        if move_flag(m) == EP_CAPTURE:
            cap = (us ^ 1) * 6 + PAWN
            capsq = to ^ 8
        rto = 0
    if NN[H_MIRROR] == 0 and NN[H_KBUCKETS] <= 1:
        # the plain inputs: no flip, no refresh (a copy of the loop LLVM folds flip = 0 into)
        for p in range(2):
            _update_side(NN, n, fw, p, 0, piece, frm, placed, to, cap, capsq, rto, castling,
                         src[p], dst[p])
        return NO_REFRESH
    redo = NO_REFRESH
    if piece == us * 6 + KING:
        f0, b0 = view_of(NN, us, frm)
        f1, b1 = view_of(NN, us, to)
        if f0 != f1 or b0 != b1:
            redo = us
    for p in range(2):
        if p == redo:
            continue
        flip, base = view_of(NN, p, np.int64(lsb(pos[p * 6 + KING])))
        _update_side(NN, n, fw + base * n, p, flip, piece, frm, placed, to, cap, capsq, rto,
                     castling, src[p], dst[p])
    return redo


@njit(cache=True, inline='always')
def _update_side(NN, n, fw, p, flip, piece, frm, placed, to, cap, capsq, rto, castling, s, d):
    """Perspective p's accumulator d after the move, from s before it (update)."""
    a1 = fw + feature(p, placed, to, flip) * n
    s1 = fw + feature(p, piece, frm, flip) * n
    wa = NN[a1:a1 + n]
    ws = NN[s1:s1 + n]
    if castling:
        a2 = fw + feature(p, cap, rto, flip) * n
        s2 = fw + feature(p, cap, capsq, flip) * n
        wa2 = NN[a2:a2 + n]
        ws2 = NN[s2:s2 + n]
        for i in range(n):
            d[i] = s[i] + wa[i] - ws[i] + wa2[i] - ws2[i]
    elif cap == EMPTY:
        for i in range(n):
            d[i] = s[i] + wa[i] - ws[i]
    else:
        s2 = fw + feature(p, cap, capsq, flip) * n
        ws2 = NN[s2:s2 + n]
        for i in range(n):
            d[i] = s[i] + wa[i] - ws[i] - ws2[i]


@njit(cache=True, _nrt=False)
def copy(NN, src, dst):
    """dst = src (the null move changes no feature)."""
    n = np.int64(NN[H_HIDDEN])
    for p in range(2):
        for i in range(n):
            dst[p, i] = src[p, i]
