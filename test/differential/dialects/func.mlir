// Func dialect: definitions, declarations, calls, indirect calls and function constants.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --inline
// RUN: %compare %s -convert-func-to-llvm
// RUN: %compare %s --convert-to-llvm

func.func private @external(i32) -> i32 attributes {llvm.emit_c_interface}

func.func @callee(%a: i32 {test.arg_attr}, %b: i32) -> (i32 {test.res_attr}) {
  %0 = arith.addi %a, %b : i32
  return %0 : i32
}

func.func @caller(%x: i32) -> i32 {
  %0 = call @callee(%x, %x) : (i32, i32) -> i32
  %f = constant @external : (i32) -> i32
  %1 = call_indirect %f(%0) : (i32) -> i32
  %2 = func.call @external(%1) {no_inline} : (i32) -> i32
  return %2 : i32
}

func.func nested @nested_visibility() {
  return
}
