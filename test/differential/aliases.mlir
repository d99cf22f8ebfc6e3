// A file that starts with a multi-line attribute alias followed by several top-level ops (an
// implicit module), type and attribute aliases used before and after, and alias printing.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-local-scope
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --canonicalize
// RUN: %compare %s --no-implicit-module
// RUN: %compare %s --emit-bytecode -o out.mlirbc

#maps = [affine_map<(d0) -> (d0)>,
 affine_map<(d0) -> (d0)>]
#id = affine_map<(d0, d1) -> (d0, d1)>
!vec = vector<4xf32>
!tensor = tensor<4x4xf32>

func.func @first(%v: !vec) -> !vec attributes {maps = #maps} {
  return %v : !vec
}

func.func @second(%a: !tensor, %b: !tensor) -> !tensor {
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : !tensor, !tensor) outs(%a : !tensor) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> !tensor
  return %r : !tensor
}

memref.global "private" constant @table : memref<2xi32> = dense<[1, 2]>
