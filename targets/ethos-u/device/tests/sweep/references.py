"""References beside TFLite Micro's for the sweep's cases where Vela's stream computes otherwise.

- `references/litert/<case>/output_<k>[_<arg>].npy`: LiteRT's reference kernels' outputs
  (ai-edge-litert's Interpreter with OpResolverType.BUILTIN_REF), for every case where they differ
  from TFLite Micro's `output_<k>.npy`. Vela's stream computes what LiteRT does for some
  operators: RELU6 (LiteRT requantizes to the output's scale, TFLite Micro clamps the input in
  its own quantization), int16 SOFTMAX (Vela's tables are LiteRT's). Cases LiteRT cannot run are
  listed and skipped.
- `references/rounded/<case>/...`: for SUM, the real sum rounded once, half up, to the output's
  quantization (exact rational arithmetic on the scales): Vela sums in a convolution's accumulator
  and rounds once, where TFLite Micro rounds twice (gemmlowp's doubling high multiply, then a
  rounding shift).
- `references/stream/<case>/...`: for the reductions Vela 5.2 compiles wrongly (README.md), what
  its stream computes by its own high-level command stream ([`stream_semantics`]).

Usage (a Python with ai-edge-litert==2.3.0 and numpy): python references.py
"""

import os
import shutil
import sys
from fractions import Fraction

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType

HERE = os.path.dirname(os.path.abspath(__file__))
OPS = os.path.normpath(os.path.join(HERE, "../../../../../test/models/tflite-ops"))


def reference(case, kind, k, arg):
    name = f"{kind}_{k}.npy" if arg == 0 else f"{kind}_{k}_{arg}.npy"
    return os.path.join(OPS, "ref", case, name)


def litert_outputs(case):
    """LiteRT's outputs of `case` per inference, or the reason it cannot run them."""
    try:
        interpreter = Interpreter(
            model_path=os.path.join(OPS, f"{case}.tflite"),
            experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
        )
        interpreter.allocate_tensors()
        inputs, outputs = interpreter.get_input_details(), interpreter.get_output_details()
        results = []
        k = 0
        while os.path.exists(reference(case, "input", k, 0)):
            for arg, detail in enumerate(inputs):
                interpreter.set_tensor(detail["index"], np.load(reference(case, "input", k, arg)))
            interpreter.invoke()
            results.append([interpreter.get_tensor(d["index"]) for d in outputs])
            k += 1
        return results
    except (ValueError, RuntimeError) as e:
        return str(e).splitlines()[0]


def rounded_sum(case):
    """SUM of `case` rounded once per inference, half up; None if the case is not a SUM."""
    interpreter = Interpreter(model_path=os.path.join(OPS, f"{case}.tflite"))
    if [op["op_name"] for op in interpreter._get_ops_details()] != ["SUM"]:
        return None
    interpreter.allocate_tensors()
    detail_in, detail_out = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    (scale_in, zero_in), (scale_out, zero_out) = detail_in["quantization"], detail_out["quantization"]
    ratio = Fraction(float(scale_in)) / Fraction(float(scale_out))
    axes_index = interpreter._get_ops_details()[0]["inputs"][1]
    axes = tuple(int(a) for a in np.atleast_1d(interpreter.get_tensor(axes_index)))
    info = np.iinfo(detail_out["dtype"])
    results = []
    k = 0
    while os.path.exists(reference(case, "input", k, 0)):
        x = np.load(reference(case, "input", k, 0)).astype(np.int64) - zero_in
        total = x.sum(axis=axes)
        y = [min(max((Fraction(int(v)) * ratio + Fraction(1, 2)).__floor__() + zero_out, info.min), info.max)
             for v in total.ravel()]
        results.append([np.array(y, dtype=detail_out["dtype"]).reshape(detail_out["shape"])])
        k += 1
    return results


