"""The positions a training run sees: the held-out split, the data filters, the logistic
scales and targets, and the three batch sources.

A source holds ``held`` (pieces, stm, score, result, index of the held-out positions),
``k_eval`` and ``k_label`` (the logistic scales of the tapered evaluation and of the labels),
``n_train``, ``steps()`` (batches an epoch) and ``loads(rng, lam)``, which yields (pieces, stm,
target, shuffled order) a load at a time: InMemory holds every position, Filtered those that
pass a filter, Streamed shuffles data larger than memory through a buffer. Scores and results
are stored from White's view; targets are the side to move's.
"""
import math

import numpy as np
from numba import njit

from black_numba.board.move import code_piece, code_square

LABEL_SAMPLE = 2_000_000            # positions the labels' scale is fitted on (streamed data)
FILTER_BLOCK = 2_000_000            # positions read at a time while filtering
# The compensation filter (after Patricia's position filter): positions whose side to move has
# COMP_MIN_DEFICIT or more material (100, 300, 300, 500, 900) less than its opponent, with
# COMP_MIN_TOTAL or more on the board, and a score label (its own view) above
# COMP_SCORE_FLOOR: material given for play. A net fine-tuned on them (--init) values
# compensation more: the Aggressive style's network.
COMP_MIN_DEFICIT = 100
COMP_MIN_TOTAL = 2500
COMP_SCORE_FLOOR = -50
# The won-compensation filter (after Patricia's result-conditioned filter): positions where one
# side's score label exceeds its material balance by more than WON_GAP, it is not up more than
# WON_MAX_LEAD in material, WON_MIN_TOTAL or more is on the board, and that side won the game:
# compensation the game bore out, from either side's view.
WON_GAP = 400
WON_MAX_LEAD = 100
WON_MIN_TOTAL = 3000
PIECE_VALUE = np.array([100, 300, 300, 500, 900, 0], dtype=np.int64)
FILTERS = ("compensation", "won-compensation")


@njit(cache=True)
def material_balance(pieces, j):
    """(White's material minus Black's, both together) of position j, in PIECE_VALUE."""
    white = 0
    total = 0
    for k in range(pieces.shape[1]):
        code = np.int64(pieces[j, k])
        if code < 0:
            break
        piece = code_piece(code)
        v = PIECE_VALUE[piece % 6]
        total += v
        if piece // 6 == 0:
            white += v
    return white - (total - white), total


@njit(cache=True)
def compensation(pieces, stm, score, result, keep):
    """keep[j] = position j passes the compensation filter."""
    for j in range(stm.shape[0]):
        balance, total = material_balance(pieces, j)
        deficit = -balance if stm[j] == 0 else balance
        mine = score[j] if stm[j] == 0 else -score[j]
        keep[j] = total >= COMP_MIN_TOTAL and deficit >= COMP_MIN_DEFICIT and \
            mine > COMP_SCORE_FLOOR


@njit(cache=True)
def won_compensation(pieces, stm, score, result, keep):
    """keep[j] = position j passes the won-compensation filter (score and result are White's
    view; the test is made for White and for Black)."""
    for j in range(stm.shape[0]):
        material, total = material_balance(pieces, j)
        gap = np.int64(score[j]) - material
        keep[j] = total >= WON_MIN_TOTAL and (
            (gap > WON_GAP and material < WON_MAX_LEAD and result[j] == 1.0) or
            (gap < -WON_GAP and material > -WON_MAX_LEAD and result[j] == 0.0))


FILTER_KEEP = {"compensation": compensation, "won-compensation": won_compensation}


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


def targets(score, stm, result, k_label, lam):
    """Training targets from the side to move's view: lam * label probability + (1 - lam) *
    result."""
    sign = np.where(stm == 0, 1.0, -1.0)
    p_label = 1.0 / (1.0 + np.exp(-k_label * score * sign / 400.0))
    res_stm = np.where(stm == 0, result, 1.0 - result)
    return (lam * p_label + (1.0 - lam) * res_stm).astype(np.float32)


class InMemory:
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
        self.target = targets(self.score, self.stm, self.result, self.k_label, lam)
        self.held = (self.pieces, self.stm, self.score, self.result, te)
        self.pool = np.concatenate([self.tr, self.tr + len(self.stm)]) if mirror else self.tr
        self.batch = batch
        self.n_train = len(self.tr)

    def steps(self):
        return max(1, len(self.pool) // self.batch)

    def loads(self, rng, lam):
        yield self.pieces, self.stm, self.target, self.pool[rng.permutation(len(self.pool))]


class Filtered(InMemory):
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


class Streamed:
    """Shuffling through a buffer: each epoch visits the training positions in chunks of
    `chunk` consecutive positions (a few thousand games) in a random order; a buffer
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
            target = targets(score, stm, result, self.k_label, lam)
            n = len(stm)
            pool = np.arange(2 * n if self.mirror else n, dtype=np.int64)
            yield pieces, stm, target, pool[rng.permutation(len(pool))]
