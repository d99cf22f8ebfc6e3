// Shape dialect: shape computations, broadcasting, witnesses and shape functions.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --remove-shape-constraints
// RUN: %compare %s -shape-to-shape-lowering

func.func @shapes(%a: tensor<?x4xf32>, %b: tensor<3x1xf32>) -> (tensor<?xindex>, index) {
  %sa = shape.shape_of %a : tensor<?x4xf32> -> tensor<?xindex>
  %sb = shape.shape_of %b : tensor<3x1xf32> -> tensor<?xindex>
  %w = shape.cstr_broadcastable %sa, %sb : tensor<?xindex>, tensor<?xindex>
  %r = shape.assuming %w -> (tensor<?xindex>) {
    %bc = shape.broadcast %sa, %sb : tensor<?xindex>, tensor<?xindex> -> tensor<?xindex>
    shape.assuming_yield %bc : tensor<?xindex>
  }
  %rank = shape.rank %r : tensor<?xindex> -> index
  %n = shape.num_elements %r : tensor<?xindex> -> index
  %sum = arith.addi %rank, %n : index
  return %r, %sum : tensor<?xindex>, index
}

func.func @generic_shapes(%s: !shape.shape) -> !shape.size {
  %c = shape.const_shape [2, 3] : !shape.shape
  %j = shape.any %s, %c : !shape.shape, !shape.shape -> !shape.shape
  %i = shape.const_size 1
  %d = shape.get_extent %j, %i : !shape.shape, !shape.size -> !shape.size
  %m = shape.mul %d, %i : !shape.size, !shape.size -> !shape.size
  return %m : !shape.size
}

shape.function_library @lib {
  func.func @same(%arg: !shape.value_shape) -> !shape.shape {
    %0 = shape.shape_of %arg : !shape.value_shape -> !shape.shape
    return %0 : !shape.shape
  }
} mapping {
  test.same_shape = @same
}
