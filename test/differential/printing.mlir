// Output printing options: generic form, debug info (pretty or not), local scope, eliding large
// elements and resources, hex, unique SSA ids, value users, name locations as prefixes, skipping
// regions, assume-verified; and a blank line after each top-level module, as mlir-opt prints.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --mlir-print-debuginfo
// RUN: %compare %s --mlir-print-debuginfo --mlir-pretty-debuginfo
// RUN: %compare %s --mlir-print-debuginfo --mlir-print-local-scope
// RUN: %compare %s --mlir-print-local-scope
// RUN: %compare %s --mlir-elide-elementsattrs-if-larger=2
// RUN: %compare %s --mlir-elide-resource-strings-if-larger=4
// RUN: %compare %s --mlir-print-elementsattrs-with-hex-if-larger=1
// RUN: %compare %s --mlir-print-unique-ssa-ids
// RUN: %compare %s --mlir-print-value-users
// RUN: %compare %s --mlir-use-nameloc-as-prefix
// RUN: %compare %s --mlir-print-skip-regions
// RUN: %compare %s --mlir-print-assume-verified
// RUN: %compare %s --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo

#map = affine_map<(d0, d1) -> (d1, d0)>
!pair = tuple<i32, f32>
module attributes {test.name = "printing"} {
  func.func @f(%t: tensor<2x3xf32> loc("t")) -> (tensor<2x3xf32>, tensor<6xi8>) {
    %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> loc("w")
    %s = arith.addf %t, %w : tensor<2x3xf32> loc("sum")
    %b = arith.constant dense_resource<blob> : tensor<6xi8>
    return %s, %b : tensor<2x3xf32>, tensor<6xi8>
  }
  func.func private @uses(!pair) attributes {m = #map}
  func.func @loops(%n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        %k = arith.addi %i, %j : index
      }
    }
    return
  }
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x04000000010203040506"
    }
  }
#-}
