"""`scripts/bench reader`: how long reading a .tflite model takes with umac's own reader against
Arm's tosa-converter-for-tflite, on the .tflite models of test/ (MLPerf Tiny and the LSTM/16x8
set, the models of ../shared). Each is read by the release `umac-opt MODEL -o /dev/null` (read,
parse and verify the TOSA) with UMAC_TFLITE_READER=native and =converter, best of REPEATS wall
times, interleaved in one run; and `umac-opt` on the model's committed TOSA bytecode (or a tiny
module) for the start-up and parse that both share. Writes bench/reader.json and a table."""

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = [
    "mlperf-tiny/kws/model.tflite",
    "mlperf-tiny/vww/model.tflite",
    "mlperf-tiny/ic/model.tflite",
    "mlperf-tiny/ad/model.tflite",
    "lstm-16x8/conv_16x8.tflite",
    "lstm-16x8/lstm_small_f32.tflite",
    "lstm-16x8/lstm_small_int8.tflite",
    "lstm-16x8/lstm_stack_int8.tflite",
]
REPEATS = 7
OPT = ROOT / "target/release/umac-opt"


def best(args, env):
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        result = subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - start)
        if result.returncode != 0:
            sys.exit(f"{' '.join(map(str, args))} failed: {result.stderr.decode()}")
    return min(times)


def main():
    rows = []
    empty = ROOT / "target/bench-empty.mlir"
    empty.write_text("module {}\n")
    startup = best([OPT, empty, "-o", "/dev/null"], dict(os.environ))
    for model in MODELS:
        path = ROOT / "test/models" / model
        native = best([OPT, path, "-o", "/dev/null"], dict(os.environ, UMAC_TFLITE_READER="native"))
        converter = best([OPT, path, "-o", "/dev/null"], dict(os.environ, UMAC_TFLITE_READER="converter"))
        rows.append(
            {
                "model": model,
                "bytes": path.stat().st_size,
                "native_s": round(native, 4),
                "converter_s": round(converter, 4),
                "native_over_converter": round(native / converter, 3),
                "native_minus_startup_s": round(native - startup, 4),
                "converter_minus_startup_s": round(converter - startup, 4),
            }
        )
    report = {
        "what": "umac-opt MODEL -o /dev/null (release), best of %d wall times, per reader" % REPEATS,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "startup_s": round(startup, 4),
        "models": rows,
    }
    (ROOT / "bench/reader.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"umac-opt start-up on an empty module: {startup * 1000:.1f} ms")
    print(f"{'model':40} {'native ms':>10} {'converter ms':>13} {'ratio':>6}")
    for r in rows:
        print(f"{r['model']:40} {r['native_s'] * 1000:10.1f} {r['converter_s'] * 1000:13.1f} {r['native_over_converter']:6.2f}")


if __name__ == "__main__":
    main()
