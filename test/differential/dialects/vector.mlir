// Vector dialect: broadcasts, shuffles, contractions, transfers, masks and reductions.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --convert-vector-to-llvm
// RUN: %compare %s --convert-to-llvm

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

func.func @vectors(%a: vector<2x4xf32>, %b: vector<4x3xf32>, %c: vector<2x3xf32>, %f: f32) -> (vector<2x3xf32>, f32) {
  %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<2x4xf32>, vector<4x3xf32> into vector<2x3xf32>
  %bc = vector.broadcast %f : f32 to vector<4xf32>
  %sh = vector.shuffle %bc, %bc [0, 5, 2, 7] : vector<4xf32>, vector<4xf32>
  %red = vector.reduction <add>, %sh : vector<4xf32> into f32
  %e = vector.extract %a[1, 2] : f32 from vector<2x4xf32>
  %m = arith.addf %red, %e : f32
  return %r, %m : vector<2x3xf32>, f32
}

func.func @memory(%buf: memref<?xf32>, %i: index, %n: index) -> vector<8xf32> {
  %pad = arith.constant 0.0 : f32
  %mask = vector.create_mask %n : vector<8xi1>
  %v = vector.transfer_read %buf[%i], %pad {in_bounds = [false]} : memref<?xf32>, vector<8xf32>
  %l = vector.maskedload %buf[%i], %mask, %v : memref<?xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
  vector.store %l, %buf[%i] : memref<?xf32>, vector<8xf32>
  %fma = vector.fma %l, %v, %v : vector<8xf32>
  return %fma : vector<8xf32>
}
