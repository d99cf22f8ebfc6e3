// Cf dialect: unconditional, conditional and switch branches with block arguments, and asserts.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --convert-cf-to-llvm

func.func @branches(%c: i1, %a: i32, %b: i32) -> i32 {
  cf.cond_br %c, ^bb1(%a : i32), ^bb2
^bb1(%x: i32):
  cf.br ^bb3(%x : i32)
^bb2:
  cf.br ^bb3(%b : i32)
^bb3(%r: i32):
  cf.assert %c, "must hold"
  return %r : i32
}

func.func @switch(%flag: i32, %a: f32) -> f32 {
  cf.switch %flag : i32, [
    default: ^bb1(%a : f32),
    42: ^bb2,
    7: ^bb1(%a : f32)
  ]
^bb1(%v: f32):
  return %v : f32
^bb2:
  %z = arith.constant 0.0 : f32
  return %z : f32
}
