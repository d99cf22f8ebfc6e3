// A bad pipeline is reported before any input is processed, exit code 1, with mlir-opt's own
// messages (MLIR parses every pipeline, umac's passes included).
// RUN: not umac-opt %s --pass-pipeline='builtin.module(cse,no-such-pass)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: <unknown>:0: error: MLIR Textual PassPipeline Parser:1:5: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
// UNKNOWN-NEXT: {{^}}cse,no-such-pass{{$}}
// UNKNOWN-NEXT: {{^}}    ^{{$}}

// RUN: not umac-opt %s --pass-pipeline='cse' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// ANCHOR: <unknown>:0: error: expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'
// RUN: not umac-opt %s --pass-pipeline='func.func(cse)' 2>&1 | FileCheck %s --check-prefix=ROOT
// ROOT: pipeline-errors.mlir:0:0: error: can't run 'func.func' pass manager on 'builtin.module' op

// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-plan-memory{alignment=3)' 2>&1 | FileCheck %s --check-prefix=BRACE
// BRACE: error: MLIR Textual PassPipeline Parser:1:17: error: missing closing '}' while processing pass options

// umac passes have real MLIR options: names and values are checked by LLVM's option parser, and
// values it accepts are checked again by the pass (alignment must be a power of two).
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-plan-memory{alignment=3})' 2>&1 | FileCheck %s --check-prefix=POW2
// POW2: <unknown>:0: error: option 'alignment' must be a power of two from 1 to 4096, got 3
// POW2-NEXT: failed to add `umac-plan-memory` with options `alignment=3`
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-plan-memory{typo=1})' 2>&1 | FileCheck %s --check-prefix=UOPT
// UOPT: <unknown>:0: error: <Pass-Options-Parser>: no such option typo
// UOPT: failed to add `umac-plan-memory` with options `typo=1`
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-plan-memory{alignment=maybe})' 2>&1 | FileCheck %s --check-prefix=UTYPE
// UTYPE: umac-opt: for the --alignment option: 'maybe' value invalid for long argument!
// UTYPE: failed to add `umac-plan-memory` with options `alignment=maybe`
// As a flag, the pass reports the same way mlir-opt does for its own passes.
// RUN: not umac-opt %s --umac-plan-memory=alignment=maybe 2>&1 | FileCheck %s --check-prefix=FTYPE
// FTYPE: umac-opt: for the --alignment option: 'maybe' value invalid for long argument!
// FTYPE-NEXT: <unknown>:0: error: {{$}}
// A pipeline without options says so (mlir-opt only prints the second line).
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-lower-to-llvm{x=1})' 2>&1 | FileCheck %s --check-prefix=NOOPT
// NOOPT: <unknown>:0: error: 'umac-lower-to-llvm' has no option 'x' (options: none)
// NOOPT-NEXT: failed to add `umac-lower-to-llvm` with options `x=1`

// Placement: a pipeline that bufferizes whole modules cannot be nested under func.func.
// RUN: not umac-opt %s --pass-pipeline='builtin.module(func.func(umac-lower-to-llvm))' 2>&1 | FileCheck %s --check-prefix=PLACE
// PLACE: <unknown>:0: error: in pipeline 'umac-lower-to-llvm' ({{.*}}): Can't add pass 'OneShotBufferizePass' restricted to 'builtin.module' on a PassManager intended to run on 'func.func', did you intend to nest?
// PLACE: failed to add `umac-lower-to-llvm` with options ``
// A umac pass is restricted to its anchor, as MLIR's own passes are.
// RUN: not umac-opt %s --pass-pipeline='builtin.module(func.func(umac-plan-memory))' 2>&1 | FileCheck %s --check-prefix=ANCHORED
// ANCHORED: <unknown>:0: error: Can't add pass 'UmacPlanMemory' restricted to 'builtin.module' on a PassManager intended to run on 'func.func', did you intend to nest?

func.func @f(%a: tensor<4xi8>) -> tensor<4xi8> {
  return %a : tensor<4xi8>
}
