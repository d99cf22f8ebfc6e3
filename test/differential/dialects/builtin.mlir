// Builtin dialect: nested modules, attribute and type aliases, builtin types and unrealized casts.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --mlir-print-local-scope
// RUN: %compare %s -reconcile-unrealized-casts

!pair = tuple<i32, f16>
#attrs = {flag, count = 3 : i64, name = "demo"}

module @outer attributes {test.meta = #attrs} {
  module @inner {
    func.func private @decl(!pair, complex<f32>, vector<[4]xi1>, memref<?x4xbf16, strided<[4, 1], offset: ?>>)
  }
  func.func @casts(%a: i64) -> i64 {
    %0 = builtin.unrealized_conversion_cast %a : i64 to index
    %1 = builtin.unrealized_conversion_cast %0 : index to i64
    return %1 : i64
  }
  func.func @attrs() attributes {
      dense = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>,
      arr = [1 : i8, 2.5 : f32, "s", unit, @sym, @outer::@inner],
      dict = {a = true, b = array<i64: 1, 2>},
      aff = affine_map<(d0, d1)[s0] -> (d1, d0 + s0)>,
      res = dense_resource<blob1> : tensor<2xi32>,
      loc = loc("file.mlir":3:4)} {
    return
  }
}

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000100000002000000"
    }
  }
#-}
