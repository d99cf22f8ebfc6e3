// An op the engine does not translate is an error at its location, not a panic.
// error: unsupported.mlir:5:8: the Cranelift engine cannot translate 'vector.load'
func.func @main(%a: memref<2xi32>, %out: memref<2xi32>) {
  %c0 = arith.constant 0 : index
  %v = vector.load %a[%c0] : memref<2xi32>, vector<2xi32>
  vector.store %v, %out[%c0] : memref<2xi32>, vector<2xi32>
  return
}
