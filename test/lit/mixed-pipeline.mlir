// One pipeline string mixes umac passes, upstream passes with options, and nesting, in order.
// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=3 region-simplify=disabled},umac-verify),umac-verify,cse)' | FileCheck %s
// The same passes given as flags, in command-line order; a func.func pass given as a flag runs on
// every function, as in mlir-opt.
// RUN: umac-opt %s -canonicalize="max-iterations=3 region-simplify=disabled" --umac-verify -cse | FileCheck %s
// RUN: umac-opt %s --canonicalize --umac-verify --cse --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// DUMP: Pass Manager with 3 passes:
// DUMP-NEXT: builtin.module(
// DUMP-NEXT: canonicalize{ {{.*}}max-iterations=10
// DUMP-NEXT: umac-verify,
// DUMP-NEXT: cse
// DUMP-NEXT: )
// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-verify,canonicalize),cse)' --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-verify,canonicalize),cse)' --mlir-print-ir-before-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: umac-opt %s --pass-pipeline='  builtin.module( cse , func.func( canonicalize ) )' | FileCheck %s
// RUN: umac-opt %s --pass-pipeline='builtin.module()' | FileCheck %s --check-prefix=NOOP
// RUN: umac-opt %s --pass-pipeline='builtin.module(any(cse))' | FileCheck %s --check-prefix=NOOP
// RUN: umac-opt %s --pass-pipeline='builtin.module(func.func(umac-verify))' --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING

// canonicalize folded the add of constants; cse merged the two identical constants.
// CHECK-LABEL: func.func @fold(
// CHECK-NEXT: %[[C:.*]] = arith.constant 5 : i32
// CHECK-NEXT: return %[[C]], %[[C]] : i32, i32

// ORDER: IR Dump After UmacVerify (umac-verify)
// ORDER-NEXT: func.func @fold
// ORDER: IR Dump After Canonicalizer (canonicalize)
// ORDER: IR Dump After CSE (cse)
// ORDER-NEXT: module {

// BEFORE: IR Dump Before UmacVerify (umac-verify)
// BEFORE: arith.addi
// BEFORE: IR Dump Before Canonicalizer (canonicalize)
// BEFORE: IR Dump Before CSE (cse)

// NOOP: arith.addi

// TIMING: Execution time report
// TIMING: UmacVerify
// TIMING: Total

func.func @fold() -> (i32, i32) {
  %a = arith.constant 2 : i32
  %b = arith.constant 3 : i32
  %c = arith.addi %a, %b : i32
  %d = arith.constant 5 : i32
  return %c, %d : i32, i32
}
