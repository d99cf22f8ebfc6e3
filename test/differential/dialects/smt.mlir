// Smt dialect: solvers, declarations, bit-vector and integer terms, quantifiers and assertions.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize

func.func @check() {
  smt.solver() : () -> () {
    %x = smt.declare_fun "x" : !smt.bv<32>
    %y = smt.declare_fun : !smt.bv<32>
    %c = smt.bv.constant #smt.bv<5> : !smt.bv<32>
    %sum = smt.bv.add %x, %c : !smt.bv<32>
    %lt = smt.bv.cmp ult %sum, %y : !smt.bv<32>
    %eq = smt.eq %x, %y : !smt.bv<32>
    %ne = smt.not %eq
    %both = smt.and %lt, %ne
    smt.assert %both
    %i = smt.int.constant 3
    %j = smt.declare_fun : !smt.int
    %k = smt.int.add %i, %j
    %p = smt.int.cmp le %k, %i
    %all = smt.forall ["a"] {
    ^bb0(%a: !smt.int):
      %g = smt.int.cmp ge %a, %a
      smt.yield %g : !smt.bool
    }
    %imp = smt.implies %p, %all
    smt.assert %imp
    smt.check sat {
    } unknown {
    } unsat {
    }
  }
  return
}
