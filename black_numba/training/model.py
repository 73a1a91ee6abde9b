"""The float network the trainer fits, as compiled kernels: its inputs, forward pass,
gradients, loss and Adam step, and its quantisation into the engine's integer form.

The network is nnue.py's: one feature-transformer layer of ``hidden`` neurons a perspective
(W1, b1), clipped ReLU or its square, and an output layer a bucket (W2, b2). A position comes
as its stored piece list (dataset.py: piece * 64 + square, -1 after the last); index j past
the data's positions is position j - n mirrored between the a- and h-files (the --mirror
augmentation). Gradients are summed into one buffer set a thread, so that a run is
deterministic for a seed and a thread count.

The factoriser (king buckets only): one more set of FEATURES rows after the buckets' (from row
``factor``), shared by every bucket. Each input adds its bucket's row and the shared one, so
what all buckets have in common is learnt from every position and a bucket's own rows learn
only what differs (the cure for buckets that each see a fraction of the data); ``merged``
adds the shared set into each bucket's for the engine, which never sees it.
"""
import math

import numpy as np
from numba import njit, prange

from black_numba.board.move import code_piece, code_square
from black_numba.board.position import KING
from black_numba.evaluation import nnue

WEIGHT_CLIP = 1.98                  # |weight| bound: int16 accumulators and int32 sums are safe
NO_FACTOR = -1                      # forward's `factor` when there is no factoriser
BETA1, BETA2, ADAM_EPS = 0.9, 0.999, 1e-8


@njit(cache=True)
def input_index(code, p, mirror, view):
    """Input index of stored piece code (piece * 64 + square) from perspective p; mirror 1
    flips the board between the a- and h-files (data augmentation), view is perspective p's
    (file flip, first row of its king bucket) from perspective()."""
    flip, base = view
    return base + nnue.feature(p, code_piece(code), code_square(code) ^ (7 * mirror), flip)


@njit(cache=True)
def perspective(pieces, j, p, mirror, inputs_mirrored, kmap):
    """Perspective p's (input-mirroring flip, first feature row of its king bucket) for
    position j, from its king's square after the augmentation's mirror (nnue.view_of's
    arithmetic; kmap: the 64-square king map, all 0 for one set of inputs)."""
    for k in range(pieces.shape[1]):
        code = np.int64(pieces[j, k])
        if code < 0:
            break
        if code_piece(code) == p * 6 + KING:
            ksq = code_square(code) ^ (7 * mirror)
            flip = nnue.flip_of(inputs_mirrored, ksq)
            return flip, kmap[ksq ^ flip ^ (56 * p)] * nnue.FEATURES
    return 0, 0


@njit(cache=True)
def output_bucket(pieces, j, buckets):
    """Output bucket of position j (its pieces listed in pieces[j], -1 after the last)."""
    count = 0
    while count < pieces.shape[1] and pieces[j, count] >= 0:
        count += 1
    return nnue.bucket_of(count, buckets)


@njit(cache=True, fastmath=True)
def forward(W1, b1, W2, b2, pieces, j, us, au, ao, mirror, act, im, kmap, factor):
    """The float network's output for position j from side us (act: nnue.CRELU/SCRELU; im:
    input mirroring on; kmap: the king map; factor: the factoriser's first row, or NO_FACTOR)
    and its output bucket; au, ao keep the pre-activations."""
    n = b1.shape[0]
    flu = perspective(pieces, j, us, mirror, im, kmap)
    flo = perspective(pieces, j, us ^ 1, mirror, im, kmap)
    for i in range(n):
        au[i] = b1[i]
        ao[i] = b1[i]
    for k in range(pieces.shape[1]):
        code = np.int64(pieces[j, k])
        if code < 0:
            break
        fu = input_index(code, us, mirror, flu)
        fo = input_index(code, us ^ 1, mirror, flo)
        for i in range(n):
            au[i] += W1[fu, i]
            ao[i] += W1[fo, i]
        if factor != NO_FACTOR:
            gu = factor + fu - flu[1]           # the same input's shared row
            go = factor + fo - flo[1]
            for i in range(n):
                au[i] += W1[gu, i]
                ao[i] += W1[go, i]
    bk = output_bucket(pieces, j, b2.shape[0])
    w = bk * 2 * n
    out = b2[bk]
    for i in range(n):
        hu = min(max(au[i], 0.0), 1.0)
        ho = min(max(ao[i], 0.0), 1.0)
        if act == nnue.SCRELU:
            hu *= hu
            ho *= ho
        out += hu * W2[w + i] + ho * W2[w + n + i]
    return out, bk


