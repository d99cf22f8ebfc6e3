// Whether a RUN line is umac's own is decided from its words as written and its input's
// contents, never from expanded paths: the same lit test copied into a directory whose path
// names umac (and has a space in it) is compared exactly as it is anywhere else.
// RUN: rm -rf %t && mkdir -p "%t/umac checkout/test"
// RUN: cp %S/Inputs/lit-runs/upstream-and-own.mlir "%t/umac checkout/test/"
// RUN: %compare --lit-runs "%t/umac checkout/test" | FileCheck %s
// RUN: mkdir -p %t/plain && cp %S/Inputs/lit-runs/upstream-and-own.mlir %t/plain/
// RUN: %compare --lit-runs %t/plain | FileCheck %s
// A directory with nothing to compare fails loudly.
// RUN: mkdir -p %t/empty && not %compare --lit-runs %t/empty | FileCheck %s --check-prefix=NONE

// CHECK: lit RUN lines: 2 compared with mlir-opt, 0 differ, 1 skipped (umac's own)
// NONE: lit RUN lines: 0 compared with mlir-opt, 0 differ, 0 skipped (umac's own)
// NONE-NEXT: error: no RUN line was compared
