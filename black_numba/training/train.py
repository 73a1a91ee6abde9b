"""`black-numba train`: fit the network to labelled positions (a Numba trainer, no PyTorch).

    black-numba train DATA.txt[.xz] [...] --out NET.bnn [--hidden 256] [--epochs 20]
        [--lam 0.75] [--seed 1] [--batch 16384] [--lr 0.001] [--holdout 0.03] [--mirror]
        [--activation crelu|screlu] [--buckets 1] [--input-mirror] [--king-buckets none|k4|k8]
        [--schedule step|cosine] [--filter compensation] [--init NET] [--syzygy PATH]
    black-numba train DATA... --like NET.bnn --out AGAIN.bnn   # retrain NET, compare hashes

Loss: mean squared error between sigmoid(K_eval * net / 400) and the target
lam * sigmoid(K_label * score / 400) + (1 - lam) * result, all from the side to move's view.
K_eval is the logistic scale fitted for the tapered evaluation on the same data, so a network
score of 100 cp carries the tapered evaluation's win probability (resign and draw offers,
adjudication, time management and pruning margins read the score); K_label is fitted the same
way for the labels' scores. The last ``holdout`` of every file (whole games, the files are in
game order) is held out and its loss printed each epoch, with the loss of the quantised net at
the end. Float32 weights, Adam, mini-batches spread over the cores; weights are clipped so the
int16 quantisation (nnue.py) cannot overflow. Deterministic for a seed and thread count.
"""
import math
import os
import sys
import time

import numpy as np
from numba import get_num_threads, njit, prange

from black_numba.evaluation import netfile, nnue

from black_numba.provenance import file_sha256
from black_numba.training import chunks, dataset
from black_numba.board.move import code_piece, code_square
from black_numba.board.position import KING

WEIGHT_CLIP = 1.98                  # |weight| bound: int16 accumulators and int32 sums are safe
BETA1, BETA2, ADAM_EPS = 0.9, 0.999, 1e-8
LR_DROP_EPOCH = 0.75                # step schedule: learning rate x0.1 for the last quarter
LR_FLOOR = 0.05                     # cosine schedule: the rate decays to this share of --lr
SCHEDULES = ("step", "cosine")
K_SAMPLE = 200_000                  # positions used to fit the logistic scales
LABEL_SAMPLE = 2_000_000            # positions the labels' scale is fitted on (streamed data)
BUFFER_POSITIONS = 8_000_000        # --buffer: positions held at once (about 0.7 GB)
CHUNK_POSITIONS = 250_000           # consecutive positions read together into the buffer
FILTER_BLOCK = 2_000_000            # positions read at a time while filtering
# --filter compensation (after Patricia's position filter): positions whose side to move has
# COMP_MIN_DEFICIT or more material (100, 300, 300, 500, 900) less than its opponent, with
# COMP_MIN_TOTAL or more on the board, and a score label (its own view) above
# COMP_SCORE_FLOOR: material given for play. A net fine-tuned on them (--init) values
# compensation more: the Aggressive style's network.
COMP_MIN_DEFICIT = 100
COMP_MIN_TOTAL = 2500
COMP_SCORE_FLOOR = -50
# --filter won-compensation (after Patricia's result-conditioned filter): positions where one
# side's score label exceeds its material balance by more than WON_GAP, it is not up more than
# WON_MAX_LEAD in material, WON_MIN_TOTAL or more is on the board, and that side won the game:
# compensation the game bore out, from either side's view.
WON_GAP = 400
WON_MAX_LEAD = 100
WON_MIN_TOTAL = 3000
_PIECE_VALUE = np.array([100, 300, 300, 500, 900, 0], dtype=np.int64)
FILTERS = ("compensation", "won-compensation")


@njit(cache=True)
def _features(code, p, mirror, view):
    """Input index of stored piece code (piece * 64 + square) from perspective p; mirror 1
    flips the board between the a- and h-files (data augmentation), view is perspective p's
    (file flip, first row of its king bucket) from _view."""
    flip, base = view
    return base + nnue.feature(p, code_piece(code), code_square(code) ^ (7 * mirror), flip)


@njit(cache=True)
def _view(pieces, j, p, mirror, inputs_mirrored, kmap):
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
def _material(pieces, j):
    """(White's material minus Black's, both together) of position j, in _PIECE_VALUE."""
    white = 0
    total = 0
    for k in range(pieces.shape[1]):
        code = np.int64(pieces[j, k])
        if code < 0:
            break
        piece = code_piece(code)
        v = _PIECE_VALUE[piece % 6]
        total += v
        if piece // 6 == 0:
            white += v
    return white - (total - white), total


@njit(cache=True)
def _compensation(pieces, stm, score, result, keep):
    """keep[j] = position j passes --filter compensation."""
    for j in range(stm.shape[0]):
        balance, total = _material(pieces, j)
        deficit = -balance if stm[j] == 0 else balance
        mine = score[j] if stm[j] == 0 else -score[j]
        keep[j] = total >= COMP_MIN_TOTAL and deficit >= COMP_MIN_DEFICIT and \
            mine > COMP_SCORE_FLOOR


