// Each chunk is processed on its own; outputs are joined by the marker, and errors keep the line
// numbers of the whole file.
// RUN: umac-opt %s --split-input-file --allow-unregistered-dialect | FileCheck %s
// A failing chunk does not stop the others, but the run fails; its separator is still printed.
// RUN: not umac-opt %s --split-input-file 2>%t.err | FileCheck %s --check-prefix=PARTIAL
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// Without splitting, the second @f is a redefinition.
// RUN: not umac-opt %s --allow-unregistered-dialect 2>&1 | FileCheck %s --check-prefix=WHOLE

// CHECK: func.func @f() -> i32
// CHECK: arith.constant 1 : i32
// CHECK: // -----
// CHECK: func.func @f() -> i32
// CHECK: arith.constant 2 : i32
// CHECK: // -----
// CHECK: "foo.bar"() : () -> ()
// CHECK-NOT: // -----

// PARTIAL: arith.constant 1 : i32
// PARTIAL: // -----
// PARTIAL: arith.constant 2 : i32
// PARTIAL: // -----
// PARTIAL-NOT: foo.bar

// ERR: split-input-file.mlir:[[@LINE+17]]:12: error: operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used
// ERR-NEXT: {{^}}  "foo.bar"() : () -> (){{$}}
// ERR-NEXT: {{^}}           ^{{$}}
// ERR-NOT: error

// WHOLE: split-input-file.mlir:[[@LINE+6]]:1: error: redefinition of symbol named 'f'
func.func @f() -> i32 {
  %c = arith.constant 1 : i32
  return %c : i32
}
// -----
func.func @f() -> i32 {
  %c = arith.constant 2 : i32
  return %c : i32
}
// -----
func.func @g() {
  "foo.bar"() : () -> ()
  return
}
