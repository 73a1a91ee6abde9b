"""Training data, the trainer and self-play data generation, on small inputs."""
import os
import subprocess

import chess
import numpy as np
import pytest

from black_numba.evaluation import netfile, nnue

from black_numba.provenance import file_sha256
from black_numba.training import batches, dataset, model, reproduce, train
from black_numba.training.train import TrainConfig
from conftest import ENGINE, ROOT

SAMPLE = os.path.join(ROOT, "tests", "data", "train_sample.txt")


def test_reader_matches_python_chess_and_skips_bad_lines(tmp_path):
    pieces, stm, score, result, bad = dataset.parse_bytes(open(SAMPLE, "rb").read())
    assert len(stm) == 2000 and bad == 2
    lines = open(SAMPLE).read().splitlines()[:300]
    for i, line in enumerate(lines):
        fen, sc, res = (x.strip() for x in line.split("|"))
        board = chess.Board(fen)
        want = sorted((p.piece_type - 1 + 6 * (not p.color)) * 64 + sq
                      for sq, p in board.piece_map().items())
        assert sorted(int(x) for x in pieces[i] if x >= 0) == want
        assert stm[i] == (0 if board.turn else 1)
        assert score[i] == int(sc) and result[i] == float(res)
    xz = tmp_path / "s.txt.xz"
    import lzma
    xz.write_bytes(lzma.compress(open(SAMPLE, "rb").read()))
    got = dataset.load([str(xz)], use_cache=False)
    assert np.array_equal(got[0], pieces) and np.array_equal(got[2], score)


def test_trainer_learns_writes_a_loadable_net_and_is_reproducible(tmp_path):
    out1, out2 = str(tmp_path / "a.bnn"), str(tmp_path / "b.bnn")
    kw = dict(hidden=16, epochs=4, batch=256, lr=3e-3, holdout=0.1, k_sample=2000)
    head = train.train(TrainConfig([SAMPLE], out1, **kw), quiet=True)
    NN, loaded = netfile.load(out1)
    assert loaded == head and int(NN[nnue.H_HIDDEN]) == 16
    t = head["trained"]
    losses = [x[2] for x in t["epochs_loss"]]
    assert losses[-1] < losses[0]                      # the held-out loss falls
    assert t["positions"] + t["held_out"] == 2000 and t["seed"] == 1
    assert abs(t["quantised_held_out_loss"] - losses[-1]) < 0.01
    head2 = train.train(TrainConfig([SAMPLE], out2, **kw), quiet=True)
    assert head2["weights_sha256"] == head["weights_sha256"]   # same seed, same net
    head3 = train.train(TrainConfig([SAMPLE], out2, **dict(kw, seed=2)), quiet=True)
    assert head3["weights_sha256"] != head["weights_sha256"]


