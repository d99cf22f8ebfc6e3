// Pdl dialect: declarative rewrite patterns with operands, types, attributes and rewrites.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --convert-pdl-to-pdl-interp

module @patterns {
  pdl.pattern @fold_add : benefit(2) {
    %type = pdl.type : i32
    %lhs = pdl.operand : %type
    %rhs = pdl.operand : %type
    %attr = pdl.attribute
    %root = pdl.operation "arith.addi"(%lhs, %rhs : !pdl.value, !pdl.value) {"overflowFlags" = %attr} -> (%type : !pdl.type)
    pdl.rewrite %root {
      %new = pdl.operation "arith.subi"(%lhs, %rhs : !pdl.value, !pdl.value) -> (%type : !pdl.type)
      %res = pdl.result 0 of %new
      pdl.replace %root with (%res : !pdl.value)
    }
  }

  pdl.pattern @erase_dead : benefit(1) {
    %types = pdl.types
    %root = pdl.operation "test.dead" -> (%types : !pdl.range<type>)
    pdl.rewrite %root {
      pdl.erase %root
    }
  }

  pdl.pattern @native : benefit(1) {
    %root = pdl.operation "test.op"
    pdl.apply_native_constraint "check"(%root : !pdl.operation)
    pdl.rewrite %root with "rewriter"
  }
}
