"""The training run: fit the network to labelled positions (a Numba trainer, no PyTorch),
configured by one TrainConfig.

    from black_numba.training.train import TrainConfig, train
    head = train(TrainConfig(["data.bnc"], "net.bnn", hidden=256, epochs=20))

Loss: mean squared error between sigmoid(K_eval * net / 400) and the target
lam * sigmoid(K_label * score / 400) + (1 - lam) * result, all from the side to move's view.
K_eval is the logistic scale fitted for the tapered evaluation on the same data, so a network
score of 100 cp carries the tapered evaluation's win probability (resign and draw offers,
adjudication, time management and pruning margins read the score); K_label is fitted the same
way for the labels' scores. The last ``holdout`` of every file (whole games, the files are in
game order) is held out and its loss printed each epoch, with the loss of the quantised net at
the end. Float32 weights, Adam, mini-batches spread over the cores (model.py); weights are
clipped so the int16 quantisation (nnue.py) cannot overflow. The positions come from a batch
source (batches.py). Deterministic for a seed and thread count; reproduce.py trains a net
again from the settings its header records. With a checkpoint file the run's state (weights,
Adam's moments, the step, the random generator) is written after every epoch, and the same
run started again goes on after the last epoch written: the net is the one of a run that was
not stopped, bit for bit (long runs outlive the machines' sessions).
"""
import json
import math
import os
import sys
import time
from dataclasses import asdict, dataclass
from typing import Optional

import numpy as np
from numba import get_num_threads

from black_numba.evaluation import netfile, nnue
from black_numba.provenance import file_sha256
from black_numba.training import batches, dataset, model

LR_DROP_EPOCH = 0.75                # step schedule: learning rate x0.1 for the last quarter
LR_FLOOR = 0.05                     # cosine schedule: the rate decays to this share of lr
SCHEDULES = ("step", "cosine")
K_SAMPLE = 200_000                  # positions used to fit the logistic scales
BUFFER_POSITIONS = 8_000_000        # positions held at once (about 0.7 GB)
CHUNK_POSITIONS = 250_000           # consecutive positions read together into the buffer
CHECKPOINT_VERSION = 1
INIT_W1_SD = 0.05                   # fresh feature weights: normal, this standard deviation
INIT_B1_MAX = 0.2                   # fresh feature biases: uniform from 0 to this


@dataclass
class TrainConfig:
    """Everything a training run depends on; the header of the net it writes records it.

    data: training files in order (text, .bng, .bnp, .bnc; see dataset.py); out: the network
    file to write. hidden: neurons a perspective (1..nnue.MAX_HIDDEN); activation: "crelu" or
    "screlu"; buckets: output buckets by piece count (1..nnue.MAX_BUCKETS); input_mirror:
    each side's view mirrored to files a-d by its king's file; king_buckets: a name of
    nnue.KING_LAYOUTS; factoriser: with king buckets, a shared set of feature weights trained
    beside the buckets' and added into each at the end (model.py). lam: weight of the score
    label against the game result; holdout: the share of every file held out. schedule
    "step" drops the rate x0.1 for the last quarter of the epochs, "cosine" decays it over
    every step to lr_floor * lr. mirror: also every position mirrored between the a- and
    h-files. buffer: positions held at once (more data is shuffled through a buffer this
    size, read `chunk` consecutive positions at a time); k_sample: positions the tapered
    evaluation's scale is fitted on. data_filter: one of batches.FILTERS, with filter_others
    the share of the other positions kept too. init: a
    network file to start from (its architecture, its logistic scales; with a factoriser, a
    net without king buckets may start it: its feature weights become the shared set, the
    buckets' start at 0, so training starts from that net's evaluation). widen: init may be
    narrower than hidden: its units are kept and the new ones get random feature weights and
    output weights of 0, so training starts from its evaluation (Net2Net's widening; output
    weights beyond the wider net's bound, model's out_clip, are clipped at the first step).
    syzygy: Syzygy tables whose verdicts label the positions they hold (tblabels.py).
    checkpoint: a file (.npz) that receives the run's state after every epoch; where it
    exists, the run goes on from it (the same settings, or a ValueError)."""
    data: list
    out: str
    hidden: int = 256
    epochs: int = 20
    lam: float = 0.75
    seed: int = 1
    batch: int = 16384
    lr: float = 1e-3
    holdout: float = 0.03
    schedule: str = "step"
    lr_floor: float = LR_FLOOR
    activation: str = "crelu"
    buckets: int = 1
    input_mirror: bool = False
    king_buckets: str = "none"
    factoriser: bool = False
    mirror: bool = False
    buffer: int = BUFFER_POSITIONS
    chunk: int = CHUNK_POSITIONS
    k_sample: int = K_SAMPLE
    data_filter: Optional[str] = None
    filter_others: float = 0.0
    init: Optional[str] = None
    widen: bool = False
    syzygy: Optional[str] = None
    checkpoint: Optional[str] = None


