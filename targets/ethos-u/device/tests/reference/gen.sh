#!/usr/bin/env bash
# The layer outputs the Ethos-U simulator's tests compare with, from umac's own run of the
# original models on the host (bit-exact with TFLite Micro), on their reference inputs, as raw
# int8 bytes: KWS's first nine operators (convolutions and depthwise convolutions, each 25x5x64,
# in order) in kws_layers.bin; VWW's operator 26 (3x3x256, the last before its average pool)
# in vww_pool_input.bin; the average pool's and the fully connected layer's outputs of each
# (KWS 64 and 12 bytes, VWW 256 and 2, IC 64 and 10) in <model>_head.bin; IC's three residual
# additions (32x32x16, 16x16x32, 8x8x64) in ic_adds.bin. Needs a built umac (cargo build --bin umac) and the project venv's numpy
# (scripts/bootstrap).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
dump() { # model operators... -> output file
  local model=$1 out=$2; shift 2
  rm -rf "$work/$model"
  "$root/target/debug/umac" run "$root/test/models/mlperf-tiny/$model/model.tflite" \
    --input "$root/test/models/mlperf-tiny/$model/ref/input_0.npy" --dump-intermediates "$work/$model" > /dev/null
  "$root/.venv/bin/python" - "$work/$model" "$here/$out" "$@" <<'PY'
import sys, numpy as np
work, out, operators = sys.argv[1], sys.argv[2], [int(o) for o in sys.argv[3:]]
rows = [line.split("\t") for line in open(f"{work}/index.txt")]
layers = []
for operator in operators:
    # The last op of each operator: the operator's int8 output.
    last = [r for r in rows if f": operator #{operator} (" in r[2]][-1]
    assert last[3].startswith("int8 "), last
    layers.append(np.load(f"{work}/{last[0]}").astype(np.int8).tobytes())
open(out, "wb").write(b"".join(layers))
PY
}
dump kws kws_layers.bin 0 1 2 3 4 5 6 7 8
dump kws kws_head.bin 9 11
dump vww vww_pool_input.bin 26
dump vww vww_head.bin 27 29
dump ic ic_adds.bin 3 7 11
dump ic ic_head.bin 12 14
