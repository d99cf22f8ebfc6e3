// Sparse_tensor dialect: sparse encodings, conversion, assembly, positions/coordinates and loops.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --pre-sparsification-rewrite

#CSR = #sparse_tensor.encoding<{map = (i, j) -> (i : dense, j : compressed), posWidth = 32, crdWidth = 32}>
#COO = #sparse_tensor.encoding<{map = (i, j) -> (i : compressed(nonunique), j : singleton)}>
#SV = #sparse_tensor.encoding<{map = (d0) -> (d0 : compressed)}>

func.func @convert(%d: tensor<8x8xf64>) -> (tensor<8x8xf64, #COO>, index) {
  %s = sparse_tensor.convert %d : tensor<8x8xf64> to tensor<8x8xf64, #CSR>
  %c = sparse_tensor.convert %s : tensor<8x8xf64, #CSR> to tensor<8x8xf64, #COO>
  %n = sparse_tensor.number_of_entries %s : tensor<8x8xf64, #CSR>
  return %c, %n : tensor<8x8xf64, #COO>, index
}

func.func @buffers(%s: tensor<8x8xf64, #CSR>) -> (memref<?xi32>, memref<?xi32>, memref<?xf64>) {
  %p = sparse_tensor.positions %s {level = 1 : index} : tensor<8x8xf64, #CSR> to memref<?xi32>
  %c = sparse_tensor.coordinates %s {level = 1 : index} : tensor<8x8xf64, #CSR> to memref<?xi32>
  %v = sparse_tensor.values %s : tensor<8x8xf64, #CSR> to memref<?xf64>
  return %p, %c, %v : memref<?xi32>, memref<?xi32>, memref<?xf64>
}

func.func @assemble(%pos: tensor<2xindex>, %crd: tensor<3xindex>, %val: tensor<3xf32>) -> tensor<10xf32, #SV> {
  %t = sparse_tensor.assemble (%pos, %crd), %val : (tensor<2xindex>, tensor<3xindex>), tensor<3xf32> to tensor<10xf32, #SV>
  return %t : tensor<10xf32, #SV>
}
