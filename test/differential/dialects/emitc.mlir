// Emitc dialect: includes, C types, opaque calls, variables, expressions and loops.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --form-expressions

emitc.include <"stdint.h">
emitc.include "local.h"

emitc.global static @counter : i32 = 0

emitc.func @kernel(%a: i32, %b: !emitc.ptr<i32>) -> i32 attributes {specifiers = ["static"]} {
  %c = "emitc.constant"() <{value = 4 : i32}> : () -> i32
  %sum = emitc.add %a, %c : (i32, i32) -> i32
  %mul = emitc.mul %sum, %a : (i32, i32) -> i32
  %cast = emitc.cast %mul : i32 to !emitc.opaque<"int64_t">
  %call = emitc.call_opaque "abs"(%mul) : (i32) -> i32
  %cmp = emitc.cmp lt, %call, %c : (i32, i32) -> i1
  %var = "emitc.variable"() <{value = #emitc.opaque<"0">}> : () -> !emitc.lvalue<i32>
  emitc.if %cmp {
    emitc.assign %sum : i32 to %var : !emitc.lvalue<i32>
  }
  %lb = "emitc.constant"() <{value = 0 : index}> : () -> index
  %ub = "emitc.constant"() <{value = 8 : index}> : () -> index
  %st = "emitc.constant"() <{value = 1 : index}> : () -> index
  emitc.for %i = %lb to %ub step %st : index {
    emitc.verbatim "/* loop body */"
  }
  %r = emitc.load %var : <i32>
  emitc.return %r : i32
}
