"""The network file (``.bnn``): a versioned header, then the quantised weights.

    bytes 0..7    magic b"BNNUE\\r\\n\\x1a"
    uint32        format version: 1, or 2 (KING_BUCKETS_VERSION) for a net with king buckets,
                  whose JSON then holds "king_buckets", the 64-square map (nnue.py)
    uint32        length L of the JSON header
    L bytes       JSON: architecture, input layout, hidden size, quantisation, the SHA-256 of
                  the weight bytes, and how the net was trained (data, seed, losses)
    rest          little-endian weights: int16 feature weights [K * 768][N] (K king buckets,
                  1 in version 1), int16 feature biases
                  [N], int16 output weights [B][2N] (side to move first), int32 output biases
                  [B] (B output buckets by piece count; one for the plain network)

``load`` checks every field and the hash and raises NetError with a sentence a user can act
on: a missing, truncated, corrupt or foreign file never replaces the evaluation in use.
"""
import hashlib
import json
import os
import struct

import numpy as np

from black_numba.evaluation import nnue

MAGIC = b"BNNUE\r\n\x1a"
FORMAT_VERSION = 1                 # the plain inputs: the files every version reads
KING_BUCKETS_VERSION = 2           # king buckets: older engines refuse the file by its version
VERSIONS = (FORMAT_VERSION, KING_BUCKETS_VERSION)
ARCHITECTURE = "768->{N}x2->1 {act}"      # act: nnue.ACTIVATIONS
KING_BUCKETED = "{K}x"                    # prefixed when there are K > 1 king buckets
BUCKETED = ", {B} output buckets by piece count"   # appended when B > 1
INPUTS = "piece-square 768, own pieces first, Black's view flipped vertically"
# input mirroring (nnue.py): each view mirrored to files a-d by its own king's file
INPUTS_MIRRORED = INPUTS + ", mirrored between the a- and h-files when the own king is on e-h"
INPUT_LAYOUTS = (INPUTS, INPUTS_MIRRORED)      # by NN[H_MIRROR]
KING_INPUTS = ", one set a king bucket of the own king's square"   # appended when K > 1
DEFAULT_NET = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "nets",
                           "default.bnn")
MAX_HEADER = 1 << 16


class NetError(ValueError):
    """A network file that cannot be used, with the reason."""


def architecture(hidden, activation, buckets, kbuckets=1):
    """The architecture string of a header (activation: its name)."""
    text = ARCHITECTURE.format(N=hidden, act=activation)
    if kbuckets > 1:
        text = KING_BUCKETED.format(K=kbuckets) + text
    return text + BUCKETED.format(B=buckets) if buckets > 1 else text


def inputs_of(mirrored, kbuckets):
    """The input layout string of a header."""
    return INPUT_LAYOUTS[1 if mirrored else 0] + (KING_INPUTS if kbuckets > 1 else "")


def _weight_bytes(NN):
    ft_w, ft_b, out_w, out_b = nnue.unpack(NN)
    return (ft_w.astype("<i2").tobytes() + ft_b.astype("<i2").tobytes()
            + out_w.astype("<i2").tobytes() + out_b.astype("<i4").tobytes())


def weights_hash(NN):
    """SHA-256 (hex) of a network's weight bytes as stored in its file."""
    return hashlib.sha256(_weight_bytes(NN)).hexdigest()


def header_of(NN, **meta):
    n, b, k = int(NN[nnue.H_HIDDEN]), int(NN[nnue.H_BUCKETS]), nnue.kbuckets_of(NN)
    act = nnue.ACTIVATIONS[int(NN[nnue.H_ACT])]
    head = {"architecture": architecture(n, act, b, k),
            "inputs": inputs_of(NN[nnue.H_MIRROR], k), "hidden": n,
            "output_buckets": b,
            **({"king_buckets": list(nnue.king_map(NN))} if k > 1 else {}),
            "qa": nnue.QA, "qb": nnue.QB, "out_scale": nnue.OUT_SCALE,
            "weights_sha256": weights_hash(NN)}
    head.update(meta)
    return head


def save(path, NN, **meta):
    """Write NN to path (atomically) with meta (JSON-able) in its header; returns the header."""
    head = header_of(NN, **meta)
    text = json.dumps(head, sort_keys=True).encode()
    tmp = f"{path}.{os.getpid()}.tmp"
    version = KING_BUCKETS_VERSION if "king_buckets" in head else FORMAT_VERSION
    with open(tmp, "wb") as f:
        f.write(MAGIC + struct.pack("<II", version, len(text)) + text)
        f.write(_weight_bytes(NN))
    os.replace(tmp, path)
    return head