def _check(c):
    """ValueError for settings that cannot go together."""
    if not c.data:
        raise ValueError("no training files given")
    if c.king_buckets not in nnue.KING_LAYOUTS:
        raise ValueError(f"king buckets {c.king_buckets!r} is not one of "
                         f"{', '.join(nnue.KING_LAYOUTS)}")
    if c.factoriser and c.king_buckets == "none":
        raise ValueError("--factoriser goes with --king-buckets: it is what the buckets share")
    if c.input_mirror and c.mirror:
        # under input mirroring a position and its a-h mirror image have the same inputs
        raise ValueError("--mirror adds nothing with --input-mirror: the mirrored copies "
                         "have the same inputs")
    if c.data_filter is not None and c.data_filter not in batches.FILTERS:
        raise ValueError(f"filter {c.data_filter!r} is not one of {', '.join(batches.FILTERS)}")
    if not 0.0 <= c.filter_others <= 1.0:
        raise ValueError("--filter-others is a share, 0 to 1")
    if c.filter_others and c.data_filter is None:
        raise ValueError("--filter-others goes with --filter")
    if c.widen and c.init is None:
        raise ValueError("--widen goes with --init: it widens the net training starts from")


def _initial(path, hidden, act, buckets, input_mirror, king_buckets, factoriser=False,
             widen=False, seed=1):
    """Float weights (W1, b1, W2, b2) of the network file `path` (its quantised values
    scaled back), which must have the architecture asked for (with a factoriser, or that
    architecture without king buckets; widening, or narrower); and its header."""
    NN, head = netfile.load(path)
    want = (hidden, act, buckets, 1 if input_mirror else 0,
            None if king_buckets == "none" else nnue.KING_LAYOUTS[king_buckets])
    have = (int(NN[nnue.H_HIDDEN]), int(NN[nnue.H_ACT]), int(NN[nnue.H_BUCKETS]),
            int(NN[nnue.H_MIRROR]), nnue.king_map(NN))
    narrower = widen and have[0] < hidden
    if narrower:
        want = (have[0],) + want[1:]
    if have != want and not (factoriser and have == want[:4] + (None,)):
        asked = (f"--hidden {hidden} --activation {nnue.ACTIVATIONS[act]} --buckets {buckets}"
                 f"{' --input-mirror' if input_mirror else ''} --king-buckets {king_buckets}")
        raise ValueError(f"--init {path}: its architecture ({head['architecture']}, "
                         f"{head['inputs']}) is not the one asked for ({asked})")
    ft_w, ft_b, out_w, out_b = nnue.unpack(NN)
    W1 = (ft_w / nnue.QA).astype(np.float32)
    b1 = (ft_b / nnue.QA).astype(np.float32)
    W2 = (out_w / nnue.QB).astype(np.float32)
    if narrower:
        # Net2Net widening: new units with the fresh net's random feature weights and biases
        # and output weights of 0 (the same evaluation); each bucket's two halves (side to
        # move, other side) keep their places at the front of the wider halves
        n, new = have[0], hidden - have[0]
        rng = np.random.default_rng(seed)
        W1 = np.concatenate([W1, (rng.standard_normal((W1.shape[0], new)) * INIT_W1_SD)
                             .astype(np.float32)], axis=1)
        b1 = np.concatenate([b1, (rng.random(new) * INIT_B1_MAX).astype(np.float32)])
        wide = np.zeros((buckets, 2 * hidden), np.float32)
        wide[:, :n] = W2[:, :n]
        wide[:, hidden:hidden + n] = W2[:, n:]
        W2 = wide
    return (W1, b1, W2.reshape(-1), (out_b / (nnue.QA * nnue.QB)).astype(np.float32)), head


