#!/usr/bin/env bash
# The layer outputs the Ethos-U simulator's tests compare with, from umac's own run of the
# original model on the host (bit-exact with TFLite Micro): for KWS on its reference input, the
# int8 output of each of its first nine operators (convolutions and depthwise convolutions, each
# 25x5x64, in order) as raw bytes in kws_layers.bin. Needs a built umac (cargo build --bin umac)
# and the project venv's numpy (scripts/bootstrap).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$root/target/debug/umac" run "$root/test/models/mlperf-tiny/kws/model.tflite" \
  --input "$root/test/models/mlperf-tiny/kws/ref/input_0.npy" --dump-intermediates "$work" > /dev/null
"$root/.venv/bin/python" - "$work" "$here/kws_layers.bin" <<'PY'
import sys, numpy as np
work, out = sys.argv[1], sys.argv[2]
rows = [line.split("\t") for line in open(f"{work}/index.txt")]
layers = []
for operator in range(9):
    # The last op of each operator: its clamp, the operator's int8 output.
    last = [r for r in rows if f": operator #{operator} (" in r[2]][-1]
    assert last[1] == "tosa.clamp" and last[3].strip() == "int8 1x25x5x64", last
    layers.append(np.load(f"{work}/{last[0]}").astype(np.int8).tobytes())
open(out, "wb").write(b"".join(layers))
PY
