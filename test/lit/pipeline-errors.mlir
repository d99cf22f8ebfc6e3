// A bad pipeline is reported at its offending element, before any input is processed; exit code 1.
// RUN: not umac-opt %s --pass-pipeline='builtin.module(cse,no-such-pass)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: <pass-pipeline>:1:20: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
// UNKNOWN-NEXT: builtin.module(cse,no-such-pass)
// UNKNOWN-NEXT: {{^}}                   ^{{$}}

// RUN: not umac-opt %s --pass-pipeline='cse' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// ANCHOR: <pass-pipeline>:1:1: error: the pipeline must be anchored on an operation, e.g. 'builtin.module(canonicalize)'
// RUN: not umac-opt %s --pass-pipeline='func.func(cse)' 2>&1 | FileCheck %s --check-prefix=ROOT
// ROOT: <pass-pipeline>:1:1: error: the pipeline is anchored on 'func.func' but the input's top-level operation is 'builtin.module'

// RUN: not umac-opt %s --pass-pipeline='builtin.module(cse' 2>&1 | FileCheck %s --check-prefix=UNCLOSED
// UNCLOSED: <pass-pipeline>:1:19: error: expected ',' or ')' in the pipeline nested under 'builtin.module'
// RUN: not umac-opt %s --pass-pipeline='builtin.module(cse,)' 2>&1 | FileCheck %s --check-prefix=TRAILING
// TRAILING: <pass-pipeline>:1:20: error: expected a pass or operation name, found ')'
// RUN: not umac-opt %s --pass-pipeline='builtin.module(cse) extra' 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: <pass-pipeline>:1:21: error: unexpected text after the pipeline
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-verify{allow-unregistered-dialect=maybe)' 2>&1 | FileCheck %s --check-prefix=BRACE
// BRACE: <pass-pipeline>:1:27: error: unbalanced '{' in pass options

// Options: umac passes check names and types; upstream passes report through MLIR's parser.
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-verify{typo=1})' 2>&1 | FileCheck %s --check-prefix=UOPT
// UOPT: <pass-pipeline>:1:28: error: 'umac-verify' has no option 'typo' (options: allow-unregistered-dialect)
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-verify{allow-unregistered-dialect=maybe})' 2>&1 | FileCheck %s --check-prefix=UTYPE
// UTYPE: <pass-pipeline>:1:55: error: option 'allow-unregistered-dialect' of 'umac-verify': expected true or false, got 'maybe'
// RUN: not umac-opt %s --pass-pipeline='builtin.module(umac-lower-to-llvm{x=1})' 2>&1 | FileCheck %s --check-prefix=NOOPT
// NOOPT: error: 'umac-lower-to-llvm' has no option 'x' (options: none)
// RUN: not umac-opt %s --pass-pipeline='builtin.module(canonicalize{bogus=1})' 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: <pass-pipeline>:1:16: error: no such option bogus; failed to add `canonicalize` with options `bogus=1`
// A bad option value that LLVM prints on stderr still ends up in the one located diagnostic.
// RUN: not umac-opt %s --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=x}))' 2>&1 | head -2 | FileCheck %s --check-prefix=VALUE
// VALUE: {{^}}<pass-pipeline>:1:16: error: for the --max-iterations option: 'x' value invalid for long argument!
// VALUE-NEXT: {{^}}builtin.module(

// Placement: umac passes only run where they can.
// RUN: not umac-opt %s --pass-pipeline='builtin.module(func.func(umac-lower-to-llvm))' 2>&1 | FileCheck %s --check-prefix=PLACE
// PLACE: <pass-pipeline>:1:26: error: 'umac-lower-to-llvm' runs on 'builtin.module' and cannot be placed in a pipeline on 'func.func'
// RUN: not umac-opt %s --pass-pipeline='builtin.module(no.such.op(umac-verify))' 2>&1 | FileCheck %s --check-prefix=NEST
// NEST: <pass-pipeline>:1:16: error: umac passes can only be nested under a registered operation, not 'no.such.op'
// An upstream pass on the wrong operation fails when the pipeline runs.
// RUN: not umac-opt %s --pass-pipeline='builtin.module(tosa-to-linalg)' 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// SCHEDULE: error: unable to schedule pass 'TosaToLinalg' on a PassManager intended to run on 'builtin.module'!

func.func @f(%a: tensor<4xi8>) -> tensor<4xi8> {
  return %a : tensor<4xi8>
}
