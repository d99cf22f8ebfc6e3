// Irdl dialect: a dynamically defined dialect with types, attributes, operations and constraints.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize

irdl.dialect @cmath {
  irdl.type @complex {
    %0 = irdl.is f32
    %1 = irdl.is f64
    %2 = irdl.any_of(%0, %1)
    irdl.parameters(elem: %2)
  }

  irdl.attribute @precision {
    %0 = irdl.any
    irdl.parameters(value: %0)
  }

  irdl.operation @norm {
    %0 = irdl.any
    %1 = irdl.parametric @cmath::@complex<%0>
    irdl.operands(in: %1)
    irdl.results(out: %0)
  }

  irdl.operation @mul {
    %0 = irdl.is f32
    %1 = irdl.is f64
    %2 = irdl.any_of(%0, %1)
    %3 = irdl.parametric @cmath::@complex<%2>
    %4 = irdl.all_of(%3)
    irdl.operands(lhs: %4, rhs: %4, extra: variadic %0)
    irdl.results(res: %3)
    irdl.attributes {"mode" = %0}
  }
}