def stream_semantics(case):
    """What Vela 5.2's stream computes for the cases it compiles wrongly (README.md), per its own
    high-level command stream, or None for other cases:

    - SUM over two axes: the input viewed as rows (up to and including the first reduced axis)
      by columns (the rest), summed over the rows alone and rounded once, half up; the output
      holds the first of those sums.
    - REDUCE_MAX/MIN over axes 1 and 2 of a batch of two: axis 1 reduced, then a window of five
      columns over batch 0's with one column of padding, so the second output is over batch 0's
      columns 1-4.
    """
    interpreter = Interpreter(model_path=os.path.join(OPS, f"{case}.tflite"))
    ops = interpreter._get_ops_details()
    if len(ops) != 1 or ops[0]["op_name"] not in ("SUM", "REDUCE_MAX", "REDUCE_MIN"):
        return None
    interpreter.allocate_tensors()
    axes = [int(a) for a in np.atleast_1d(interpreter.get_tensor(ops[0]["inputs"][1]))]
    detail_in, detail_out = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    shape = list(detail_in["shape"])
    results = []
    k = 0
    while os.path.exists(reference(case, "input", k, 0)):
        x = np.load(reference(case, "input", k, 0)).astype(np.int64)
        if ops[0]["op_name"] == "SUM" and len(axes) == 2:
            first = min(axes)
            rows = int(np.prod(shape[: first + 1]))
            (scale_in, zero_in), (scale_out, zero_out) = detail_in["quantization"], detail_out["quantization"]
            ratio = Fraction(float(scale_in)) / Fraction(float(scale_out))
            sums = (x.reshape(rows, -1) - zero_in).sum(axis=0)
            info = np.iinfo(detail_out["dtype"])
            y = [min(max((Fraction(int(v)) * ratio + Fraction(1, 2)).__floor__() + zero_out, info.min), info.max)
                 for v in sums[: int(np.prod(detail_out["shape"]))]]
        elif ops[0]["op_name"] != "SUM" and sorted(axes) == [1, 2] and shape[0] == 2:
            f = np.max if ops[0]["op_name"] == "REDUCE_MAX" else np.min
            columns = f(x, axis=1)[0]
            y = np.concatenate([f(columns, axis=0), f(columns[1:], axis=0)])
        else:
            return None
        results.append([np.array(y, dtype=detail_out["dtype"]).reshape(detail_out["shape"])])
        k += 1
    return results


def write(kind, case, results):
    os.makedirs(os.path.join(HERE, "references", kind, case))
    for k, outputs in enumerate(results):
        for arg, y in enumerate(outputs):
            name = f"output_{k}.npy" if arg == 0 else f"output_{k}_{arg}.npy"
            np.save(os.path.join(HERE, "references", kind, case, name), y)


def main():
    shutil.rmtree(os.path.join(HERE, "references"), ignore_errors=True)
    cases = sorted({f[: -len(".tflite")] for c in os.listdir(HERE) if c.startswith("ethos-u")
                    for f in os.listdir(os.path.join(HERE, c)) if f.endswith(".tflite")})
    for case in cases:
        rounded = rounded_sum(case)
        if rounded is not None:
            write("rounded", case, rounded)
            print(f"{case}: rounded once, written")
        stream = stream_semantics(case)
        if stream is not None:
            write("stream", case, stream)
            print(f"{case}: what Vela's stream computes, written")
        results = litert_outputs(case)
        if isinstance(results, str):
            print(f"{case}: LiteRT cannot run it ({results})")
            continue
        tflm = [[np.load(reference(case, "output", k, a)) for a in range(len(r))] for k, r in enumerate(results)]
        if all(np.array_equal(t, l) for ts, ls in zip(tflm, results) for t, l in zip(ts, ls)):
            continue
        write("litert", case, results)
        differing = sum(int((t != l).sum()) for ts, ls in zip(tflm, results) for t, l in zip(ts, ls))
        print(f"{case}: LiteRT's outputs differ from TFLite Micro's in {differing} values, written")


if __name__ == "__main__":
    sys.exit(main())
