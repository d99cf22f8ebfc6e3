#!/usr/bin/env bash
# Regenerates the Vela-compiled models the Ethos-U device's tests run, with the project venv's
# Vela (5.2.0, installed by scripts/bootstrap): for each model (the MLPerf Tiny four, conv_16x8
# and two LSTMs) and configuration, Vela's model_vela.tflite and its listing of the register command stream (`vela.txt`: the lines of
# --verbose-register-command-stream: Vela's own decoding of every command, and its note on each
# operation and DMA before their commands, which the tests compare with the device's), and Vela's
# own cycle estimate (`vela_per-layer.csv`, `vela_summary.csv`: its per-layer and whole-network
# figures, which the timing model is compared with). Run from anywhere; it rewrites this
# folder's models.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../../.." && pwd)"
vela="$root/.venv/bin/vela"
[ -x "$vela" ] || { echo "gen.sh: $vela missing: run scripts/bootstrap" >&2; exit 1; }
"$vela" --version | grep -qx 5.2.0 || { echo "gen.sh: Vela 5.2.0 expected" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
compile() { # name config model.tflite
  local out="$here/$1-$2" stem
  stem="$(basename "$3" .tflite)"
  mkdir -p "$out"
  "$vela" --accelerator-config "$2" --output-dir "$work/$1-$2" --verbose-register-command-stream --verbose-performance \
    "$3" > "$work/$1-$2.log"
  cp "$work/$1-$2/${stem}_vela.tflite" "$out/model_vela.tflite"
  cp "$work/$1-$2/${stem}_per-layer.csv" "$out/vela_per-layer.csv"
  cp "$work/$1-$2/${stem}"_summary_*.csv "$out/vela_summary.csv"
  # The LSTMs' listings (1-2 MB each) are left out: their streams are checked by running them.
  case "$1" in
    lstm*) rm -f "$out/vela.txt" ;;
    *) grep -E '^(Register command stream|0x[0-9a-f]{6}:|// )' "$work/$1-$2.log" > "$out/vela.txt" ;;
  esac
}
# The MLPerf Tiny models, and the int8 models of test/models/lstm-16x8: conv_16x8 (int16
# activations) and the two LSTMs (which Vela puts wholly on the NPU, their state in variable
# tensors).
for c in ethos-u55-32 ethos-u55-64 ethos-u55-128 ethos-u55-256 ethos-u65-256 ethos-u65-512; do
  for m in kws vww ic ad; do compile "$m" "$c" "$root/test/models/mlperf-tiny/$m/model.tflite"; done
  compile conv16x8 "$c" "$root/test/models/lstm-16x8/conv_16x8.tflite"
  compile lstmsmall "$c" "$root/test/models/lstm-16x8/lstm_small_int8.tflite"
  compile lstmstack "$c" "$root/test/models/lstm-16x8/lstm_stack_int8.tflite"
done
# Models Vela puts partly on the CPU, for `umac run` (tools/tests/umac_run_vela.rs), as
# ../mixed/<name>-<configuration>.tflite: test/models/ops-16x8/quantize.tflite for every
# configuration (a float input quantized to int16 on the CPU, two 16x8 fully connected layers on
# the NPU, the output dequantized on the CPU), and for the Ethos-U55-128 assign_variable_int8_0 of
# test/models/tflite-ops (an accumulator in a resource variable the CPU reads and assigns around
# the NPU's addition).
mixed() { # name config model.tflite
  "$vela" --accelerator-config "$2" --output-dir "$work/mixed-$1-$2" "$3" > /dev/null
  cp "$work/mixed-$1-$2/$(basename "$3" .tflite)_vela.tflite" "$here/../mixed/$1-$2.tflite"
}
mkdir -p "$here/../mixed"
for c in ethos-u55-32 ethos-u55-64 ethos-u55-128 ethos-u55-256 ethos-u65-256 ethos-u65-512; do
  mixed quantize16 "$c" "$root/test/models/ops-16x8/quantize.tflite"
done
mixed accumulator ethos-u55-128 "$root/test/models/tflite-ops/assign_variable_int8_0.tflite"
