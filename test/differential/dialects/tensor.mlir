// Tensor dialect: empty, extract, insert, slices, reshapes, padding and generate.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --cse

!t = tensor<4x8xf32>

func.func @tensors(%a: !t, %i: index, %f: f32) -> (tensor<32xf32>, tensor<6x10xf32>, index) {
  %c0 = arith.constant 0 : index
  %e = tensor.empty(%i) : tensor<?x8xf32>
  %x = tensor.extract %a[%c0, %i] : !t
  %b = tensor.insert %x into %a[%i, %c0] : !t
  %s = tensor.extract_slice %b[0, 2] [2, 4] [1, 1] : !t to tensor<2x4xf32>
  %u = tensor.insert_slice %s into %b[2, 0] [2, 4] [1, 1] : tensor<2x4xf32> into !t
  %c = tensor.collapse_shape %u [[0, 1]] : !t into tensor<32xf32>
  %p = tensor.pad %u low[1, 1] high[1, 1] {
  ^bb0(%p0: index, %p1: index):
    tensor.yield %f : f32
  } : !t to tensor<6x10xf32>
  %d = tensor.dim %e, %c0 : tensor<?x8xf32>
  %cast = tensor.cast %e : tensor<?x8xf32> to tensor<?x?xf32>
  %fr = tensor.from_elements %f, %f : tensor<2xf32>
  %g = tensor.generate %d {
  ^bb0(%k: index):
    tensor.yield %x : f32
  } : tensor<?xf32>
  %r = tensor.rank %cast : tensor<?x?xf32>
  %dup = tensor.dim %e, %c0 : tensor<?x8xf32>
  %sum = arith.addi %r, %dup : index
  return %c, %p, %sum : tensor<32xf32>, tensor<6x10xf32>, index
}

func.func @forall(%t: tensor<8xf32>) -> tensor<8xf32> {
  %r = scf.forall (%i) in (8) shared_outs(%o = %t) -> (tensor<8xf32>) {
    %e = tensor.extract_slice %t[%i] [1] [1] : tensor<8xf32> to tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %e into %o[%i] [1] [1] : tensor<1xf32> into tensor<8xf32>
    }
  }
  return %r : tensor<8xf32>
}
