"""Runs every case of cases.json through `umac run` (target/debug/umac, both engines) and compares
with TFLite Micro's outputs: prints each case that differs (how many elements, the largest
difference) and each case the native reader does not take. What tools/tests/tflite_ops.rs checks,
but reporting everything at once, to update NOT_NATIVE and KNOWN_FAILURES in gen.py.

    .venv-models/bin/python test/models/tflite-ops/check.py [--stats] [--more N] [CASE_OR_OP...]

--stats prints how varied each case's reference outputs are (distinct values, saturation);
--more N also runs N fresh random inputs per case (seeded) through TFLite Micro and umac (both
engines, one `umac run --sequence` each), which finds rarer differences than the committed 3.
"""
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
UMAC = os.path.join(ROOT, "target", "debug", "umac")
INFERENCES = json.load(open(os.path.join(HERE, "cases.json")))["inputs_per_case"]


# Operators whose inputs must mean something (ids in range, broadcastable shapes, a WHILE's trip
# count, an int8 divisor other than its zero point): TFLite Micro stops, aborts the process, or
# leaves the result undefined on random ones. (op, type); None: every type.
MEANINGFUL_INPUTS = {("EMBEDDING_LOOKUP", None), ("BROADCAST_ARGS", None), ("WHILE", None), ("DIV", "int8")}


def compare(got, want):
    """|got - want| and where it is too large: integers exactly, floats within 1e-5 of the larger
    magnitude or 1e-6 absolute (as tools/tests/tflite_ops.rs)."""
    if want.dtype == np.float32:
        diff = np.abs(got.astype(np.float64) - want)
        return diff, diff > np.maximum(1e-5 * np.maximum(np.abs(got), np.abs(want)), 1e-6)
    diff = np.abs(got.astype(np.int64) - want)
    return diff, diff != 0


def run(case, engine, tmp):
    """The case's inferences in order, as one `umac run --sequence` (state carried, as TFLite
    Micro's interpreter carries it): whether umac read it natively, and how it differs."""
    d = os.path.join(HERE, case["ref"])
    n = INFERENCES
    args = []
    for j in range(case["inputs"]):
        path = os.path.join(tmp, f"{case['file']}-{engine}-in{j}.npy")
        np.save(path, np.stack([np.load(os.path.join(d, f"input_{k}.npy" if j == 0 else f"input_{k}_{j}.npy"))
                                for k in range(n)]))
        args += ["--input", path]
    outs = [os.path.join(tmp, f"{case['file']}-{engine}-out{j}.npy") for j in range(case.get("outputs", 1))]
    r = subprocess.run([UMAC, "run", "--sequence", os.path.join(HERE, case["file"]), *args,
                        *[a for o in outs for a in ("--output", o)], "--engine", engine],
                       capture_output=True, text=True)
    native = "converting the model with" not in r.stderr
    if r.returncode:
        return native, f"umac failed: {r.stderr.strip()[-300:]}"
    results = []
    for j, out in enumerate(outs):
        for k, got in enumerate(np.load(out)):
            what = f"input {k}" + (f" output {j}" if len(outs) > 1 else "")
            want = np.load(os.path.join(d, f"output_{k}.npy" if j == 0 else f"output_{k}_{j}.npy"))
            if got.shape != want.shape or got.dtype != want.dtype:
                results.append(f"{what}: {got.dtype}{list(got.shape)} vs {want.dtype}{list(want.shape)}")
                continue
            diff, bad = compare(got, want)
            if bad.any():
                results.append(f"{what}: {int(bad.sum())}/{bad.size} differ, max |diff| {diff.max():.6g}")
    return native, "; ".join(results)


def more(case, engine, n, tmp):
    """`n` fresh inputs through TFLite Micro and umac: how the outputs differ ("" if not)."""
    if (case["op"], None) in MEANINGFUL_INPUTS or (case["op"], case["type"]) in MEANINGFUL_INPUTS:
        return "not run: TensorFlow Lite Micro refuses (or leaves undefined) random inputs for this operator"
    sys.path.insert(0, HERE)
    import gen
    from tflite_micro.python.tflite_micro import runtime

    interp = runtime.Interpreter.from_file(os.path.join(HERE, case["file"]), arena_size=1 << 18)
    rng = np.random.default_rng(12345)
    xs, ys = [], []
    for _ in range(n):
        row = []
        for j in range(case["inputs"]):
            d = interp.get_input_details(j)
            row.append(gen.random_input(rng, d["shape"], d["dtype"]))
            interp.set_input(row[-1], j)
        interp.invoke()
        ys.append([interp.get_output(j).copy() for j in range(case.get("outputs", 1))])
        xs.append(row)
    args = []
    for j in range(case["inputs"]):
        path = os.path.join(tmp, f"more-{case['file']}-{engine}-{j}.npy")
        np.save(path, np.stack([r[j] for r in xs]))
        args += ["--input", path]
    outs = [os.path.join(tmp, f"more-{case['file']}-{engine}-out{j}.npy") for j in range(case.get("outputs", 1))]
    r = subprocess.run([UMAC, "run", "--sequence", "--engine", engine, os.path.join(HERE, case["file"]), *args,
                        *[a for o in outs for a in ("--output", o)]], capture_output=True, text=True)
    if r.returncode:
        return f"umac failed: {r.stderr.strip()[-300:]}"
    # every output, flattened one after the other
    got = np.concatenate([np.load(o).ravel() for o in outs])
    want = np.concatenate([np.stack([y[j] for y in ys]).ravel() for j in range(len(outs))])
    diff, bad = compare(got, want)
    return f"{int(bad.sum())}/{bad.size} elements differ over {n} inputs, max |diff| {diff.max():.6g}" if bad.any() else ""


def main():
    argv = sys.argv[1:]
    n_more = 0
    if "--more" in argv:
        i = argv.index("--more")
        n_more = int(argv[i + 1])
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    stats = "--stats" in argv
    cases = json.load(open(os.path.join(HERE, "cases.json")))["cases"]
    cases = [c for c in cases if not args or c["file"][:-7] in args or c["op"] in args]
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(4) as pool:
        jobs = [(c, e, pool.submit(run, c, e, tmp)) for c in cases for e in ["cranelift", "llvm"]]
        for c, e, j in jobs:
            native, diff = j.result()
            name = c["file"][:-7]
            if not native:
                print(f"NOT NATIVE {name} ({e})")
            if diff:
                print(f"DIFFERS {name} ({e}): {diff}  [{c['variant']}]")
            if stats and e == "llvm":
                ys = np.concatenate([np.load(os.path.join(HERE, c["ref"], f)).ravel()
                                     for f in sorted(os.listdir(os.path.join(HERE, c["ref"])))
                                     if f.startswith("output_")])
                if ys.dtype != np.float32:
                    info = np.iinfo(ys.dtype)
                    sat = np.mean((ys == info.min) | (ys == info.max))
                    print(f"  {name}: {len(np.unique(ys))} distinct of {ys.size}, saturated {sat:.0%}, "
                          f"range [{ys.min()}, {ys.max()}]")
                else:
                    print(f"  {name}: {len(np.unique(ys))} distinct of {ys.size}, range [{ys.min():.3g}, {ys.max():.3g}]")
        if n_more:
            for c in cases:
                for e in ["cranelift", "llvm"]:
                    diff = more(c, e, n_more, tmp)
                    if diff:
                        print(f"DIFFERS ON MORE INPUTS {c['file'][:-7]} ({e}): {diff}  [{c['variant']}]")


if __name__ == "__main__":
    main()