def _start(c, act):
    """(float weights, logistic scales, header) of the net c.init, or Nones: fine-tuning
    starts from the base net's weights and keeps its logistic scales (the score keeps its
    meaning whatever positions the tuning sees)."""
    if c.init is None:
        return None, None, None
    start, base = _initial(c.init, c.hidden, act, c.buckets, c.input_mirror, c.king_buckets,
                           c.factoriser, c.widen, c.seed)
    if c.factoriser:
        # the start's feature weights: its buckets' and a shared set of 0, or (a net without
        # king buckets) buckets of 0 and its weights shared
        W1 = start[0]
        kings = int(max(nnue.KING_LAYOUTS[c.king_buckets])) + 1
        zeros = np.zeros((nnue.FEATURES, c.hidden), np.float32)
        if W1.shape[0] == nnue.FEATURES:
            W1 = np.concatenate([np.zeros((kings * nnue.FEATURES, c.hidden), np.float32), W1])
        else:
            W1 = np.concatenate([W1, zeros])
        start = (W1,) + tuple(start[1:])
    t0 = base.get("trained", {})
    if "k_eval" not in t0 or "k_label" not in t0:
        raise ValueError(f"--init {c.init}: its header records no logistic scales (not made "
                         f"by black-numba train), so a tuned net's scores would change "
                         f"their meaning")
    return start, (float(t0["k_eval"]), float(t0["k_label"])), base


def _source(c, stores, rng, scales):
    """The batch source of the run: the filtered positions, every position in memory, or
    (more than c.buffer) shuffled through a buffer."""
    total = sum(st.n for st in stores)
    if c.data_filter is not None:
        return batches.Filtered(stores, c.holdout, c.k_sample, rng, c.mirror, c.batch, c.lam,
                                batches.FILTER_KEEP[c.data_filter], scales, c.filter_others,
                                c.seed)
    if total <= c.buffer:
        return batches.InMemory(stores, c.holdout, c.k_sample, rng, c.mirror, c.batch, c.lam,
                                scales)
    data = batches.Streamed(stores, c.holdout, c.k_sample, rng, c.mirror, c.batch, c.buffer,
                            min(c.chunk, c.buffer))
    if scales is not None:
        data.k_eval, data.k_label = scales
    return data


def _checkpoint_settings(c, threads):
    """What a checkpoint must share with the run that goes on from it."""
    settings = asdict(c)
    settings.pop("checkpoint")
    return {"version": CHECKPOINT_VERSION, "settings": settings, "threads": threads}


def _save_checkpoint(c, threads, params, moments, epoch, step, history, rng):
    """The run's state after `epoch`, written whole or not at all."""
    meta = dict(_checkpoint_settings(c, threads), epoch=epoch, step=step,
                history=[[e, float(a), float(b)] for e, a, b in history],
                rng=rng.bit_generator.state)
    arrays = {f"p{i}": p for i, p in enumerate(params)}
    for i, (m, v) in enumerate(moments):
        arrays[f"m{i}"], arrays[f"v{i}"] = m, v
    tmp = c.checkpoint + ".tmp.npz"
    np.savez(tmp, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)
    os.replace(tmp, c.checkpoint)


