"""Explicit vector code (SIMD) for the network's output layer.

LLVM's loop vectoriser sizes a loop by its widest type: the SCReLU output sums int32, so it
picks 8 lanes and the int16 work runs in 128-bit registers (one `vpmaddwd` on 8 units). Here
the loop is written in LLVM IR on 16-lane int16 vectors, each step summing the products of
neighbouring lanes into 8 int32 lanes (multiply-add of 16-bit pairs, as Stockfish's and
bullet's SCReLU inference do). Where the target has AVX2 (the features Numba compiles for)
that step is the 256-bit `vpmaddwd` itself (LLVM intrinsic ``llvm.x86.avx2.pmadd.wd``);
elsewhere it is written in generic vector IR (even and odd lanes widened, multiplied and
added), which any target legalises its own way. Integer sums wrap modulo 2^32 in any order,
so both equal the scalar loop's result bit for bit. Numba's cache is keyed by CPU name and
features, so code compiled with the intrinsic never runs on a CPU without AVX2.
"""
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils, config
from numba.extending import intrinsic

LANES = 16                # int16 units a vector step (256 bits)

_I16 = ir.IntType(16)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_V16 = ir.VectorType(_I16, LANES)
_V8W = ir.VectorType(_I32, LANES // 2)
_EVEN = ir.Constant(ir.VectorType(_I32, LANES // 2), list(range(0, LANES, 2)))
_ODD = ir.Constant(ir.VectorType(_I32, LANES // 2), list(range(1, LANES, 2)))
_SPLAT = ir.Constant(ir.VectorType(_I32, LANES), [0] * LANES)
PMADDWD = "llvm.x86.avx2.pmadd.wd"   # <16 x i16> x <16 x i16> -> <8 x i32>: vpmaddwd


def has_avx2(context):
    """Whether the CPU features Numba compiles for (the host's, or NUMBA_CPU_FEATURES)
    include AVX2."""
    features = getattr(context.codegen(), "_get_host_cpu_features", lambda: "")()
    return "+avx2" in str(features).split(",")


def _is_vector_row(ty):
    """A contiguous 1-d int16 array: the rows the output layer reads."""
    return isinstance(ty, types.Array) and ty.ndim == 1 and ty.dtype == types.int16 \
        and ty.layout == "C"


@intrinsic
def screlu_dot(typingctx, acc, weights, blocks, top):
    """sum over i < blocks * LANES of int16(v * w[i]) * v, v = acc[i] clamped to [0, top],
    as an int32 that wraps (the SCReLU output layer, output's scalar loop): the product v * w
    formed in 16-bit lanes first, as vector code does."""
    if not (_is_vector_row(acc) and _is_vector_row(weights)
            and isinstance(blocks, types.Integer) and isinstance(top, types.Integer)):
        return None
    sig = types.int32(acc, weights, blocks, top)

    def codegen(context, builder, signature, args):
        aty, wty = signature.args[0], signature.args[1]
        a_ary = context.make_array(aty)(context, builder, args[0])
        w_ary = context.make_array(wty)(context, builder, args[1])
        n_blocks = context.cast(builder, args[2], signature.args[2], types.int64)
        t = builder.trunc(context.cast(builder, args[3], signature.args[3], types.int64), _I16)
        top_v = builder.shuffle_vector(
            builder.insert_element(ir.Constant(_V16, ir.Undefined), t, ir.Constant(_I32, 0)),
            ir.Constant(_V16, ir.Undefined), _SPLAT)
        zero_v = ir.Constant(_V16, None)
        madd = None
        if has_avx2(context):
            madd = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(_V8W, [_V16, _V16]), PMADDWD)
        total = cgutils.alloca_once_value(builder, ir.Constant(_V8W, None))
        with cgutils.for_range(builder, n_blocks) as loop:
            off = builder.mul(loop.index, ir.Constant(_I64, LANES))
            a_ptr = builder.bitcast(cgutils.get_item_pointer(context, builder, aty, a_ary, [off]),
                                    _V16.as_pointer())
            w_ptr = builder.bitcast(cgutils.get_item_pointer(context, builder, wty, w_ary, [off]),
                                    _V16.as_pointer())
            v = builder.load(a_ptr, align=2, typ=_V16)
            w = builder.load(w_ptr, align=2, typ=_V16)
            # SCReLU's clamp to [0, top], then v * w in 16-bit lanes (|top * w| < 2^15)
            v = builder.select(builder.icmp_signed("<", v, zero_v), zero_v, v)
            v = builder.select(builder.icmp_signed(">", v, top_v), top_v, v)
            vw = builder.mul(v, w)
            # pairs of neighbouring lanes widened, multiplied and summed (multiply-add)
            if madd is not None:
                pairs = builder.call(madd, [vw, v])
            else:
                pairs = builder.add(
                    builder.mul(builder.sext(builder.shuffle_vector(vw, vw, _EVEN), _V8W),
                                builder.sext(builder.shuffle_vector(v, v, _EVEN), _V8W)),
                    builder.mul(builder.sext(builder.shuffle_vector(vw, vw, _ODD), _V8W),
                                builder.sext(builder.shuffle_vector(v, v, _ODD), _V8W)))
            builder.store(builder.add(builder.load(total, typ=_V8W), pairs), total)
        lanes = builder.load(total, typ=_V8W)
        out = builder.extract_element(lanes, ir.Constant(_I32, 0))
        for k in range(1, LANES // 2):
            out = builder.add(out, builder.extract_element(lanes, ir.Constant(_I32, k)))
        return out

    return sig, codegen


if config.DISABLE_JIT:
    # Numba's pure-Python mode (NUMBA_DISABLE_JIT=1, as under the CUDA simulator) cannot run
    # an intrinsic: the same sum in numpy.
    def screlu_dot(acc, weights, blocks, top):             # noqa: F811
        """The pure-Python screlu_dot: the same int32 sum."""
        n = int(blocks) * LANES
        v = np.clip(np.asarray(acc[:n], dtype=np.int64), 0, int(top))
        vw = (v * weights[:n]).astype(np.int16).astype(np.int64)
        return np.int32(((int((vw * v).sum()) + 2 ** 31) % 2 ** 32) - 2 ** 31)
