"""Host benchmark: umac's two engines against the peers a user would pick instead.

Run through `scripts/bench host`, which builds umac (release) and prepares the venv. For every
MLPerf Tiny model: compile time (TOSA -> runnable) and the median inference time over many runs
after warm-up, single-threaded, same inputs for everyone; bit-exactness against TFLite Micro's
reference output is recorded for each. Writes bench/host.json and prints a table with ratios.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.environ.get("UMAC_MODELS", os.path.join(ROOT, "test", "models", "mlperf-tiny"))
RUNS = int(os.environ.get("UMAC_BENCH_RUNS", "200"))
UMAC = os.path.join(ROOT, "target", "release", "umac")
UMAC_OPT = os.path.join(ROOT, "target", "release", "umac-opt")


def median_us(fn, runs=RUNS, warmup=20):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter_ns()
        fn()
        times.append((time.perf_counter_ns() - t) / 1000.0)
    return statistics.median(times)


def umac_engine(model, engine):
    d = os.path.join(MODELS, model)
    out = subprocess.run(
        [UMAC, "run", os.path.join(d, "model_b1.mlir"), "--input", os.path.join(d, "ref", "input_0.npy"),
         "--engine", engine, "--benchmark", str(RUNS)],
        check=True, capture_output=True, text=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    with tempfile.TemporaryDirectory() as tmp:
        y = os.path.join(tmp, "y.npy")
        subprocess.run([UMAC, "run", os.path.join(d, "model_b1.mlir"), "--input", os.path.join(d, "ref", "input_0.npy"),
                        "--output", y, "--engine", engine], check=True, capture_output=True)
        exact = bool(np.array_equal(np.load(y), np.load(os.path.join(d, "ref", "output_0.npy"))))
    return {"compile_s": result["compile_s"], "run_us": result["run_us_median"], "bit_exact": exact}


def iree(model):
    import iree.compiler as compiler
    import iree.runtime as runtime
    d = os.path.join(MODELS, model)
    x = np.load(os.path.join(d, "ref", "input_0.npy"))
    with tempfile.TemporaryDirectory() as tmp:
        generic = os.path.join(tmp, "model_b1_generic.mlir")
        subprocess.run([UMAC_OPT, os.path.join(d, "model_b1.mlir"), "--mlir-print-op-generic", "-o", generic], check=True)
        t = time.perf_counter()
        vmfb = compiler.compile_file(generic, input_type="tosa", target_backends=["llvm-cpu"],
                                     extra_args=["--iree-llvmcpu-target-cpu=host"])
        compile_s = time.perf_counter() - t
    config = runtime.Config("local-sync")
    ctx = runtime.SystemContext(config=config)
    ctx.add_vm_module(runtime.VmModule.copy_buffer(ctx.instance, vmfb))
    main = ctx.modules.module["main"]
    y = np.asarray(main(x))
    exact = bool(np.array_equal(y, np.load(os.path.join(d, "ref", "output_0.npy"))))
    return {"compile_s": compile_s, "run_us": median_us(lambda: main(x)), "bit_exact": exact}


def litert(model):
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    d = os.path.join(MODELS, model)
    x = np.load(os.path.join(d, "ref", "input_0.npy"))
    interp = Interpreter(model_path=os.path.join(d, "model.tflite"), num_threads=1,
                         experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interp.allocate_tensors()
    inp, out = interp.get_input_details()[0]["index"], interp.get_output_details()[0]["index"]

    def once():
        interp.set_tensor(inp, x)
        interp.invoke()

    once()
    exact = bool(np.array_equal(interp.get_tensor(out), np.load(os.path.join(d, "ref", "output_0.npy"))))
    return {"compile_s": None, "run_us": median_us(once), "bit_exact": exact}


def tflm(model):
    from tflite_micro import runtime
    d = os.path.join(MODELS, model)
    x = np.load(os.path.join(d, "ref", "input_0.npy"))
    interp = runtime.Interpreter.from_file(os.path.join(d, "model.tflite"))

    def once():
        interp.set_input(x, 0)
        interp.invoke()

    once()
    exact = bool(np.array_equal(interp.get_output(0), np.load(os.path.join(d, "ref", "output_0.npy"))))
    return {"compile_s": None, "run_us": median_us(once, runs=max(RUNS // 4, 10)), "bit_exact": exact}


def main():
    results = {"runs": RUNS, "models": {}}
    for model in ["kws", "vww", "ic", "ad"]:
        row = {}
        for name, fn in [("umac-cranelift", lambda m: umac_engine(m, "cranelift")),
                         ("umac-llvm", lambda m: umac_engine(m, "llvm")),
                         ("iree", iree), ("litert", litert), ("tflm", tflm)]:
            try:
                row[name] = fn(model)
            except Exception as e:  # a peer that fails to install or run is reported, not fatal
                row[name] = {"error": f"{type(e).__name__}: {e}"}
            print(f"{model} {name}: {row[name]}", file=sys.stderr)
        llvm, ir, cl = row["umac-llvm"], row.get("iree", {}), row["umac-cranelift"]
        ratios = {}
        if "run_us" in llvm and "run_us" in ir:
            ratios["llvm_run_vs_iree"] = llvm["run_us"] / ir["run_us"]
        if "compile_s" in llvm and ir.get("compile_s"):
            ratios["llvm_compile_vs_iree"] = llvm["compile_s"] / ir["compile_s"]
        if "compile_s" in cl and "compile_s" in llvm:
            ratios["cranelift_compile_vs_llvm"] = cl["compile_s"] / llvm["compile_s"]
        row["ratios"] = ratios
        results["models"][model] = row
    os.makedirs(os.path.join(ROOT, "bench"), exist_ok=True)
    with open(os.path.join(ROOT, "bench", "host.json"), "w") as f:
        json.dump(results, f, indent=1)
    fmt = lambda v, scale=1.0, unit="": "-" if v is None else f"{v * scale:.1f}{unit}"
    print(f"\n{'model':6} {'peer':15} {'compile':>10} {'run µs':>10} {'bit-exact':>9}")
    for model, row in results["models"].items():
        for name in ["umac-cranelift", "umac-llvm", "iree", "litert", "tflm"]:
            r = row[name]
            if "error" in r:
                print(f"{model:6} {name:15} {r['error'][:60]}")
                continue
            print(f"{model:6} {name:15} {fmt(r['compile_s'], 1000, ' ms'):>10} {r['run_us']:>10.1f} {str(r['bit_exact']):>9}")
        print("       ratios: " + ", ".join(f"{k} {v:.2f}x" for k, v in row["ratios"].items()))


if __name__ == "__main__":
    main()
