// Complex dialect: construction, arithmetic and elementary functions on complex numbers.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --convert-complex-to-standard
// RUN: %compare %s --convert-to-llvm

!c = complex<f32>

func.func @complex_ops(%re: f32, %im: f32, %z: !c) -> (f32, !c) {
  %a = complex.create %re, %im : !c
  %k = complex.constant [1.0 : f32, -2.0 : f32] : !c
  %s = complex.add %a, %z : !c
  %m = complex.mul %s, %k : !c
  %e = complex.exp %m : !c
  %n = complex.abs %e : !c
  %c = complex.conj %e fastmath<nnan> : !c
  %r = complex.re %c : !c
  %t = arith.addf %n, %r : f32
  return %t, %c : f32, !c
}
