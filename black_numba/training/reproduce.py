"""Training a network again from what its header records (`black-numba train --like NET`):
the files it was trained on (names and SHA-256), its settings, the net it was tuned from and
the Syzygy tables that labelled it; the run is reproduced when the weights hash repeats."""
import os
import sys

from numba import get_num_threads

from black_numba.evaluation import netfile, nnue
from black_numba.provenance import file_sha256
from black_numba.training import chunks
from black_numba.training.train import LR_FLOOR, TrainConfig, train

# the package's own networks: a net it was tuned from is looked for there last
NET_PLACES = [os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "nets")]


def _activation_of(head):
    """A header's activation: recorded by the trainer, else the architecture string's."""
    t = head.get("trained", {})
    if "activation" in t:
        return t["activation"]
    words = head["architecture"].replace(",", " ").split()
    return next(a for a in nnue.ACTIVATIONS if a in words)


def _trained(net, head):
    """The header's record of its training; ValueError for a net the trainer did not make."""
    t = head.get("trained")
    if not t:
        raise ValueError(f"{net} records no training (not made by black-numba train)")
    return t


def recorded_config(head, paths, out, init=None, syzygy=None):
    """The TrainConfig a network header records, training `paths` into `out`; init: the
    file of the net it was tuned from, syzygy: the tables' folder (where it used them)."""
    t = head["trained"]
    return TrainConfig(paths, out, hidden=int(head["hidden"]), epochs=t["epochs"],
                       lam=t["lam"], seed=t["seed"], batch=t["batch"], lr=t["lr"],
                       holdout=t["holdout"], mirror=t["mirror"],
                       activation=_activation_of(head),
                       buckets=int(head.get("output_buckets", 1)),
                       schedule=t.get("schedule", "step"), lr_floor=t.get("lr_floor", LR_FLOOR),
                       input_mirror=bool(t.get("input_mirror", False)),
                       king_buckets=t.get("king_buckets", "none"),
                       factoriser=bool(t.get("factoriser", False)),
                       data_filter=t.get("filter"), init=init,
                       widen=bool(t.get("widen", False)),
                       filter_others=t.get("filter_others", 0.0), syzygy=syzygy)


def like(net, paths, out, log=sys.stderr, syzygy=None, places=()):
    """Train again the network in file `net` from `paths` with the settings its header
    records, into `out`; True when the weights come out bit for bit the same. The files must
    be the header's, in its order (by name, and by SHA-256 where the header has them).
    syzygy: the tables' folder, else the one the header names; places: folders where the net
    it was tuned from may be, besides its own folder and the package's networks."""
    _, head = netfile.load(net)
    t = _trained(net, head)
    names = [p.rsplit("/", 1)[-1] for p in paths]
    if names != t["data"]:
        raise ValueError(f"{net} was trained on {' '.join(t['data'])} (in that order), "
                         f"not {' '.join(names)}")
    for p, want in zip(paths, t.get("data_sha256", [None] * len(paths))):
        if want is not None and file_sha256(p) != want:
            raise ValueError(f"{p}: SHA-256 differs from the one {net} records ({want[:16]}...)")
    kings = t.get("king_buckets", "none")
    if kings not in nnue.KING_LAYOUTS or list(nnue.KING_LAYOUTS[kings]) != \
            head.get("king_buckets", list(nnue.KING_LAYOUTS["none"])):
        raise ValueError(f"{net}'s king map is not this trainer's layout {kings!r}: it cannot "
                         f"be trained again alike")
    if t.get("threads", get_num_threads()) != get_num_threads():
        print(f"note: {net} was trained with {t['threads']} threads, this run has "
              f"{get_num_threads()} (NUMBA_NUM_THREADS): float sums may differ", file=log)
    # the tables it was trained with: syzygy's, else the folder its header names
    tables = (syzygy or t["syzygy"]["path"]) if "syzygy" in t else None
    init = None
    if "init" in t:
        init = _find_net(t["init"], [os.path.dirname(os.path.abspath(net))] +
                         [p for p in places if os.path.isdir(p)] + NET_PLACES)
    again = train(recorded_config(head, paths, out, init, tables), log=log)
    if tables is not None and again["trained"]["syzygy"]["tag"] != t["syzygy"]["tag"]:
        print(f"note: the tables at {tables} are not the set {os.path.basename(net)} was "
              f"trained with (their names and sizes differ)", file=log)
    same = again["weights_sha256"] == head["weights_sha256"]
    print(f"weights sha256 {again['weights_sha256'][:16]}: "
          f"{'the same as' if same else 'DIFFERS from'} {os.path.basename(net)}'s "
          f"{head['weights_sha256'][:16]}", file=log)
    return same


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
    t = _trained(net, head)
    if not places:
        raise ValueError(f"--like {net}: name the files or folders that hold its training "
                         f"data ({' '.join(t['data'][:3])}{' ...' if len(t['data']) > 3 else ''}"
                         f"), e.g. a checkout's data/ and the shared training files")
    return chunks.locate(t["data"], list(places))