def test_like_retrains_a_net_from_the_files_its_header_lists(tmp_path):
    """A net's header lists its files with their SHA-256; `train --like NET` checks them,
    trains with the recorded settings and reports whether the weights hash repeats."""
    import io
    net, again = str(tmp_path / "a.bnn"), str(tmp_path / "b.bnn")
    config = TrainConfig([SAMPLE], net, hidden=16, epochs=2, batch=256, lr=3e-3, seed=5,
                         holdout=0.1, mirror=True, activation="screlu")
    head = train.train(config, quiet=True)
    t = head["trained"]
    assert t["data_sha256"] == [file_sha256(SAMPLE)] and t["data_positions"] == [2000]
    # the header records the whole config
    assert reproduce.recorded_config(head, [SAMPLE], net) == config
    assert reproduce.like(net, [SAMPLE], again, log=io.StringIO())
    assert netfile.load(again)[1]["weights_sha256"] == head["weights_sha256"]
    changed = tmp_path / os.path.basename(SAMPLE)
    changed.write_text(open(SAMPLE).read().replace("| 1.0", "| 0.5", 1))
    with pytest.raises(ValueError, match="SHA-256 differs"):
        reproduce.like(net, [str(changed)], again)
    r = subprocess.run([ENGINE, "train", str(changed), "--like", net, "--out", again],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "SHA-256 differs" in r.stderr and "Traceback" not in r.stderr
    other = tmp_path / "other.txt"
    other.write_text(open(SAMPLE).read())
    r = subprocess.run([ENGINE, "train", str(other), "--like", net, "--out", again],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "train_sample.txt: in none of" in r.stderr \
        and "Traceback" not in r.stderr


def test_cosine_schedule_is_recorded_and_retrained_alike(tmp_path):
    """--schedule cosine decays the rate over every step to --lr-floor; the header records
    it, `--like` trains with it again, and it differs from the step schedule's net."""
    import io
    net, again, step = (str(tmp_path / n) for n in ("c.bnn", "again.bnn", "s.bnn"))
    kw = dict(hidden=16, epochs=3, batch=256, lr=3e-3, seed=4, holdout=0.1)
    head = train.train(TrainConfig([SAMPLE], net, schedule="cosine", lr_floor=0.1, **kw),
                       quiet=True)
    t = head["trained"]
    assert (t["schedule"], t["lr_floor"]) == ("cosine", 0.1)
    losses = [x[2] for x in t["epochs_loss"]]
    assert losses[-1] < losses[0]
    assert reproduce.like(net, [SAMPLE], again, log=io.StringIO())
    assert "schedule" not in train.train(TrainConfig([SAMPLE], step, **kw), quiet=True)["trained"]
    assert netfile.load(step)[1]["weights_sha256"] != head["weights_sha256"]


def test_data_beyond_the_buffer_is_shuffled_through_it(tmp_path):
    """With more positions than --buffer, every epoch visits each training position once
    (mirrored too), in loads of at most the buffer mixing chunks of both files; the held-out
    part stays out; the net learns and is reproducible."""
    import io
    second = tmp_path / "second.txt"
    second.write_text("".join(open(SAMPLE).read().splitlines(True)[:1000]))
    stores = [dataset.Stored(SAMPLE), dataset.Stored(str(second))]
    assert [st.n for st in stores] == [2000, 1000]
    rng = np.random.default_rng(3)
    data = batches.Streamed(stores, 0.1, 500, rng, True, 64, 600, 150)
    assert data.n_train == 1800 + 900 and len(data.held[4]) == 200 + 100
    want = {}
    for st, cut in zip(stores, (1800, 900)):
        pieces = st.read(0, cut)[0]
        for row in pieces:
            want[row.tobytes()] = want.get(row.tobytes(), 0) + 2
    got, loads = {}, 0
    for pieces, stm, target, order in data.loads(rng, 0.75):
        assert len(stm) <= 600 and sorted(order) == list(range(2 * len(stm)))
        assert target.dtype == np.float32 and np.all((target >= 0) & (target <= 1))
        for row in pieces:
            got[row.tobytes()] = got.get(row.tobytes(), 0) + 2
        loads += 1
    assert got == want and loads >= 5
    kw = dict(hidden=16, epochs=4, batch=128, lr=3e-3, holdout=0.1, k_sample=500,
              buffer=700, chunk=100)
    log = io.StringIO()
    head = train.train(TrainConfig([SAMPLE, str(second)], str(tmp_path / "a.bnn"), **kw), log)
    assert "shuffled through a buffer of 700" in log.getvalue()
    losses = [x[2] for x in head["trained"]["epochs_loss"]]
    assert losses[-1] < losses[0]
    again = train.train(TrainConfig([SAMPLE, str(second)], str(tmp_path / "b.bnn"), **kw),
                        io.StringIO())
    assert again["weights_sha256"] == head["weights_sha256"]


def test_gradients_match_finite_differences():
    """The trainer's analytic gradients (both activations) against central differences of its
    own loss, on a small net."""
    pieces, stm, score, result, _ = dataset.parse_bytes(open(SAMPLE, "rb").read())
    rng = np.random.default_rng(3)
    n, m = 8, 64
    idx = np.arange(m, dtype=np.int64)
    target = rng.random(len(stm)).astype(np.float32)
    k_out = np.float32(1.0)
    counts = (pieces[:m] >= 0).sum(axis=1)
    for act, buckets, im, kings, shared in ((nnue.CRELU, 1, 0, "none", False),
                                            (nnue.SCRELU, 1, 0, "none", False),
                                            (nnue.SCRELU, 4, 0, "none", False),
                                            (nnue.SCRELU, 4, 1, "none", False),
                                            (nnue.SCRELU, 4, 1, "k4", False),
                                            (nnue.SCRELU, 4, 1, "k4", True)):
        kmap = np.array(nnue.KING_LAYOUTS[kings], dtype=np.int64)
        kb = int(kmap.max()) + 1
        factor = model.factor_row(kb, shared)
        rows = nnue.FEATURES * (kb + 1 if shared else kb)
        W1 = (rng.standard_normal((rows, n)) * 0.05).astype(np.float32)
        b1 = (rng.random(n) * 0.2 + 0.3).astype(np.float32)
        W2 = rng.standard_normal(2 * n * buckets).astype(np.float32)
        b2 = np.zeros(buckets, np.float32)
        grads = (np.zeros((1, rows, n), np.float32), np.zeros((1, n), np.float32),
                 np.zeros((1, 2 * n * buckets), np.float32), np.zeros((1, buckets), np.float32))
        loss = np.zeros(1)
        model.gradients(W1, b1, W2, b2, pieces, stm, target, idx, k_out, act, im, kmap, factor,
                        *grads, loss)

        def total():
            return model.mean_loss(W1, b1, W2, b2, pieces, stm, target, idx, k_out, act, im,
                                   kmap, factor, 1) * m

        # the output layer of the positions' buckets (several when there are buckets)
        used = sorted({min(buckets - 1, (c - 2) // -(-32 // buckets)) for c in counts})
        assert buckets == 1 or len(used) > 1
        checks = [(b1, grads[1][0], 2)]
        # a feature weight of the first position's side to move (input mirroring's view, its
        # king bucket's set: not the first set where the king has left the back rank)
        us = int(stm[0])
        view = model.perspective(pieces, 0, us, 0, im, kmap)
        f = model.input_index(int(pieces[0, 0]), us, 0, view)
        checks.append((W1.reshape(-1), grads[0][0].reshape(-1), f * n + 1))
        if shared:      # the same input's row of the factoriser, shared by the buckets
            checks.append((W1.reshape(-1), grads[0][0].reshape(-1),
                           (factor + f - view[1]) * n + 1))
        for k in used:
            checks += [(W2, grads[2][0], 2 * n * k + 3), (W2, grads[2][0], 2 * n * k + n + 5),
                       (b2, grads[3][0], k)]
        for arr, g, i in checks:
            eps = np.float32(1e-2)
            keep = arr[i]
            arr[i] = keep + eps
            up = total()
            arr[i] = keep - eps
            down = total()
            arr[i] = keep
            numeric = (up - down) / (2 * eps)
            assert abs(numeric - g[i]) <= 0.02 * abs(numeric) + 1e-4, (act, i, numeric, g[i])


def test_screlu_net_trains_and_its_integer_form_agrees(tmp_path):
    out = str(tmp_path / "s.bnn")
    head = train.train(TrainConfig([SAMPLE], out, hidden=16, epochs=4, batch=256, lr=3e-3,
                                   holdout=0.1, k_sample=2000, activation="screlu"), quiet=True)
    NN, loaded = netfile.load(out)
    assert loaded["architecture"] == "768->16x2->1 screlu" and NN[nnue.H_ACT] == nnue.SCRELU
    losses = [x[2] for x in head["trained"]["epochs_loss"]]
    assert losses[-1] < losses[0]
    # the integer network computes what the float one learnt
    assert abs(head["trained"]["quantised_held_out_loss"] - losses[-1]) < 0.01


def test_input_mirrored_net_trains_and_its_integer_form_agrees(tmp_path):
    """--input-mirror: the trainer's float network and the engine's integer one (nnue.py's
    input mirroring) compute the same thing; --mirror is refused beside it."""
    import io
    out, again = str(tmp_path / "m.bnn"), str(tmp_path / "again.bnn")
    head = train.train(TrainConfig([SAMPLE], out, hidden=16, epochs=4, batch=256, lr=3e-3,
                                   holdout=0.1, k_sample=2000, activation="screlu",
                                   input_mirror=True), quiet=True)
    NN, loaded = netfile.load(out)
    assert NN[nnue.H_MIRROR] == 1 and loaded["inputs"] == netfile.INPUTS_MIRRORED
    assert head["trained"]["input_mirror"] is True
    losses = [x[2] for x in head["trained"]["epochs_loss"]]
    assert losses[-1] < losses[0]
    assert abs(head["trained"]["quantised_held_out_loss"] - losses[-1]) < 0.01
    assert reproduce.like(out, [SAMPLE], again, log=io.StringIO())
    with pytest.raises(ValueError, match="--mirror adds nothing"):
        train.train(TrainConfig([SAMPLE], again, hidden=16, epochs=1, mirror=True,
                                input_mirror=True), quiet=True)


def test_bucketed_net_trains_and_its_integer_form_agrees(tmp_path):
    out = str(tmp_path / "b.bnn")
    head = train.train(TrainConfig([SAMPLE], out, hidden=16, epochs=4, batch=256, lr=3e-3,
                                   holdout=0.1, k_sample=2000, activation="screlu", buckets=4),
                       quiet=True)
    NN, loaded = netfile.load(out)
    assert loaded["output_buckets"] == 4 and NN[nnue.H_BUCKETS] == 4
    assert loaded["trained"]["output_buckets"] == 4
    losses = [x[2] for x in head["trained"]["epochs_loss"]]
    assert losses[-1] < losses[0]
    assert abs(head["trained"]["quantised_held_out_loss"] - losses[-1]) < 0.01
    # the buckets learnt different output layers
    out_w = nnue.unpack(NN)[2]
    assert not np.array_equal(out_w[0], out_w[3])


def test_a_factorised_net_starts_from_a_plain_one_and_trains_again_alike(tmp_path):
    """--factoriser: from a net without king buckets (--init), its weights shared and the
    buckets' at 0, the engine's integer net is that net in every bucket; trained on, the
    buckets learn apart, the quantised net computes what the float one learnt, and --like
    trains it again bit for bit. Without --king-buckets it is refused."""
    import io
    plain, out, again = (str(tmp_path / f) for f in ("p.bnn", "f.bnn", "again.bnn"))
    common = dict(hidden=16, batch=256, lr=3e-3, holdout=0.1, k_sample=2000,
                  activation="screlu", input_mirror=True)
    train.train(TrainConfig([SAMPLE], plain, epochs=2, **common), quiet=True)
    W1, b1, W2, b2 = train._initial(plain, 16, nnue.SCRELU, 1, True, "none")[0]
    start = np.concatenate([np.zeros((4 * nnue.FEATURES, 16), np.float32), W1])
    NN = model.quantise(model.merged(start, 4, True), b1, W2, b2, nnue.SCRELU, True,
                        nnue.KING_LAYOUTS["k4"])
    NP = netfile.load(plain)[0]
    ft = nnue.unpack(NN)[0]
    assert ft.shape == (4 * nnue.FEATURES, 16)
    assert all(np.array_equal(ft[k * nnue.FEATURES:(k + 1) * nnue.FEATURES], nnue.unpack(NP)[0])
               for k in range(4))
    pieces, stm, _, _, _ = dataset.parse_bytes(open(SAMPLE, "rb").read())
    idx = np.arange(200, dtype=np.int64)
    assert np.array_equal(model.quantised_scores(NN, pieces, stm, idx),
                          model.quantised_scores(NP, pieces, stm, idx))
    head = train.train(TrainConfig([SAMPLE], out, epochs=3, king_buckets="k4", factoriser=True,
                                   init=plain, **common), quiet=True)
    assert head["trained"]["factoriser"] is True and head["trained"]["king_buckets"] == "k4"
    ft = nnue.unpack(netfile.load(out)[0])[0]
    assert not np.array_equal(ft[:nnue.FEATURES], ft[3 * nnue.FEATURES:])
    losses = [x[2] for x in head["trained"]["epochs_loss"]]
    assert abs(head["trained"]["quantised_held_out_loss"] - losses[-1]) < 0.01
    assert reproduce.like(out, [SAMPLE], again, log=io.StringIO(), places=[str(tmp_path)])
    with pytest.raises(ValueError, match="--factoriser goes with --king-buckets"):
        train.train(TrainConfig([SAMPLE], again, epochs=1, factoriser=True), quiet=True)


def test_a_stopped_run_goes_on_from_its_checkpoint_to_the_same_net(tmp_path):
    """--checkpoint: a 3-epoch run stopped after each epoch and started again writes the
    net of the run that was not stopped, bit for bit; a checkpoint of other settings is
    refused, and so is a stop without a checkpoint."""
    import io
    common = dict(hidden=16, epochs=3, batch=256, lr=3e-3, holdout=0.1, k_sample=2000,
                  activation="screlu", buckets=2, schedule="cosine")
    whole = train.train(TrainConfig([SAMPLE], str(tmp_path / "whole.bnn"), **common),
                        quiet=True)
    ckpt, out = str(tmp_path / "run.npz"), str(tmp_path / "parts.bnn")
    config = TrainConfig([SAMPLE], out, checkpoint=ckpt, **common)
    logs = []
    for _ in range(2):
        logs.append(io.StringIO())
        assert train.train(config, log=logs[-1], quiet=True, stop_after=1) is None
        assert os.path.exists(ckpt) and not os.path.exists(out)
    assert "stopped after epoch 1/3" in logs[0].getvalue()
    assert "going on from" in logs[1].getvalue() and "after epoch 1/3" in logs[1].getvalue()
    with pytest.raises(ValueError, match=r"another run \(lr differ\)"):
        train.train(TrainConfig([SAMPLE], out, checkpoint=ckpt, **dict(common, lr=1e-3)),
                    quiet=True)
    parts = train.train(config, quiet=True)
    assert parts["weights_sha256"] == whole["weights_sha256"]
    assert parts["trained"]["epochs_loss"] == whole["trained"]["epochs_loss"]
    assert len(parts["trained"]["epochs_loss"]) == 3
    with pytest.raises(ValueError, match="needs a checkpoint"):
        train.train(TrainConfig([SAMPLE], out, **common), quiet=True, stop_after=1)
    with open(ckpt, "wb") as f:
        f.write(b"not a checkpoint")
    with pytest.raises(ValueError, match="not a readable checkpoint"):
        train.train(config, quiet=True)


def test_a_net_widened_from_a_narrower_one_starts_from_its_evaluation(tmp_path):
    """--widen: a 16-wide net started as 24 wide (Net2Net) keeps its integer scores (the
    new units' output weights are 0), trains on, records it and trains again bit for bit;
    without --init, or narrowing, it is refused."""
    import io
    narrow, out, again = (str(tmp_path / f) for f in ("n.bnn", "w.bnn", "again.bnn"))
    common = dict(batch=256, lr=3e-3, holdout=0.1, k_sample=2000, activation="screlu",
                  buckets=2)
    train.train(TrainConfig([SAMPLE], narrow, hidden=16, epochs=2, **common), quiet=True)
    W1, b1, W2, b2 = train._initial(narrow, 24, nnue.SCRELU, 2, False, "none",
                                    widen=True)[0]
    assert W1.shape == (nnue.FEATURES, 24) and W2.shape == (2 * 2 * 24,)
    assert np.count_nonzero(W2.reshape(2, 2, 24)[:, :, 16:]) == 0
    NN = model.quantise(W1, b1, W2, b2, nnue.SCRELU, False, None)
    NP = netfile.load(narrow)[0]
    pieces, stm, _, _, _ = dataset.parse_bytes(open(SAMPLE, "rb").read())
    idx = np.arange(300, dtype=np.int64)
    scores = model.quantised_scores(NP, pieces, stm, idx)
    assert np.count_nonzero(scores) > 250
    assert np.array_equal(model.quantised_scores(NN, pieces, stm, idx), scores)
    head = train.train(TrainConfig([SAMPLE], out, hidden=24, epochs=2, init=narrow, widen=True,
                                   **common), quiet=True)
    assert head["hidden"] == 24 and head["trained"]["widen"] is True
    assert head["trained"]["init"]["weights_sha256"] == netfile.load(narrow)[1]["weights_sha256"]
    assert np.count_nonzero(nnue.unpack(netfile.load(out)[0])[2][:, 16:24]) > 0
    assert reproduce.like(out, [SAMPLE], again, log=io.StringIO(), places=[str(tmp_path)])
    with pytest.raises(ValueError, match="--widen goes with --init"):
        train.train(TrainConfig([SAMPLE], again, hidden=24, epochs=1, widen=True, **common),
                    quiet=True)
    with pytest.raises(ValueError, match="not the one asked for"):
        train.train(TrainConfig([SAMPLE], again, hidden=8, epochs=1, init=narrow, widen=True,
                                **common), quiet=True)


def test_king_bucketed_net_trains_reloads_and_trains_again_alike(tmp_path):
    """--king-buckets: the float network's inputs are the engine's (the quantised net's
    held-out loss, computed by the engine's arithmetic, matches), the file is version 2 and
    names its map, and --like trains it again bit for bit."""
    import io
    out, again = str(tmp_path / "k.bnn"), str(tmp_path / "again.bnn")
    head = train.train(TrainConfig([SAMPLE], out, hidden=16, epochs=4, batch=256, lr=3e-3,
                                   holdout=0.1, k_sample=2000, activation="screlu", buckets=2,
                                   input_mirror=True, king_buckets="k4"), quiet=True)
    NN, loaded = netfile.load(out)
    assert loaded["architecture"] == "4x768->16x2->1 screlu, 2 output buckets by piece count"
    assert loaded["king_buckets"] == list(nnue.KING_LAYOUTS["k4"])
    assert loaded["trained"]["king_buckets"] == "k4" and nnue.kbuckets_of(NN) == 4
    assert open(out, "rb").read()[8:12] == (2).to_bytes(4, "little")
    assert nnue.unpack(NN)[0].shape == (4 * nnue.FEATURES, 16)
    losses = [x[2] for x in head["trained"]["epochs_loss"]]
    assert losses[-1] < losses[0]
    assert abs(head["trained"]["quantised_held_out_loss"] - losses[-1]) < 0.01
    assert reproduce.like(out, [SAMPLE], again, log=io.StringIO())
    r = subprocess.run([ENGINE, "train", SAMPLE, "--out", str(tmp_path / "x.bnn"),
                        "--king-buckets", "k5"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "--king-buckets" in r.stderr and "Traceback" not in r.stderr


def test_a_net_fine_tuned_on_compensation_positions_records_both_and_trains_again(tmp_path):
    """--filter compensation keeps positions whose side to move is down material with a label
    above -50 (its own view); --init starts from a net's weights and keeps its scales;
    the header records both and --like finds the base net beside the tuned one."""
    import io
    import shutil
    pieces, stm, score, result, _ = dataset.parse_bytes(open(SAMPLE, "rb").read())
    keep = np.zeros(len(stm), dtype=np.bool_)
    batches.compensation(pieces, stm, score, result, keep)
    assert 0 < keep.sum() < len(stm) // 2
    for j in np.flatnonzero(keep)[:20]:
        own = sum(batches.PIECE_VALUE[(int(c) >> 6) % 6] for c in pieces[j] if c >= 0
                  and (int(c) >> 6) // 6 == stm[j])
        total = sum(batches.PIECE_VALUE[(int(c) >> 6) % 6] for c in pieces[j] if c >= 0)
        assert total - 2 * own >= 100 and total >= 2500
        assert (score[j] if stm[j] == 0 else -score[j]) > -50
    base, tuned, again = (str(tmp_path / n) for n in ("base.bnn", "tuned.bnn", "again.bnn"))
    kw = dict(hidden=16, batch=256, holdout=0.1, k_sample=2000, activation="screlu")
    log = io.StringIO()
    first = train.train(TrainConfig([SAMPLE], base, epochs=3, lr=3e-3, **kw), log, quiet=True)
    head = train.train(TrainConfig([SAMPLE], tuned, epochs=2, lr=1e-3,
                                   data_filter="compensation", init=base, **kw), log, quiet=True)
    t = head["trained"]
    assert t["filter"] == "compensation"
    assert t["init"] == {"file": "base.bnn", "weights_sha256": first["weights_sha256"]}
    assert 0 < t["positions"] < first["trained"]["positions"] // 2
    assert (t["k_eval"], t["k_label"]) == (first["trained"]["k_eval"],
                                           first["trained"]["k_label"])
    assert head["weights_sha256"] != first["weights_sha256"]
    assert reproduce.like(tuned, [SAMPLE], again, log=io.StringIO())
    # the base net is needed, and must be the one recorded
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(tuned, alone / "tuned.bnn")
    with pytest.raises(ValueError, match="base.bnn"):
        reproduce.like(str(alone / "tuned.bnn"), [SAMPLE], again, log=io.StringIO())
    with pytest.raises(ValueError, match="architecture.*--hidden 32"):
        train.train(TrainConfig([SAMPLE], again, epochs=1, init=base, **dict(kw, hidden=32)),
                    log, quiet=True)
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="share"):
            train.train(TrainConfig([SAMPLE], again, epochs=1, data_filter="compensation",
                                    filter_others=bad, **kw), log, quiet=True)
    with pytest.raises(ValueError, match="goes with --filter"):
        train.train(TrainConfig([SAMPLE], again, epochs=1, filter_others=0.5, **kw), log,
                    quiet=True)


def _codes(*placed):
    """A pieces row (piece * 64 + square, -1 after the last) of (piece 0-11, square) pairs."""
    row = np.full(32, -1, dtype=np.int16)
    for k, (piece, sq) in enumerate(placed):
        row[k] = piece * 64 + sq
    return row


def test_won_compensation_keeps_a_side_far_above_its_material_that_won():
    """--filter won-compensation (White's view of score and result): the side whose label
    is more than 400 above its material balance, not up more than a pawn, with 3000 or more
    on the board, and which won; either colour."""
    back = [(5, 4), (4, 3), (3, 0), (3, 7), (2, 2)] + [(0, sq) for sq in range(8, 16)]
    black = [(11, 60), (10, 59), (9, 56), (9, 63), (8, 58)] + [(6, sq) for sq in range(48, 56)]
    down = _codes(*back, *black, (7, 57))           # White a knight down: -300
    up = _codes(*back, (1, 1), *black)              # White a knight up: +300
    bare = _codes((5, 4), (0, 12), (11, 60), (7, 57))
    rows = [(down, 200, 1.0, True),      # gap +500, White won
            (down, 200, 0.5, False),     # drawn
            (down, 200, 0.0, False),     # lost
            (down, 50, 1.0, False),      # gap +350: not enough
            (up, -200, 0.0, True),       # Black: gap +500 from its view, a knight down, won
            (up, -200, 1.0, False),
            (up, 200, 1.0, False),       # White a knight up: no compensation
            (bare, 600, 1.0, False)]     # too little on the board
    pieces = np.stack([r[0] for r in rows])
    stm = np.array([j % 2 for j in range(len(rows))], dtype=np.int8)   # not read
    score = np.array([r[1] for r in rows], dtype=np.int32)
    result = np.array([r[2] for r in rows], dtype=np.float32)
    keep = np.zeros(len(rows), dtype=np.bool_)
    batches.won_compensation(pieces, stm, score, result, keep)
    assert keep.tolist() == [r[3] for r in rows]


def test_train_command_errors(tmp_path):
    r = subprocess.run([ENGINE, "train", str(tmp_path / "none.txt"), "--out",
                        str(tmp_path / "x.bnn")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "none.txt" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([ENGINE, "train", SAMPLE, "--out", str(tmp_path / "x.bnn"),
                        "--hidden", "4096"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "--hidden" in r.stderr
    r = subprocess.run([ENGINE, "train", SAMPLE, "--out", str(tmp_path / "x.bnn"),
                        "--buckets", "9"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "--buckets must be 1..8" in r.stderr


def test_datagen_is_seeded_resumable_and_trainable(tmp_path):
    def run(out, positions, seed=3):
        r = subprocess.run([ENGINE, "datagen", "--positions", str(positions), "--jobs", "2",
                            "--nodes", "400", "--seed", str(seed), "--out", str(out)],
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr[-2000:]
        return {f: open(os.path.join(out, f)).read() for f in sorted(os.listdir(out))
                if f.endswith(".txt")}
    first = run(tmp_path / "a", 2)                      # one task
    assert sorted(first) == ["datagen_s3.txt"]
    have = sum(t.count("\n") for t in first.values())
    more = run(tmp_path / "a", have + 1)                # resumes: earlier games kept as they were
    for name, text in first.items():
        assert more[name].startswith(text) and len(more[name]) > len(text)
    again = run(tmp_path / "b", 2)                      # the same seed plays the same games
    assert again == first
    lines = "".join(more.values()).splitlines()
    assert len(lines) > have
    for line in lines:
        fen, score, result = (x.strip() for x in line.split("|"))
        board = chess.Board(fen)
        assert board.is_valid() and not board.is_check()
        assert abs(int(score)) < 30000 and result in ("1.0", "0.5", "0.0")
    pieces, stm, sc, res, bad = dataset.parse_bytes("".join(more.values()).encode())
    assert bad == 0 and len(stm) == len(lines)


def test_datagen_workers_stop_with_their_parent(tmp_path):
    """Killing or interrupting `datagen` leaves no worker of its local cluster running."""
    import signal
    import time
    for sig in (signal.SIGINT, signal.SIGKILL):
        out = tmp_path / f"d{int(sig)}"
        p = subprocess.Popen([ENGINE, "datagen", "--positions", "10000000", "--jobs", "2",
                              "--nodes", "400", "--out", str(out)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.time() + 120
        while time.time() < end and len([f for f in os.listdir(out) if f.endswith(".progress")]
                                         if out.exists() else []) < 1:
            time.sleep(0.2)
        kids = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True,
                              text=True).stdout.split()
        assert len(kids) >= 2
        p.send_signal(sig)
        p.wait(timeout=30)

        def alive():
            living = []
            for k in map(int, kids):
                try:
                    os.kill(k, 0)
                    if "zombie" not in open(f"/proc/{k}/status").read().lower():
                        living.append(k)
                except (ProcessLookupError, FileNotFoundError):
                    pass
            return living
        end = time.time() + 10          # the workers notice their parent's end within seconds
        while alive() and time.time() < end:
            time.sleep(0.2)
        assert not alive(), (sig, alive())
        size = {f: os.path.getsize(out / f) for f in os.listdir(out) if f.endswith(".txt")}
        time.sleep(1)
        assert size == {f: os.path.getsize(out / f) for f in size}   # nobody writes any more
