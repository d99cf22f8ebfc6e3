#!/usr/bin/env bash
# The single-operator sweep for the Ethos-U device: every int8 and int16 case of
# test/models/tflite-ops compiled by the project venv's Vela (5.2.0) for each of the six
# configurations, kept here as <configuration>/<case>.tflite when Vela puts the whole model on the
# NPU (one ethos-u operator).
# tests/sweep.rs runs each on TFLite Micro's reference inputs and checks the outcome listed in
# status.txt (UMAC_UPDATE_SWEEP=1 cargo test -p umac-ethos-u-device --test sweep rewrites it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../../.." && pwd)"
vela="$root/.venv/bin/vela"
"$vela" --version | grep -qx 5.2.0 || { echo "gen.sh: Vela 5.2.0 expected (scripts/bootstrap)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for config in ethos-u55-32 ethos-u55-64 ethos-u55-128 ethos-u55-256 ethos-u65-256 ethos-u65-512; do
mkdir -p "$here/$config"
rm -f "$here/$config"/*.tflite
for model in "$root"/test/models/tflite-ops/*_int8_*.tflite "$root"/test/models/tflite-ops/*_int16_*.tflite; do
  case="$(basename "$model" .tflite)"
  "$vela" --accelerator-config "$config" --output-dir "$work/$config/$case" "$model" > "$work/$case.log" 2>&1 || continue
  compiled="$work/$config/$case/${case}_vela.tflite"
  # Only models wholly on the NPU: their one operator is ethos-u.
  if "$root/.venv/bin/python" - "$compiled" <<'PY'
import sys
from ethosu.vela.tflite.Model import Model
m = Model.GetRootAsModel(open(sys.argv[1], "rb").read(), 0)
sg = m.Subgraphs(0)
codes = [m.OperatorCodes(sg.Operators(i).OpcodeIndex()).CustomCode() for i in range(sg.OperatorsLength())]
sys.exit(0 if codes == [b"ethos-u"] else 1)
PY
  then
    cp "$compiled" "$here/$config/$case.tflite"
  fi
done
done
# The references beside TFLite Micro's (references/, README.md): a Python with
# ai-edge-litert==2.3.0 and numpy runs references.py.