@njit(cache=True)
def _won_compensation(pieces, stm, score, result, keep):
    """keep[j] = position j passes --filter won-compensation (score and result are White's
    view; the test is made for White and for Black)."""
    for j in range(stm.shape[0]):
        material, total = _material(pieces, j)
        gap = np.int64(score[j]) - material
        keep[j] = total >= WON_MIN_TOTAL and (
            (gap > WON_GAP and material < WON_MAX_LEAD and result[j] == 1.0) or
            (gap < -WON_GAP and material > -WON_MAX_LEAD and result[j] == 0.0))


_KEEP = {"compensation": _compensation, "won-compensation": _won_compensation}


@njit(cache=True)
def _bucket(pieces, j, buckets):
    """Output bucket of position j (its pieces listed in pieces[j], -1 after the last)."""
    count = 0
    while count < pieces.shape[1] and pieces[j, count] >= 0:
        count += 1
    return nnue.bucket_of(count, buckets)


@njit(cache=True, fastmath=True)
def _forward(W1, b1, W2, b2, pieces, j, us, au, ao, mirror, act, im, kmap):
    """The float network's output for position j from side us (act: nnue.CRELU/SCRELU; im:
    input mirroring on; kmap: the king map) and its output bucket; au, ao keep the
    pre-activations."""
    n = b1.shape[0]
    flu = _view(pieces, j, us, mirror, im, kmap)
    flo = _view(pieces, j, us ^ 1, mirror, im, kmap)
    for i in range(n):
        au[i] = b1[i]
        ao[i] = b1[i]
    for k in range(pieces.shape[1]):
        code = np.int64(pieces[j, k])
        if code < 0:
            break
        fu = _features(code, us, mirror, flu)
        fo = _features(code, us ^ 1, mirror, flo)
        for i in range(n):
            au[i] += W1[fu, i]
            ao[i] += W1[fo, i]
    bk = _bucket(pieces, j, b2.shape[0])
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
def _grad(W1, b1, W2, b2, pieces, stm, target, idx, k_out, act, im, kmap, gW1, gb1, gW2, gb2,
          loss):
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
            out, bk = _forward(W1, b1, W2, b2, pieces, j, us, au, ao, mirror, act, im, kmap)
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
            flu = _view(pieces, j, us, mirror, im, kmap)
            flo = _view(pieces, j, us ^ 1, mirror, im, kmap)
            for k in range(pieces.shape[1]):
                code = np.int64(pieces[j, k])
                if code < 0:
                    break
                fu = _features(code, us, mirror, flu)
                fo = _features(code, us ^ 1, mirror, flo)
                for i in range(n):
                    gW1[t, fu, i] += au[i]
                    gW1[t, fo, i] += ao[i]


