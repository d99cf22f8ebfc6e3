// Wasmssa dialect: functions, locals, constants, arithmetic and blocks in WebAssembly SSA form.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize

wasmssa.func exported @add(%a: !wasmssa<local ref to i32>, %b: !wasmssa<local ref to i32>) -> i32 {
  %x = wasmssa.local_get %a : ref to i32
  %y = wasmssa.local_get %b : ref to i32
  %s = wasmssa.add %x %y : i32
  %c = wasmssa.const 3 : i32
  %m = wasmssa.mul %s %c : i32
  wasmssa.return %m : i32
}
