// LLVM dialect: verifier errors on bad GEP indices, returns and globals.
// RUN: %compare %s --split-input-file --verify-diagnostics

// expected-note @+1 {{when returning from function}}
llvm.func @bad_return(%a: i32) -> i64 {
  // expected-error @+1 {{'llvm.return' op mismatching result types}}
  llvm.return %a : i32
}

// -----

llvm.func @bad_extract(%s: !llvm.struct<(i32, f32)>) -> i32 {
  // expected-error @+1 {{'llvm.extractvalue' op position out of bounds: 2}}
  %0 = "llvm.extractvalue"(%s) <{position = array<i64: 2>}> : (!llvm.struct<(i32, f32)>) -> i32
  llvm.return %0 : i32
}

// -----

// expected-error @+1 {{'llvm.mlir.global' op expects type to be a valid element type for an LLVM global}}
llvm.mlir.global internal @bad_global() : !llvm.token