def _load_checkpoint(c, threads, params, moments, rng):
    """Restore a run's state from c.checkpoint into params, moments and rng; returns
    (epochs done, step, history). ValueError for a checkpoint of other settings."""
    try:
        with np.load(c.checkpoint) as z:
            meta = json.loads(z["meta"].tobytes().decode())
            arrays = {k: z[k] for k in z.files if k != "meta"}
    except (OSError, ValueError, KeyError, EOFError) as e:
        raise ValueError(f"{c.checkpoint}: not a readable checkpoint ({e})") from None
    want = json.loads(json.dumps(_checkpoint_settings(c, threads)))
    have = {k: meta.get(k) for k in want}
    if have != want:
        diff = sorted(k for k in set(want["settings"]) | set(have["settings"] or {})
                      if (have["settings"] or {}).get(k) != want["settings"].get(k))
        if have["threads"] != threads:
            diff.append(f"threads {have['threads']} not {threads}")
        raise ValueError(f"{c.checkpoint} is the checkpoint of another run ("
                         f"{', '.join(diff) or 'its version'} differ): another --checkpoint, "
                         f"or remove it to start again")
    targets = [(f"p{i}", p) for i, p in enumerate(params)]
    for i, (m, v) in enumerate(moments):
        targets += [(f"m{i}", m), (f"v{i}", v)]
    for key, into in targets:
        if key not in arrays or arrays[key].shape != into.shape:
            raise ValueError(f"{c.checkpoint}: {key} is missing or of another shape")
        np.copyto(into, arrays[key])
    rng.bit_generator.state = meta["rng"]
    return meta["epoch"], meta["step"], [tuple(h) for h in meta["history"]]


def _bar(done, total, width=30):
    k = int(width * done / max(total, 1))
    return "[" + "#" * k + "." * (width - k) + f"] {100.0 * done / max(total, 1):5.1f}%"


