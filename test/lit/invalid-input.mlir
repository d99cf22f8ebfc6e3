// Bad input gives a located error and exit code 1, never a crash.
// RUN: not umac-opt %S/Inputs/garbage.mlir 2>&1 | FileCheck %s --check-prefix=GARBAGE
// GARBAGE: garbage.mlir:1:1: error: custom op 'this' is unknown
// GARBAGE-NEXT: this is not MLIR at all
// GARBAGE-NEXT: {{^}}^{{$}}

// Random bytes (including NUL and invalid UTF-8) from stdin.
// RUN: printf '\x01\x02\xff\xfe\x00garbage' | not umac-opt - 2>&1 | FileCheck %s --check-prefix=BYTES
// BYTES: <stdin>:1:1: error:

// Truncated text: the error is at the end.
// RUN: head -c 60 %S/Inputs/small-model.mlir | not umac-opt - 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error:

// Truncated bytecode.
// RUN: umac-opt %S/Inputs/small-model.mlir --emit-bytecode -o %t.mlirbc
// RUN: head -c 100 %t.mlirbc > %t.trunc.mlirbc
// RUN: not umac-opt %t.trunc.mlirbc 2>&1 | FileCheck %s --check-prefix=BCTRUNC
// BCTRUNC: trunc.mlirbc:0:0: error:
// A bytecode file's magic alone.
// RUN: printf 'ML\xefR' | not umac-opt - 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: <stdin>:0:0: error:

// An op that does not exist in a registered dialect, and an unregistered dialect.
// RUN: not umac-opt %S/Inputs/unknown-ops.mlir --split-input-file 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: unknown-ops.mlir:2:8: error: custom op 'tosa.frobnicate' is unknown
// UNKNOWN: unknown-ops.mlir:6:8: error: unregistered operation 'tosa.frobnicate' found in dialect ('tosa') that does not allow unknown operations
// UNKNOWN: unknown-ops.mlir:10:22: error: operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used
// With the flag, the foreign op is accepted (the tosa ones still are not).
// RUN: not umac-opt %S/Inputs/unknown-ops.mlir --split-input-file --allow-unregistered-dialect 2>&1 | FileCheck %s --check-prefix=ALLOWED
// ALLOWED-NOT: mydialect
// ALLOWED: "mydialect.op"() : () -> i32
// ALLOWED-NOT: mydialect

// Files that are not there, and flags that do not exist (LLVM's command-line messages).
// RUN: not umac-opt %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// RUN: not umac-opt --no-such-flag %s 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: umac-opt: Unknown command line argument '--no-such-flag'.  Try: '{{.*}}umac-opt --help'
// RUN: not umac-opt %s -o %t.no-such-dir/out.mlir 2>&1 | FileCheck %s --check-prefix=OUT
// OUT: cannot open output file '{{.*}}no-such-dir/out.mlir': No such file or directory
// A long option that starts with 'o' is that option, never '-o' with a glued file name.
// RUN: rm -rf %t.dir && mkdir %t.dir && cd %t.dir && not umac-opt -one-shot-bufferize=no-such-option %s 2>&1 | FileCheck %s --check-prefix=ODASH
// ODASH: no such option no-such-option
// RUN: ls %t.dir | count 0

// An empty input is an empty module, as in mlir-opt.
// RUN: printf '' | umac-opt - | FileCheck %s --check-prefix=EMPTY
// EMPTY: module {
// EMPTY-NEXT: }

// Some MLIR parsers fail without a diagnostic (tosa's custom assembly on a mangled attribute
// name). umac-opt exits 1 silently, as mlir-opt does; umac's own tools say where the failed
// input starts.
// RUN: not umac-opt %S/Inputs/silent-parse-failure.mlir 2>&1 | count 0
// RUN: not %umac_bin compile %S/Inputs/silent-parse-failure.mlir --target=host -o %t.silent 2>&1 | FileCheck %s --check-prefix=SILENT
// SILENT: silent-parse-failure.mlir:1:1: error: MLIR failed to parse this input without saying where or why

// A crash inside MLIR (as MLIR 22's bytecode reader has on some damaged files) is caught by the
// worker process guard: a located error and exit code 1, not a signal.
// RUN: not umac-opt --debug-crash %s 2>&1 | FileCheck %s --check-prefix=CRASH
// CRASH: invalid-input.mlir:0:0: error: umac-opt crashed (SIGABRT, signal 6) while processing this input
