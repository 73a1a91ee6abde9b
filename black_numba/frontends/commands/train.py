"""`black-numba train`: fit the network to labelled positions (training/train.py).

    black-numba train DATA.txt[.xz] [...] --out NET.bnn [--hidden 256] [--epochs 20]
        [--lam 0.75] [--seed 1] [--batch 16384] [--lr 0.001] [--holdout 0.03] [--mirror]
        [--activation crelu|screlu] [--buckets 1] [--input-mirror] [--king-buckets none|k4|k8]
        [--schedule step|cosine] [--filter compensation] [--init NET] [--syzygy PATH]
    black-numba train DATA... --like NET.bnn --out AGAIN.bnn   # retrain NET, compare hashes

The arguments are checked here and made into a TrainConfig; `--like` is reproduce.like.
"""
import sys

from black_numba.evaluation import nnue
from black_numba.training import chunks
from black_numba.training.batches import FILTERS
from black_numba.training.reproduce import like, like_files
from black_numba.training.train import SCHEDULES, TrainConfig, train

D = TrainConfig           # the defaults are the config's


def add_arguments(ap):
    """The `black-numba train` command line."""
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
    ap.add_argument("--hidden", type=int, default=D.hidden)
    ap.add_argument("--epochs", type=int, default=D.epochs)
    ap.add_argument("--lam", type=float, default=D.lam,
                    help="weight of the score label against the game result")
    ap.add_argument("--seed", type=int, default=D.seed)
    ap.add_argument("--batch", type=int, default=D.batch)
    ap.add_argument("--lr", type=float, default=D.lr)
    ap.add_argument("--holdout", type=float, default=D.holdout)
    ap.add_argument("--schedule", choices=SCHEDULES, default=D.schedule,
                    help="learning rate: step (x0.1 for the last quarter of the epochs) or "
                         "cosine (decay over every step to --lr-floor times --lr)")
    ap.add_argument("--lr-floor", type=float, default=D.lr_floor,
                    help="the cosine schedule's last rate, as a share of --lr")
    ap.add_argument("--activation", choices=nnue.ACTIVATIONS, default=D.activation,
                    help="clipped ReLU or its square (SCReLU)")
    ap.add_argument("--buckets", type=int, default=D.buckets,
                    help=f"output buckets by piece count, 1..{nnue.MAX_BUCKETS}")
    ap.add_argument("--buffer", type=int, default=D.buffer,
                    help="positions held in memory at once: more data is shuffled through a "
                         "buffer this size (about 90 bytes a position)")
    ap.add_argument("--input-mirror", action="store_true",
                    help="input mirroring: each side's view mirrored to files a-d by its "
                         "king's file (nnue.py); replaces --mirror")
    ap.add_argument("--king-buckets", choices=tuple(nnue.KING_LAYOUTS), default=D.king_buckets,
                    help="king-bucketed inputs: one set of the 768 inputs a bucket of the own "
                         "king's square (nnue.KING_LAYOUTS: k4 four, k8 eight); best with "
                         "--input-mirror")
    ap.add_argument("--factoriser", action="store_true",
                    help="with --king-buckets: a shared set of the 768 inputs trained beside "
                         "the buckets' and added into each at the end; --init may then name a "
                         "net without king buckets, whose weights start the shared set")
    ap.add_argument("--filter", choices=FILTERS, dest="data_filter",
                    help="train only on positions that pass a filter: compensation, the side "
                         "to move down material but not worse by its label; won-compensation, "
                         "a side whose label is far above its material and who won the game "
                         "(an Aggressive network, with --init)")
    ap.add_argument("--filter-others", type=float, default=D.filter_others, metavar="SHARE",
                    help="with --filter, also this share (0..1) of the positions that do not "
                         "pass it, drawn by the seed")
    ap.add_argument("--init", metavar="NET",
                    help="start from NET's weights (fine-tuning; the same architecture "
                         "options), keeping its logistic scales")
    ap.add_argument("--widen", action="store_true",
                    help="with --init: the net may be narrower than --hidden; its units are "
                         "kept and the new ones start with output weights of 0 (training "
                         "starts from its evaluation)")
    ap.add_argument("--syzygy", metavar="PATH",
                    help="label positions the Syzygy tables in PATH hold by the tables' "
                         "verdict (a win at least +600, a draw 0; tblabels.py), computed once "
                         "per data file and stored beside it")
    ap.add_argument("--mirror", action="store_true",
                    help="also train on every position mirrored between the a- and h-files")
    ap.add_argument("--checkpoint", metavar="FILE",
                    help="write the run's state to FILE (.npz) after every epoch; where FILE "
                         "exists, go on from it (the same command line): the same net as a "
                         "run that was not stopped")
    ap.add_argument("--stop-after", type=int, metavar="EPOCHS",
                    help="with --checkpoint: stop after this many epochs of this run (run "
                         "the command again to go on)")


def _bad_arguments(args):
    """What is wrong with the arguments, or None."""
    if not 1 <= args.hidden <= nnue.MAX_HIDDEN:
        return f"--hidden must be 1..{nnue.MAX_HIDDEN}"
    if not 0.0 <= args.lr_floor <= 1.0:
        return "--lr-floor must be between 0 and 1"
    if args.buffer < args.batch:
        return f"--buffer must be at least --batch ({args.batch})"
    if not 1 <= args.buckets <= nnue.MAX_BUCKETS:
        return f"--buckets must be 1..{nnue.MAX_BUCKETS}"
    if args.stop_after is not None and (args.stop_after < 1 or not args.checkpoint):
        return "--stop-after takes 1 or more epochs and goes with --checkpoint"
    return None


def _error(text):
    print(f"black-numba train: {text}", file=sys.stderr)
    return 2


def run(args):
    """Train, or with --like train a net again; the exit code: 0 done (with --like: the same
    weights), 1 other weights, 2 bad arguments or data."""
    bad = _bad_arguments(args)
    if bad:
        return _error(bad)
    if args.like:
        try:
            return 0 if like(args.like, like_files(args.like, args.data), args.out,
                             syzygy=args.syzygy, places=args.data) else 1
        except (OSError, ValueError) as e:
            return _error(e)
    if not args.data:
        return _error("no training data given")
    try:
        paths = chunks.expand(args.data, args.skip_bad,
                              lambda msg: print(f"black-numba train: {msg}", file=sys.stderr))
    except chunks.ChunkError as e:
        return _error(f"{e} (--skip-bad leaves such chunks out)")
    except (OSError, ValueError) as e:
        return _error(e)
    config = TrainConfig(paths, args.out, hidden=args.hidden, epochs=args.epochs, lam=args.lam,
                         seed=args.seed, batch=args.batch, lr=args.lr, holdout=args.holdout,
                         schedule=args.schedule, lr_floor=args.lr_floor,
                         activation=args.activation, buckets=args.buckets,
                         input_mirror=args.input_mirror, king_buckets=args.king_buckets,
                         factoriser=args.factoriser, mirror=args.mirror, buffer=args.buffer,
                         data_filter=args.data_filter, filter_others=args.filter_others,
                         init=args.init, widen=args.widen, syzygy=args.syzygy,
                         checkpoint=args.checkpoint)
    try:
        train(config, stop_after=args.stop_after)
    except (OSError, ValueError) as e:
        return _error(e)
    return 0