def train(config, log=sys.stderr, quiet=False, stop_after=None):
    """Train a network as config says and write it to config.out; returns its header.
    Progress goes to log (quiet: no progress bar). stop_after: stop after this many epochs of
    this call, the rest left to the checkpoint (returns None). ValueError for settings that
    cannot go together or data that cannot be trained on; OSError for files that cannot be
    read."""
    c = config
    t_start = time.time()
    _check(c)
    if stop_after is not None and not c.checkpoint:
        raise ValueError("stopping after some epochs needs a checkpoint to go on from")
    kmap = np.array(nnue.KING_LAYOUTS[c.king_buckets], dtype=np.int64)
    kb = int(kmap.max()) + 1
    act = nnue.ACTIVATIONS.index(c.activation)
    start, scales, base = _start(c, act)
    stores = [dataset.Stored(p, log) for p in c.data]
    tb_summary = None
    if c.syzygy is not None:
        # exact endgame labels from the tables (tblabels.py), stored beside each file's arrays
        from black_numba.training import tblabels
        stores, tb_summary = tblabels.relabel_stores(stores, c.syzygy, log)
    rng = np.random.default_rng(c.seed)
    data = _source(c, stores, rng, scales)
    streamed = isinstance(data, batches.Streamed)
    k_eval, k_label = data.k_eval, data.k_label
    hp, hs, hsc, hr, te = data.held
    sign_te = np.where(hs[te] == 0, 1.0, -1.0)
    target_te = batches.targets(hsc[te], hs[te], hr[te], k_label, c.lam)
    ev = batches.tapered(hp[te], hs[te]) * sign_te
    tapered_loss = float(np.mean((1.0 / (1.0 + np.exp(-k_eval * ev / 400.0)) - target_te) ** 2))
    held_target = np.zeros(len(hs), dtype=np.float32)
    held_target[te] = target_te
    im = 1 if c.input_mirror else 0
    # the output weights' bound: the integer output sum cannot overflow (nnue.out_weight_max)
    out_clip = min(model.WEIGHT_CLIP, (nnue.out_weight_max(c.hidden, act) - 0.5) / nnue.QB)
    print(f"train: {data.n_train:,} positions, held out {len(te):,}"
          f"{f', shuffled through a buffer of {c.buffer:,}' if streamed else ''}; "
          f"K tapered {k_eval:.3f}, "
          f"K labels {k_label:.3f}; hidden {c.hidden} {c.activation}, lam {c.lam}, "
          f"seed {c.seed}, mirror {c.mirror}, output buckets {c.buckets}, king buckets "
          f"{c.king_buckets}; tapered evaluation's held-out loss {tapered_loss:.6f}", file=log)

    hidden, buckets = c.hidden, c.buckets
    rows = nnue.FEATURES * (kb + 1 if c.factoriser else kb)
    W1 = (rng.standard_normal((nnue.FEATURES * kb, hidden)) * INIT_W1_SD).astype(np.float32)
    if c.factoriser:
        # the buckets start equal (0) and the shared set random: the net starts as one
        # without king buckets
        W1 = np.concatenate([np.zeros_like(W1), W1[:nnue.FEATURES]])
    factor = model.factor_row(kb, c.factoriser)
    b1 = (rng.random(hidden) * INIT_B1_MAX).astype(np.float32)
    W2 = (rng.standard_normal(2 * hidden * buckets) / math.sqrt(2 * hidden)).astype(np.float32)
    b2 = np.zeros(buckets, dtype=np.float32)
    if start is not None:
        W1, b1, W2, b2 = start
    params = (W1, b1, W2, b2)
    moments = [(np.zeros(p.size, np.float32), np.zeros(p.size, np.float32)) for p in params]
    T = get_num_threads()
    grads = (np.zeros((T, rows, hidden), np.float32),
             np.zeros((T, hidden), np.float32),
             np.zeros((T, 2 * hidden * buckets), np.float32),
             np.zeros((T, buckets), np.float32))
    loss = np.zeros(T)
    k_out = np.float32(k_eval * nnue.OUT_SCALE / 400.0)
    steps_per_epoch = data.steps()
    step = 0
    history = []
    epochs, lr, batch = c.epochs, c.lr, c.batch
    total_steps = max(1, epochs * steps_per_epoch)
    first = 1
    if c.checkpoint and os.path.exists(c.checkpoint):
        done_epochs, step, history = _load_checkpoint(c, T, params, moments, rng)
        first = done_epochs + 1
        print(f"train: going on from {c.checkpoint} after epoch {done_epochs}/{epochs} "
              f"(held out {history[-1][2]:.6f})", file=log, flush=True)
    for epoch in range(first, epochs + 1):
        if stop_after is not None and epoch - first >= stop_after:
            print(f"train: stopped after epoch {epoch - 1}/{epochs}; run it again to go on "
                  f"from {c.checkpoint}", file=log, flush=True)
            return None
        rate = lr * (0.1 if epoch > LR_DROP_EPOCH * epochs else 1.0)
        t0 = time.time()
        tot = 0.0
        done = 0
        for pieces, stm, target, order in data.loads(rng, c.lam):
            for b in range(len(order) // batch if streamed else steps_per_epoch):
                idx = order[b * batch:(b + 1) * batch]
                model.gradients(W1, b1, W2, b2, pieces, stm, target, idx, k_out, act, im, kmap,
                                factor, *grads, loss)
                tot += loss.sum()
                step += 1
                done += 1
                if c.schedule == "cosine":
                    # cosine decay from lr to lr * lr_floor over every step of the run
                    rate = lr * (c.lr_floor + (1.0 - c.lr_floor) * 0.5
                                 * (1.0 + math.cos(math.pi * min(1.0, (step - 1) / total_steps))))
                for p, g, (m, v) in zip(params, grads, moments):
                    model.adam_step(p.reshape(-1), g.sum(axis=0).reshape(-1), m, v,
                                    np.float32(rate), step, np.float32(1.0 / len(idx)),
                                    np.float32(1e9 if p is b1 else out_clip if p is W2
                                               else model.WEIGHT_CLIP))
                if not quiet and (done % 8 == 1 or done == steps_per_epoch):
                    print(f"\repoch {epoch}/{epochs} {_bar(done, steps_per_epoch)}", end="",
                          file=log, flush=True)
        train_loss = tot / (max(done, 1) * batch)
        test_loss = model.mean_loss(W1, b1, W2, b2, hp, hs, held_target, te, k_out, act, im,
                                    kmap, factor, T)
        history.append((epoch, train_loss, test_loss))
        print(f"\repoch {epoch}/{epochs}  train {train_loss:.6f}  held out {test_loss:.6f}  "
              f"lr {rate:g}  {time.time() - t0:.1f} s", file=log, flush=True)
        if c.checkpoint:
            _save_checkpoint(c, T, params, moments, epoch, step, history, rng)
    NN = model.quantise(model.merged(W1, kb, c.factoriser), b1, W2, b2, act, c.input_mirror,
                        None if c.king_buckets == "none" else nnue.KING_LAYOUTS[c.king_buckets])
    cp = model.quantised_scores(NN, hp, hs, te)
    q_loss = float(np.mean((1.0 / (1.0 + np.exp(-k_eval * cp / 400.0)) - target_te) ** 2))
    k_net = batches.fit_scale(cp * sign_te, hr[te])
    print(f"quantised net: held out {q_loss:.6f} (float {history[-1][2]:.6f}); logistic "
          f"scale on held-out results: network {k_net:.3f}, tapered {k_eval:.3f}", file=log)
    meta = {"trained": {"data": [p.rsplit("/", 1)[-1] for p in c.data],
                        "data_sha256": [file_sha256(p) for p in c.data],
                        "data_positions": [int(st.n) for st in stores],
                        "activation": c.activation,
                        "positions": int(data.n_train), "held_out": int(len(te)),
                        "epochs": epochs,
                        "tapered_held_out_loss": round(tapered_loss, 6), "lam": c.lam,
                        "mirror": c.mirror,
                        "output_buckets": buckets,
                        "seed": c.seed, "batch": batch, "lr": lr,
                        **({"input_mirror": True} if c.input_mirror else {}),
                        **({"king_buckets": c.king_buckets} if c.king_buckets != "none"
                           else {}),
                        **({"factoriser": True} if c.factoriser else {}),
                        **({"filter": c.data_filter} if c.data_filter else {}),
                        **({"filter_others": c.filter_others} if c.filter_others else {}),
                        **({"syzygy": tb_summary} if tb_summary else {}),
                        **({"init": {"file": os.path.basename(c.init),
                                     "weights_sha256": base["weights_sha256"]}}
                           if c.init else {}),
                        **({"widen": True} if c.widen else {}),
                        **({"schedule": c.schedule, "lr_floor": c.lr_floor}
                           if c.schedule != "step" else {}),
                        "holdout": c.holdout, "threads": T, "k_eval": round(k_eval, 4),
                        "k_label": round(k_label, 4),
                        "held_out_loss": round(float(history[-1][2]), 6),
                        "quantised_held_out_loss": round(float(q_loss), 6),
                        "k_net_held_out": round(k_net, 4),
                        "epochs_loss": [[e, round(float(a), 6), round(float(b), 6)]
                                        for e, a, b in history]}}
    head = netfile.save(c.out, NN, **meta)
    print(f"wrote {c.out} (sha256 {head['weights_sha256'][:16]}) in "
          f"{time.time() - t_start:.0f} s", file=log)
    return head