@njit(cache=True, parallel=True, fastmath=True)
def gradients(W1, b1, W2, b2, pieces, stm, target, idx, k_out, act, im, kmap, factor, gW1,
              gb1, gW2, gb2, loss):
    """Gradients of the summed loss over positions idx, one buffer set per thread."""
    T = gW1.shape[0]
    n = b1.shape[0]
    m = idx.shape[0]
    for t in prange(T):
        gW1[t][:] = 0.0
        gb1[t][:] = 0.0
        gW2[t][:] = 0.0
        gb2[t][:] = 0.0
        loss[t] = 0.0
        au = np.empty(n, dtype=np.float32)
        ao = np.empty(n, dtype=np.float32)
        npos = stm.shape[0]
        for q in range(t * m // T, (t + 1) * m // T):
            j = idx[q]
            mirror = 0
            if j >= npos:            # indices past the data are its mirror images
                j -= npos
                mirror = 1
            us = np.int64(stm[j])
            out, bk = forward(W1, b1, W2, b2, pieces, j, us, au, ao, mirror, act, im, kmap,
                              factor)
            w = bk * 2 * n
            prob = 1.0 / (1.0 + math.exp(-out * k_out))
            d = prob - target[j]
            loss[t] += d * d
            g = 2.0 * d * prob * (1.0 - prob) * k_out
            gb2[t, bk] += g
            for i in range(n):
                hu = min(max(au[i], 0.0), 1.0)
                ho = min(max(ao[i], 0.0), 1.0)
                # d activation / d pre-activation inside (0, 1): 1, or 2x for the square
                du = 1.0
                do = 1.0
                if act == nnue.SCRELU:
                    du = 2.0 * hu
                    do = 2.0 * ho
                    hu *= hu
                    ho *= ho
                gW2[t, w + i] += g * hu
                gW2[t, w + n + i] += g * ho
                au[i] = g * W2[w + i] * du if 0.0 < au[i] < 1.0 else 0.0
                ao[i] = g * W2[w + n + i] * do if 0.0 < ao[i] < 1.0 else 0.0
                gb1[t, i] += au[i] + ao[i]
            flu = perspective(pieces, j, us, mirror, im, kmap)
            flo = perspective(pieces, j, us ^ 1, mirror, im, kmap)
            for k in range(pieces.shape[1]):
                code = np.int64(pieces[j, k])
                if code < 0:
                    break
                fu = input_index(code, us, mirror, flu)
                fo = input_index(code, us ^ 1, mirror, flo)
                for i in range(n):
                    gW1[t, fu, i] += au[i]
                    gW1[t, fo, i] += ao[i]
                if factor != NO_FACTOR:
                    gu = factor + fu - flu[1]
                    go = factor + fo - flo[1]
                    for i in range(n):
                        gW1[t, gu, i] += au[i]
                        gW1[t, go, i] += ao[i]


@njit(cache=True, parallel=True, fastmath=True)
def mean_loss(W1, b1, W2, b2, pieces, stm, target, idx, k_out, act, im, kmap, factor, T):
    """Mean loss over positions idx (T threads)."""
    n = b1.shape[0]
    part = np.zeros(T)
    m = idx.shape[0]
    for t in prange(T):
        au = np.empty(n, dtype=np.float32)
        ao = np.empty(n, dtype=np.float32)
        for q in range(t * m // T, (t + 1) * m // T):
            j = idx[q]
            out, bk = forward(W1, b1, W2, b2, pieces, j, np.int64(stm[j]), au, ao, 0, act, im,
                              kmap, factor)
            d = 1.0 / (1.0 + math.exp(-out * k_out)) - target[j]
            part[t] += d * d
    return part.sum() / max(m, 1)


@njit(cache=True)
def adam_step(w, g, m, v, lr, step, scale, clip):
    """One Adam step on w (flattened) with gradient g * scale, then |w| <= clip."""
    c1 = 1.0 - BETA1 ** step
    c2 = 1.0 - BETA2 ** step
    for i in range(w.shape[0]):
        gi = g[i] * scale
        m[i] = BETA1 * m[i] + (1.0 - BETA1) * gi
        v[i] = BETA2 * v[i] + (1.0 - BETA2) * gi * gi
        w[i] -= lr * (m[i] / c1) / (math.sqrt(v[i] / c2) + ADAM_EPS)
        w[i] = min(max(w[i], -clip), clip)


def factor_row(kings, factoriser):
    """The factoriser's first row of W1 for `kings` king buckets, or NO_FACTOR."""
    return np.int64(kings * nnue.FEATURES if factoriser else NO_FACTOR)


def merged(W1, kings, factoriser):
    """The feature weights the engine gets (kings sets of FEATURES rows): with a factoriser,
    its shared set added into every king bucket's, clipped to WEIGHT_CLIP (the bound the
    int16 accumulators rely on; each part is clipped to it in training, their sum may not)."""
    if not factoriser:
        return W1
    rows = kings * nnue.FEATURES
    out = W1[:rows].reshape(kings, nnue.FEATURES, -1) + W1[rows:][None]
    return np.clip(out.reshape(rows, -1), -WEIGHT_CLIP, WEIGHT_CLIP).astype(np.float32)


def quantise(W1, b1, W2, b2, activation=nnue.CRELU, inputs_mirrored=False, king_map=None):
    """The int16 network array of float weights (nnue.py's scales)."""
    q = nnue.QA
    ft_w = np.clip(np.round(W1 * q), -32767, 32767).astype(np.int16)
    ft_b = np.clip(np.round(b1 * q), -32767, 32767).astype(np.int16)
    out_w = np.clip(np.round(W2 * nnue.QB), -32767, 32767).astype(np.int16)
    out_b = np.round(b2.astype(np.float64) * q * nnue.QB).astype(np.int64)
    return nnue.pack(ft_w, ft_b, out_w, out_b, activation, inputs_mirrored, king_map)


@njit(cache=True)
def quantised_scores(NN, pieces, stm, idx):
    """Centipawns (side to move's view) of the integer network, the engine's own arithmetic,
    for positions idx."""
    boards = np.zeros(15, dtype=np.uint64)
    acc = np.zeros((2, nnue.MAX_HIDDEN), dtype=np.int16)
    out = np.zeros(idx.shape[0], dtype=np.int64)
    for q in range(idx.shape[0]):
        j = idx[q]
        boards[:] = 0
        for k in range(pieces.shape[1]):
            code = np.int64(pieces[j, k])
            if code < 0:
                break
            boards[code_piece(code)] |= np.uint64(1) << np.uint64(code_square(code))
        out[q] = nnue.evaluate_board(NN, boards, np.int64(stm[j]), acc)
    return out