def weights_sha256(path):
    """The SHA-256 (hex) of a network file's weights, as its header states it: the network's
    name in records (its first 8 digits)."""
    return load(path)[1]["weights_sha256"]


def load(path):
    """(NN, header) of a network file; NetError when it cannot be used."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise NetError(f"cannot read network file {path}: {e.strerror}") from None
    return loads(data, path)


def loads(data, path="network"):
    """(NN, header) of a network file's bytes (path names it in errors)."""
    if len(data) < 16 or data[:8] != MAGIC:
        raise NetError(f"{path} is not a black_numba network file (bad magic)")
    version, hlen = struct.unpack("<II", data[8:16])
    if version not in VERSIONS:
        raise NetError(f"{path}: format version {version}, this engine reads versions "
                       f"{' and '.join(map(str, VERSIONS))}")
    if hlen > MAX_HEADER or 16 + hlen > len(data):
        raise NetError(f"{path}: truncated header")
    try:
        head = json.loads(data[16:16 + hlen])
        n = int(head["hidden"])
        b = int(head.get("output_buckets", 1))
        arch = head["architecture"]
        quant = (head["qa"], head["qb"], head["out_scale"])
        digest = head["weights_sha256"]
        kmap = head.get("king_buckets")
        if (kmap is not None) != (version == KING_BUCKETS_VERSION):
            raise ValueError
        if kmap is not None and not (
                isinstance(kmap, list) and len(kmap) == 64
                and all(type(x) is int and 0 <= x < nnue.MAX_KING_BUCKETS for x in kmap)
                and max(kmap) >= 1):
            raise ValueError
    except (ValueError, KeyError, TypeError, OverflowError):
        raise NetError(f"{path}: unreadable header") from None
    k = max(kmap) + 1 if kmap else 1
    prefix = arch.split("x", 1)[0] if isinstance(arch, str) and arch[:1].isdigit() \
        and arch.split("->", 1)[0].count("x") == 1 else "1"
    if prefix.isdigit() and int(prefix) != k:
        raise NetError(f"{path}: the king map has {k} bucket{'s' if k > 1 else ''}, the "
                       f"architecture '{arch}' says {prefix}")
    runs = [architecture(n, a, b, k) for a in nnue.ACTIVATIONS]
    layouts = [inputs_of(m, k) for m in (False, True)]
    if arch not in runs or head.get("inputs") not in layouts:
        known = " or ".join(architecture("N", a, 1) for a in nnue.ACTIVATIONS)
        raise NetError(f"{path}: architecture '{arch}' is not one this engine runs ({known}, "
                       f"with 1..{nnue.MAX_BUCKETS} output buckets and up to "
                       f"{nnue.MAX_KING_BUCKETS} king buckets)")
    if not 1 <= n <= nnue.MAX_HIDDEN:
        raise NetError(f"{path}: hidden size {n} outside 1..{nnue.MAX_HIDDEN}")
    if not 1 <= b <= nnue.MAX_BUCKETS:
        raise NetError(f"{path}: {b} output buckets, outside 1..{nnue.MAX_BUCKETS}")
    if quant != (nnue.QA, nnue.QB, nnue.OUT_SCALE):
        raise NetError(f"{path}: quantisation {quant}, this engine uses "
                       f"{(nnue.QA, nnue.QB, nnue.OUT_SCALE)}")
    body = data[16 + hlen:]
    want = 2 * (nnue.FEATURES * k * n + n + 2 * n * b) + 4 * b
    if len(body) != want:
        raise NetError(f"{path}: {len(body)} bytes of weights, {want} expected (truncated?)")
    if hashlib.sha256(body).hexdigest() != digest:
        raise NetError(f"{path}: weights do not match their hash (corrupt file)")
    a = nnue.FEATURES * k * n
    w16 = np.frombuffer(body[:-4 * b], dtype="<i2").astype(np.int16)
    out_b = np.frombuffer(body[-4 * b:], dtype="<i4").astype(np.int64)
    try:
        NN = nnue.pack(w16[:a].reshape(nnue.FEATURES * k, n), w16[a:a + n],
                       w16[a + n:].reshape(b, 2 * n), out_b, runs.index(arch),
                       mirror=head["inputs"] == layouts[1], king_map=kmap)
    except ValueError as e:
        raise NetError(f"{path}: {e}") from None
    return NN, head
