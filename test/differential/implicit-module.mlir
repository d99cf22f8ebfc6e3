// Top-level structure: one builtin.module is the top-level op (not wrapped again); several
// top-level ops are wrapped in an implicit module, unless --no-implicit-module, which needs a
// single top-level op; an empty file; a named module; a module with attributes.
// RUN: %compare %s
// RUN: %compare %s --no-implicit-module
// RUN: %compare %s --no-implicit-module --split-input-file
// RUN: %compare %s --split-input-file
// RUN: %compare %s --split-input-file --pass-pipeline='builtin.module(canonicalize)'
// RUN: %compare %s --split-input-file --pass-pipeline='func.func(canonicalize)' --no-implicit-module
// RUN: %compare /dev/null
// RUN: %compare /dev/null --no-implicit-module
// RUN: %compare %S/Inputs/empty.mlir --split-input-file

module @named attributes {test.attr = 1 : i32} {
  func.func @f() {
    return
  }
}

// -----

func.func @g() {
  %c = arith.constant 0 : i32
  return
}

// -----

func.func @h() {
  return
}
func.func @i() {
  return
}

// -----

module {
}
module {
}
