// Diagnostics from passes: an error a pass emits without failing leaves exit code 0; a failing
// pass gives 1 and no output; unknown locations print as `<unknown>:0:`; notes, remarks and
// --mlir-print-op-on-diagnostic / --mlir-disable-diagnostic-notes; a pass scheduled on the
// wrong op; --verify-each and invalid IR left by a pass.
// (The diagnostic filter test prints from every thread: threading off keeps its output in order.)
// RUN: %compare %s --pass-pipeline='builtin.module(func.func(test-diagnostic-filter{filters=mysource1}))' --mlir-disable-threading
// RUN: %compare %s --pass-pipeline='builtin.module(func.func(test-diagnostic-filter{filters=mysource1}))' --mlir-disable-threading -o /dev/null
// RUN: %compare %s --test-diagnostic-filter=filters=mysource1 --mlir-disable-threading
// RUN: %compare %s --test-pass-failure
// RUN: %compare %s --test-pass-failure=gen-diagnostics=true
// RUN: %compare %s --test-pass-failure=gen-diagnostics=true --mlir-print-ir-after-failure
// RUN: %compare %s --test-pass-failure=gen-diagnostics=true --mlir-print-op-on-diagnostic=false
// RUN: %compare %s --pass-pipeline='builtin.module(func.func(test-pass-create-invalid-ir{emit-invalid-ir=true}))'
// RUN: %compare %s --pass-pipeline='builtin.module(func.func(test-pass-create-invalid-ir{emit-invalid-ir=true}))' --verify-each=false
// RUN: %compare %s --pass-pipeline='builtin.module(func.func(test-pass-create-invalid-ir{emit-invalid-ir=true}))' --verify-each=0
// RUN: %compare %s --pass-pipeline='builtin.module(func.func(test-pass-create-invalid-ir{emit-invalid-ir=true signal-pass-failure=true}))'
// RUN: %compare %s --test-pass-create-invalid-ir=emit-invalid-ir=true
// RUN: %compare %s --test-pass-invalid-parent
// RUN: %compare %s --test-remark --mlir-disable-diagnostic-notes
// RUN: %compare %s --test-diagnostic-metadata
// RUN: %compare %s --tosa-to-linalg
// RUN: %compare %s --pass-pipeline='builtin.module(func.func(tosa-to-linalg))'

func.func private @test1() attributes {
  test.loc = loc(callsite("foo"("mysource1":0:0) at callsite("mysource2":1:0 at "mysource3":0:0)))
}

func.func private @test2() attributes {
  test.loc = loc(unknown)
}

func.func @f(%a: tensor<4xi8>) -> tensor<4xi8> {
  %r = tosa.abs %a : (tensor<4xi8>) -> tensor<4xi8>
  return %r : tensor<4xi8>
}