@njit(cache=True, parallel=True, fastmath=True)
def _loss(W1, b1, W2, b2, pieces, stm, target, idx, k_out, act, im, kmap, T):
    """Mean loss over positions idx (T threads)."""
    n = b1.shape[0]
    part = np.zeros(T)
    m = idx.shape[0]
    for t in prange(T):
        au = np.empty(n, dtype=np.float32)
        ao = np.empty(n, dtype=np.float32)
        for q in range(t * m // T, (t + 1) * m // T):
            j = idx[q]
            out, bk = _forward(W1, b1, W2, b2, pieces, j, np.int64(stm[j]), au, ao, 0, act, im,
                               kmap)
            d = 1.0 / (1.0 + math.exp(-out * k_out)) - target[j]
            part[t] += d * d
    return part.sum() / max(m, 1)


@njit(cache=True)
def _adam(w, g, m, v, lr, step, scale, clip):
    """One Adam step on w (flattened) with gradient g * scale, then |w| <= clip."""
    c1 = 1.0 - BETA1 ** step
    c2 = 1.0 - BETA2 ** step
    for i in range(w.shape[0]):
        gi = g[i] * scale
        m[i] = BETA1 * m[i] + (1.0 - BETA1) * gi
        v[i] = BETA2 * v[i] + (1.0 - BETA2) * gi * gi
        w[i] -= lr * (m[i] / c1) / (math.sqrt(v[i] / c2) + ADAM_EPS)
        w[i] = min(max(w[i], -clip), clip)


@njit(cache=True)
def _boards(pieces, boards):
    """Bitboards [n, 15] of stored piece lists (for the tapered evaluation's scale fit)."""
    for j in range(pieces.shape[0]):
        for k in range(pieces.shape[1]):
            code = np.int64(pieces[j, k])
            if code < 0:
                break
            b = np.uint64(1) << np.uint64(code_square(code))
            piece = code_piece(code)
            boards[j, piece] |= b
            boards[j, 12 + piece // 6] |= b
            boards[j, 14] |= b


def fit_scale(score, result):
    """K minimising mean (sigmoid(K * score / 400) - result)^2 (golden-section search)."""
    s = score.astype(np.float64)
    r = result.astype(np.float64)

    def err(k):
        return float(np.mean((1.0 / (1.0 + np.exp(-k * s / 400.0)) - r) ** 2))

    lo, hi = 0.05, 5.0
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    for _ in range(60):
        if err(a) < err(b):
            hi = b
        else:
            lo = a
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    return (lo + hi) / 2


def tapered(pieces, stm):
    """The tapered evaluation of stored positions (White's view)."""
    from black_numba.evaluation.batch import evaluate_cpu
    boards = np.zeros((len(stm), 15), dtype=np.uint64)
    _boards(pieces, boards)
    return evaluate_cpu(boards, stm)


def tapered_scale(pieces, stm, result, sample, rng):
    """K of the tapered evaluation on a sample of the data (White's view both)."""
    pick = rng.choice(len(stm), size=min(sample, len(stm)), replace=False)
    return fit_scale(tapered(pieces[pick], stm[pick]), result[pick])


def split(lengths, holdout):
    """(train index, held-out index): the last `holdout` of every file is held out."""
    tr, te, start = [], [], 0
    for n in lengths:
        cut = start + int(round(n * (1.0 - holdout)))
        tr.append(np.arange(start, cut))
        te.append(np.arange(cut, start + n))
        start += n
    return np.concatenate(tr).astype(np.int64), np.concatenate(te).astype(np.int64)


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


def _bar(done, total, width=30):
    k = int(width * done / max(total, 1))
    return "[" + "#" * k + "." * (width - k) + f"] {100.0 * done / max(total, 1):5.1f}%"


def _targets(score, stm, result, k_label, lam):
    """Training targets from the side to move's view: lam * label probability + (1 - lam) *
    result."""
    sign = np.where(stm == 0, 1.0, -1.0)
    p_label = 1.0 / (1.0 + np.exp(-k_label * score * sign / 400.0))
    res_stm = np.where(stm == 0, result, 1.0 - result)
    return (lam * p_label + (1.0 - lam) * res_stm).astype(np.float32)


class _InMemory:
    """Every position in memory, shuffled whole each epoch (data no larger than the buffer).
    scales: (K of the evaluation, K of the labels) to use instead of fitting them (a
    fine-tuned net keeps its base's)."""

    def __init__(self, stores, holdout, k_sample, rng, mirror, batch, lam, scales=None):
        parts = [st.read(0, st.n) for st in stores]
        arrays = tuple(np.concatenate([p[k] for p in parts]) for k in range(4))
        del parts
        self._setup(arrays, *split([st.n for st in stores], holdout), k_sample, rng, mirror,
                    batch, lam, scales)

    def _setup(self, arrays, tr, te, k_sample, rng, mirror, batch, lam, scales):
        self.pieces, self.stm, self.score, self.result = arrays
        self.tr = tr
        if scales is None:
            self.k_eval = tapered_scale(self.pieces, self.stm, self.result, k_sample, rng)
            self.k_label = fit_scale(self.score, self.result)
        else:
            self.k_eval, self.k_label = scales
        self.target = _targets(self.score, self.stm, self.result, self.k_label, lam)
        self.held = (self.pieces, self.stm, self.score, self.result, te)
        self.pool = np.concatenate([self.tr, self.tr + len(self.stm)]) if mirror else self.tr
        self.batch = batch
        self.n_train = len(self.tr)

    def steps(self):
        return max(1, len(self.pool) // self.batch)

    def loads(self, rng, lam):
        yield self.pieces, self.stm, self.target, self.pool[rng.permutation(len(self.pool))]


class _Filtered(_InMemory):
    """The positions of every file that pass a filter (FILTERS), held in memory: each file is
    read FILTER_BLOCK positions at a time, its last `holdout` held out before filtering."""

    def __init__(self, stores, holdout, k_sample, rng, mirror, batch, lam, keep_fn,
                 scales=None, others=0.0, seed=1):
        train_parts, held_parts = [], []
        for i, st in enumerate(stores):
            cut = int(round(st.n * (1.0 - holdout)))
            for lo, hi, into in ((0, cut, train_parts), (cut, st.n, held_parts)):
                for a in range(lo, hi, FILTER_BLOCK):
                    arrays = st.read(a, min(a + FILTER_BLOCK, hi))
                    keep = np.zeros(len(arrays[1]), dtype=np.bool_)
                    keep_fn(arrays[0], arrays[1], arrays[2], arrays[3], keep)
                    if others > 0.0:
                        # and a share of the rest, drawn by (seed, file, block): the same
                        # positions every run, whatever else is read
                        draw = np.random.default_rng([seed, i, a]).random(len(keep))
                        keep |= draw < others
                    into.append(tuple(x[keep] for x in arrays))
        n_tr = sum(len(p[1]) for p in train_parts)
        n_te = sum(len(p[1]) for p in held_parts)
        if n_tr == 0 or n_te == 0:
            raise ValueError("the filter keeps no positions to train on or to hold out "
                             "(a --holdout of 0 holds none out)")
        parts = train_parts + held_parts
        arrays = tuple(np.concatenate([p[k] for p in parts]) for k in range(4))
        del parts, train_parts, held_parts
        self._setup(arrays, np.arange(n_tr, dtype=np.int64),
                    np.arange(n_tr, n_tr + n_te, dtype=np.int64), k_sample, rng, mirror,
                    batch, lam, scales)


def _initial(path, hidden, act, buckets, input_mirror, king_buckets):
    """Float weights (W1, b1, W2, b2) of the network file `path` (its quantised values
    scaled back), which must have the architecture asked for; and its header."""
    NN, head = netfile.load(path)
    want = (hidden, act, buckets, 1 if input_mirror else 0,
            None if king_buckets == "none" else nnue.KING_LAYOUTS[king_buckets])
    have = (int(NN[nnue.H_HIDDEN]), int(NN[nnue.H_ACT]), int(NN[nnue.H_BUCKETS]),
            int(NN[nnue.H_MIRROR]), nnue.king_map(NN))
    if have != want:
        asked = (f"--hidden {hidden} --activation {nnue.ACTIVATIONS[act]} --buckets {buckets}"
                 f"{' --input-mirror' if input_mirror else ''} --king-buckets {king_buckets}")
        raise ValueError(f"--init {path}: its architecture ({head['architecture']}, "
                         f"{head['inputs']}) is not the one asked for ({asked})")
    ft_w, ft_b, out_w, out_b = nnue.unpack(NN)
    return ((ft_w / nnue.QA).astype(np.float32), (ft_b / nnue.QA).astype(np.float32),
            (out_w.reshape(-1) / nnue.QB).astype(np.float32),
            (out_b / (nnue.QA * nnue.QB)).astype(np.float32)), head


class _Streamed:
    """Shuffling through a buffer: each epoch visits the training positions in chunks of
    CHUNK_POSITIONS consecutive positions (a few thousand games) in a random order; a buffer
    of up to `buffer` positions is filled with chunks from anywhere in the data, shuffled and
    trained on, then refilled. Memory: the buffer, the held-out positions and a sample for the
    logistic scales, whatever the data's size."""

    def __init__(self, stores, holdout, k_sample, rng, mirror, batch, buffer, chunk):
        self.stores, self.mirror, self.batch, self.buffer = stores, mirror, batch, buffer
        self.chunks = []
        held = []
        for i, st in enumerate(stores):
            cut = int(round(st.n * (1.0 - holdout)))
            self.chunks += [(i, a, min(a + chunk, cut)) for a in range(0, cut, chunk)]
            held.append(st.read(cut, st.n))
        self.n_train = sum(b - a for _, a, b in self.chunks)
        pieces, stm, score, result = (np.concatenate([h[k] for h in held]) for k in range(4))
        self.held = (pieces, stm, score, result, np.arange(len(stm), dtype=np.int64))
        pieces, stm, score, result = self._sample(min(k_sample, self.n_train), rng)
        self.k_eval = fit_scale(tapered(pieces, stm), result)
        _, _, score, result = self._sample(min(LABEL_SAMPLE, self.n_train), rng)
        self.k_label = fit_scale(score, result)

    def _sample(self, k, rng):
        """Arrays of k training positions drawn without replacement."""
        pick = np.sort(rng.choice(self.n_train, size=k, replace=False))
        starts = np.cumsum([0] + [b - a for _, a, b in self.chunks])
        parts = []
        for c, (i, a, b) in enumerate(self.chunks):
            lo, hi = np.searchsorted(pick, [starts[c], starts[c + 1]])
            if hi > lo:
                parts.append(self.stores[i].take(pick[lo:hi] - starts[c] + a))
        return tuple(np.concatenate([p[k] for p in parts]) for k in range(4))

    def _groups(self, order):
        group, size = [], 0
        for c in order:
            n = self.chunks[c][2] - self.chunks[c][1]
            if group and size + n > self.buffer:
                yield group
                group, size = [], 0
            group.append(c)
            size += n
        if group:
            yield group

    def steps(self):
        m = 2 if self.mirror else 1
        sizes = [self.chunks[c][2] - self.chunks[c][1] for c in range(len(self.chunks))]
        return max(1, sum(sizes) * m // self.batch)

    def loads(self, rng, lam):
        for group in self._groups(rng.permutation(len(self.chunks))):
            parts = [self.stores[self.chunks[c][0]].read(*self.chunks[c][1:]) for c in group]
            pieces, stm, score, result = (np.concatenate([p[k] for p in parts])
                                          for k in range(4))
            del parts
            target = _targets(score, stm, result, self.k_label, lam)
            n = len(stm)
            pool = np.arange(2 * n if self.mirror else n, dtype=np.int64)
            yield pieces, stm, target, pool[rng.permutation(len(pool))]


def train(paths, out, hidden=256, epochs=20, lam=0.75, seed=1, batch=16384, lr=1e-3,
          holdout=0.03, log=sys.stderr, k_sample=K_SAMPLE, quiet=False, mirror=False,
          activation="crelu", buckets=1, buffer=BUFFER_POSITIONS, chunk=CHUNK_POSITIONS,
          schedule="step", lr_floor=LR_FLOOR, input_mirror=False, king_buckets="none",
          data_filter=None, init=None, filter_others=0.0, syzygy=None):
    """Train a network on the files in paths and write it to out; returns its header. Data
    of at most `buffer` positions is held whole; more is shuffled through a buffer of that
    many positions (_Streamed)."""
    t_start = time.time()
    if not paths:
        raise ValueError("no training files given")
    if king_buckets not in nnue.KING_LAYOUTS:
        raise ValueError(f"king buckets {king_buckets!r} is not one of "
                         f"{', '.join(nnue.KING_LAYOUTS)}")
    kmap = np.array(nnue.KING_LAYOUTS[king_buckets], dtype=np.int64)
    kb = int(kmap.max()) + 1
    if input_mirror and mirror:
        # under input mirroring a position and its a-h mirror image have the same inputs
        raise ValueError("--mirror adds nothing with --input-mirror: the mirrored copies "
                         "have the same inputs")
    if data_filter is not None and data_filter not in FILTERS:
        raise ValueError(f"filter {data_filter!r} is not one of {', '.join(FILTERS)}")
    if not 0.0 <= filter_others <= 1.0:
        raise ValueError("--filter-others is a share, 0 to 1")
    if filter_others and data_filter is None:
        raise ValueError("--filter-others goes with --filter")
    act = nnue.ACTIVATIONS.index(activation)
    start = scales = None
    if init is not None:
        # fine-tuning: the base net's weights, and its logistic scales (the score keeps its
        # meaning whatever positions the tuning sees)
        start, base = _initial(init, hidden, act, buckets, input_mirror, king_buckets)
        t0 = base.get("trained", {})
        if "k_eval" not in t0 or "k_label" not in t0:
            raise ValueError(f"--init {init}: its header records no logistic scales (not made "
                             f"by black-numba train), so a tuned net's scores would change "
                             f"their meaning")
        scales = (float(t0["k_eval"]), float(t0["k_label"]))
    stores = [dataset.Stored(p, log) for p in paths]
    tb_summary = None
    if syzygy is not None:
        # exact endgame labels from the tables (tblabels.py), stored beside each file's arrays
        from black_numba.training import tblabels
        stores, tb_summary = tblabels.relabel_stores(stores, syzygy, log)
    rng = np.random.default_rng(seed)
    total = sum(st.n for st in stores)
    if data_filter is not None:
        data = _Filtered(stores, holdout, k_sample, rng, mirror, batch, lam, _KEEP[data_filter],
                         scales, filter_others, seed)
    elif total <= buffer:
        data = _InMemory(stores, holdout, k_sample, rng, mirror, batch, lam, scales)
    else:
        data = _Streamed(stores, holdout, k_sample, rng, mirror, batch, buffer,
                         min(chunk, buffer))
        if scales is not None:
            data.k_eval, data.k_label = scales
    streamed = isinstance(data, _Streamed)
    k_eval, k_label = data.k_eval, data.k_label
    hp, hs, hsc, hr, te = data.held
    sign_te = np.where(hs[te] == 0, 1.0, -1.0)
    target_te = _targets(hsc[te], hs[te], hr[te], k_label, lam)
    ev = tapered(hp[te], hs[te]) * sign_te
    tapered_loss = float(np.mean((1.0 / (1.0 + np.exp(-k_eval * ev / 400.0)) - target_te) ** 2))
    held_target = np.zeros(len(hs), dtype=np.float32)
    held_target[te] = target_te
    im = 1 if input_mirror else 0
    # the output weights' bound: the integer output sum cannot overflow (nnue.out_weight_max)
    out_clip = min(WEIGHT_CLIP, (nnue.out_weight_max(hidden, act) - 0.5) / nnue.QB)
    print(f"train: {data.n_train:,} positions, held out {len(te):,}"
          f"{f', shuffled through a buffer of {buffer:,}' if streamed else ''}; "
          f"K tapered {k_eval:.3f}, "
          f"K labels {k_label:.3f}; hidden {hidden} {activation}, lam {lam}, seed {seed}, "
          f"mirror {mirror}, output buckets {buckets}, king buckets {king_buckets}; "
          f"tapered evaluation's held-out loss {tapered_loss:.6f}", file=log)

    W1 = (rng.standard_normal((nnue.FEATURES * kb, hidden)) * 0.05).astype(np.float32)
    b1 = (rng.random(hidden) * 0.2).astype(np.float32)
    W2 = (rng.standard_normal(2 * hidden * buckets) / math.sqrt(2 * hidden)).astype(np.float32)
    b2 = np.zeros(buckets, dtype=np.float32)
    if start is not None:
        W1, b1, W2, b2 = start
    params = (W1, b1, W2, b2)
    moments = [(np.zeros(p.size, np.float32), np.zeros(p.size, np.float32)) for p in params]
    T = get_num_threads()
    grads = (np.zeros((T, nnue.FEATURES * kb, hidden), np.float32),
             np.zeros((T, hidden), np.float32),
             np.zeros((T, 2 * hidden * buckets), np.float32),
             np.zeros((T, buckets), np.float32))
    loss = np.zeros(T)
    k_out = np.float32(k_eval * nnue.OUT_SCALE / 400.0)
    steps_per_epoch = data.steps()
    step = 0
    history = []
    total_steps = max(1, epochs * steps_per_epoch)
    for epoch in range(1, epochs + 1):
        rate = lr * (0.1 if epoch > LR_DROP_EPOCH * epochs else 1.0)
        t0 = time.time()
        tot = 0.0
        done = 0
        for pieces, stm, target, order in data.loads(rng, lam):
            for b in range(len(order) // batch if streamed else steps_per_epoch):
                idx = order[b * batch:(b + 1) * batch]
                _grad(W1, b1, W2, b2, pieces, stm, target, idx, k_out, act, im, kmap, *grads,
                      loss)
                tot += loss.sum()
                step += 1
                done += 1
                if schedule == "cosine":
                    # cosine decay from lr to lr * lr_floor over every step of the run
                    rate = lr * (lr_floor + (1.0 - lr_floor) * 0.5
                                 * (1.0 + math.cos(math.pi * min(1.0, (step - 1) / total_steps))))
                for p, g, (m, v) in zip(params, grads, moments):
                    _adam(p.reshape(-1), g.sum(axis=0).reshape(-1), m, v, np.float32(rate),
                          step, np.float32(1.0 / len(idx)),
                          np.float32(1e9 if p is b1 else out_clip if p is W2 else WEIGHT_CLIP))
                if not quiet and (done % 8 == 1 or done == steps_per_epoch):
                    print(f"\repoch {epoch}/{epochs} {_bar(done, steps_per_epoch)}", end="",
                          file=log, flush=True)
        train_loss = tot / (max(done, 1) * batch)
        test_loss = _loss(W1, b1, W2, b2, hp, hs, held_target, te, k_out, act, im, kmap, T)
        history.append((epoch, train_loss, test_loss))
        print(f"\repoch {epoch}/{epochs}  train {train_loss:.6f}  held out {test_loss:.6f}  "
              f"lr {rate:g}  {time.time() - t0:.1f} s", file=log, flush=True)
    NN = quantise(W1, b1, W2, b2, act, input_mirror,
                  None if king_buckets == "none" else nnue.KING_LAYOUTS[king_buckets])
    cp = quantised_scores(NN, hp, hs, te)
    q_loss = float(np.mean((1.0 / (1.0 + np.exp(-k_eval * cp / 400.0)) - target_te) ** 2))
    k_net = fit_scale(cp * sign_te, hr[te])
    print(f"quantised net: held out {q_loss:.6f} (float {history[-1][2]:.6f}); logistic "
          f"scale on held-out results: network {k_net:.3f}, tapered {k_eval:.3f}", file=log)
    meta = {"trained": {"data": [p.rsplit("/", 1)[-1] for p in paths],
                        "data_sha256": [file_sha256(p) for p in paths],
                        "data_positions": [int(st.n) for st in stores],
                        "activation": activation,
                        "positions": int(data.n_train), "held_out": int(len(te)),
                        "epochs": epochs,
                        "tapered_held_out_loss": round(tapered_loss, 6), "lam": lam, "mirror": mirror,
                        "output_buckets": buckets,
                        "seed": seed, "batch": batch, "lr": lr,
                        **({"input_mirror": True} if input_mirror else {}),
                        **({"king_buckets": king_buckets} if king_buckets != "none" else {}),
                        **({"filter": data_filter} if data_filter else {}),
                        **({"filter_others": filter_others} if filter_others else {}),
                        **({"syzygy": tb_summary} if tb_summary else {}),
                        **({"init": {"file": os.path.basename(init),
                                     "weights_sha256": base["weights_sha256"]}}
                           if init else {}),
                        **({"schedule": schedule, "lr_floor": lr_floor}
                           if schedule != "step" else {}),
                        "holdout": holdout, "threads": T, "k_eval": round(k_eval, 4),
                        "k_label": round(k_label, 4),
                        "held_out_loss": round(float(history[-1][2]), 6),
                        "quantised_held_out_loss": round(float(q_loss), 6),
                        "k_net_held_out": round(k_net, 4),
                        "epochs_loss": [[e, round(float(a), 6), round(float(b), 6)]
                                        for e, a, b in history]}}
    head = netfile.save(out, NN, **meta)
    print(f"wrote {out} (sha256 {head['weights_sha256'][:16]}) in {time.time() - t_start:.0f} s",
          file=log)
    return head


def _activation_of(head):
    """A header's activation: recorded by the trainer, else the architecture string's."""
    t = head.get("trained", {})
    if "activation" in t:
        return t["activation"]
    words = head["architecture"].replace(",", " ").split()
    return next(a for a in nnue.ACTIVATIONS if a in words)


def like(net, paths, out, log=sys.stderr, syzygy=None, places=()):
    """Train again the network in file `net` from `paths` with the settings its header
    records, into `out`; True when the weights come out bit for bit the same. The files must
    be the header's, in its order (by name, and by SHA-256 where the header has them)."""
    _, head = netfile.load(net)
    t = head.get("trained")
    if not t:
        raise ValueError(f"{net} records no training (not made by black-numba train)")
    names = [p.rsplit("/", 1)[-1] for p in paths]
    if names != t["data"]:
        raise ValueError(f"{net} was trained on {' '.join(t['data'])} (in that order), "
                         f"not {' '.join(names)}")
    for p, want in zip(paths, t.get("data_sha256", [None] * len(paths))):
        if want is not None and file_sha256(p) != want:
            raise ValueError(f"{p}: SHA-256 differs from the one {net} records ({want[:16]}...)")
    kings = t.get("king_buckets", "none")
    if kings not in nnue.KING_LAYOUTS or \
            list(nnue.KING_LAYOUTS[kings]) != head.get("king_buckets", list(nnue.KING_LAYOUTS["none"])):
        raise ValueError(f"{net}'s king map is not this trainer's layout {kings!r}: it cannot "
                         f"be trained again alike")
    if t.get("threads", get_num_threads()) != get_num_threads():
        print(f"note: {net} was trained with {t['threads']} threads, this run has "
              f"{get_num_threads()} (NUMBA_NUM_THREADS): float sums may differ", file=log)
    # the tables it was trained with: --syzygy's, else the folder its header names
    tables = (syzygy or t["syzygy"]["path"]) if "syzygy" in t else None
    init = None
    if "init" in t:
        init = _find_net(t["init"], [os.path.dirname(os.path.abspath(net))] +
                         [p for p in places if os.path.isdir(p)] + NET_PLACES)
    again = train(paths, out, hidden=int(head["hidden"]), epochs=t["epochs"], lam=t["lam"],
                  seed=t["seed"], batch=t["batch"], lr=t["lr"], holdout=t["holdout"], log=log,
                  mirror=t["mirror"], activation=_activation_of(head),
                  buckets=int(head.get("output_buckets", 1)),
                  schedule=t.get("schedule", "step"), lr_floor=t.get("lr_floor", LR_FLOOR),
                  input_mirror=bool(t.get("input_mirror", False)),
                  king_buckets=kings, data_filter=t.get("filter"), init=init,
                  filter_others=t.get("filter_others", 0.0), syzygy=tables)
    if tables is not None and again["trained"]["syzygy"]["tag"] != t["syzygy"]["tag"]:
        print(f"note: the tables at {tables} are not the set {os.path.basename(net)} was "
              f"trained with (their names and sizes differ)", file=log)
    same = again["weights_sha256"] == head["weights_sha256"]
    print(f"weights sha256 {again['weights_sha256'][:16]}: "
          f"{'the same as' if same else 'DIFFERS from'} {os.path.basename(net)}'s "
          f"{head['weights_sha256'][:16]}", file=log)
    return same


# the package's own networks: a net it was tuned from is looked for there last
NET_PLACES = [os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "nets")]


def _find_net(ref, places):
    """The network file a header's "init" names ({file, weights_sha256}), looked for in
    places; ValueError when none there has those weights."""
    for folder in places:
        path = os.path.join(folder, ref["file"])
        if os.path.isfile(path):
            try:
                if netfile.load(path)[1]["weights_sha256"] == ref["weights_sha256"]:
                    return path
            except netfile.NetError:
                continue
    raise ValueError(f"the net it was tuned from, {ref['file']} (weights "
                     f"{ref['weights_sha256'][:16]}...), is not in {', '.join(places)}")


def like_files(net, places):
    """The files the header of `net` names, in its order, found in `places` (files or
    folders, given: the package knows no place of its own): a data folder that has grown
    since still gives the net's own chunks."""
    _, head = netfile.load(net)
    t = head.get("trained")
    if not t:
        raise ValueError(f"{net} records no training (not made by black-numba train)")
    if not places:
        raise ValueError(f"--like {net}: name the files or folders that hold its training "
                         f"data ({' '.join(t['data'][:3])}{' ...' if len(t['data']) > 3 else ''}"
                         f"), e.g. a checkout's data/ and the shared training files")
    return chunks.locate(t["data"], list(places))


def add_arguments(ap):
    ap.add_argument("data", nargs="*",
                    help="training files (FEN | score | result lines, .bng, .bnp, .bnc chunks) "
                         "or data folders such as data/ (every chunk its manifest lists); with "
                         "--like, where to find the net's files (and the net it was tuned "
                         "from, beside the net or in these folders)")
    ap.add_argument("--skip-bad", action="store_true",
                    help="leave out (and report) chunks that do not match their manifest entry")
    ap.add_argument("--out", required=True, help="network file to write (.bnn)")
    ap.add_argument("--like", metavar="NET",
                    help="train NET again from the files its header names, looked up in DATA, "
                         "with the settings it records (other settings are ignored); exit 0 "
                         "when the weights match, 1 when not")
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--lam", type=float, default=0.75,
                    help="weight of the score label against the game result")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=16384)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--holdout", type=float, default=0.03)
    ap.add_argument("--schedule", choices=SCHEDULES, default="step",
                    help="learning rate: step (x0.1 for the last quarter of the epochs) or "
                         "cosine (decay over every step to --lr-floor times --lr)")
    ap.add_argument("--lr-floor", type=float, default=LR_FLOOR,
                    help="the cosine schedule's last rate, as a share of --lr")
    ap.add_argument("--activation", choices=nnue.ACTIVATIONS, default="crelu",
                    help="clipped ReLU or its square (SCReLU)")
    ap.add_argument("--buckets", type=int, default=1,
                    help=f"output buckets by piece count, 1..{nnue.MAX_BUCKETS}")
    ap.add_argument("--buffer", type=int, default=BUFFER_POSITIONS,
                    help="positions held in memory at once: more data is shuffled through a "
                         "buffer this size (about 90 bytes a position)")
    ap.add_argument("--input-mirror", action="store_true",
                    help="input mirroring: each side's view mirrored to files a-d by its "
                         "king's file (nnue.py); replaces --mirror")
    ap.add_argument("--king-buckets", choices=tuple(nnue.KING_LAYOUTS), default="none",
                    help="king-bucketed inputs: one set of the 768 inputs a bucket of the own "
                         "king's square (nnue.KING_LAYOUTS: k4 four, k8 eight); best with "
                         "--input-mirror")
    ap.add_argument("--filter", choices=FILTERS, dest="data_filter",
                    help="train only on positions that pass a filter: compensation, the side "
                         "to move down material but not worse by its label; won-compensation, "
                         "a side whose label is far above its material and who won the game "
                         "(an Aggressive network, with --init)")
    ap.add_argument("--filter-others", type=float, default=0.0, metavar="SHARE",
                    help="with --filter, also this share (0..1) of the positions that do not "
                         "pass it, drawn by the seed")
    ap.add_argument("--init", metavar="NET",
                    help="start from NET's weights (fine-tuning; the same architecture "
                         "options), keeping its logistic scales")
    ap.add_argument("--syzygy", metavar="PATH",
                    help="label positions the Syzygy tables in PATH hold by the tables' "
                         "verdict (a win at least +600, a draw 0; tblabels.py), computed once "
                         "per data file and stored beside it")
    ap.add_argument("--mirror", action="store_true",
                    help="also train on every position mirrored between the a- and h-files")


def run(args):
    if not 1 <= args.hidden <= nnue.MAX_HIDDEN:
        print(f"black-numba train: --hidden must be 1..{nnue.MAX_HIDDEN}", file=sys.stderr)
        return 2
    if not 0.0 <= args.lr_floor <= 1.0:
        print("black-numba train: --lr-floor must be between 0 and 1", file=sys.stderr)
        return 2
    if args.buffer < args.batch:
        print(f"black-numba train: --buffer must be at least --batch ({args.batch})",
              file=sys.stderr)
        return 2
    if not 1 <= args.buckets <= nnue.MAX_BUCKETS:
        print(f"black-numba train: --buckets must be 1..{nnue.MAX_BUCKETS}", file=sys.stderr)
        return 2
    if args.like:
        try:
            return 0 if like(args.like, like_files(args.like, args.data), args.out,
                             syzygy=args.syzygy, places=args.data) else 1
        except (OSError, ValueError) as e:
            print(f"black-numba train: {e}", file=sys.stderr)
            return 2
    if not args.data:
        print("black-numba train: no training data given", file=sys.stderr)
        return 2
    try:
        args.data = chunks.expand(args.data, args.skip_bad,
                                  lambda msg: print(f"black-numba train: {msg}", file=sys.stderr))
    except chunks.ChunkError as e:
        print(f"black-numba train: {e} (--skip-bad leaves such chunks out)", file=sys.stderr)
        return 2
    except (OSError, ValueError) as e:
        print(f"black-numba train: {e}", file=sys.stderr)
        return 2
    try:
        train(args.data, args.out, hidden=args.hidden, epochs=args.epochs, lam=args.lam,
              seed=args.seed, batch=args.batch, lr=args.lr, holdout=args.holdout,
              mirror=args.mirror, activation=args.activation, buckets=args.buckets,
              buffer=args.buffer, schedule=args.schedule, lr_floor=args.lr_floor,
              input_mirror=args.input_mirror, king_buckets=args.king_buckets,
              data_filter=args.data_filter, init=args.init,
              filter_others=args.filter_others, syzygy=args.syzygy)
    except (OSError, ValueError) as e:
        print(f"black-numba train: {e}", file=sys.stderr)
        return 2
    return 0
