// Sparse_tensor dialect: verifier errors on encodings and buffer queries.
// RUN: %compare %s --split-input-file --verify-diagnostics

#CSR = #sparse_tensor.encoding<{map = (i, j) -> (i : dense, j : compressed)}>

func.func @bad_level(%s: tensor<8x8xf64, #CSR>) -> memref<?xindex> {
  // expected-error @+1 {{requested level is out of bounds}}
  %p = sparse_tensor.positions %s {level = 5 : index} : tensor<8x8xf64, #CSR> to memref<?xindex>
  return %p : memref<?xindex>
}

// -----

// expected-error @+1 {{failed to infer lvlToDim from dimToLvl}}
#bad = #sparse_tensor.encoding<{map = (i, j) -> (i : dense, i : compressed)}>
func.func private @use(tensor<8x8xf32, #bad>)
