// Bit counting and magnitudes: ctlz of 0 is the width.
// case: i32[4] 0 1 -1 65536 -> i32[4] 32 31 0 15 ; i32[4] 0 1 1 65536
func.func @main(%a: memref<4xi32>, %clz: memref<4xi32>, %abs: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  cf.br ^loop(%c0 : index)
^loop(%i: index):
  %more = arith.cmpi slt, %i, %c4 : index
  cf.cond_br %more, ^body, ^done
^body:
  %x = memref.load %a[%i] : memref<4xi32>
  %z = math.ctlz %x : i32
  memref.store %z, %clz[%i] : memref<4xi32>
  %m = math.absi %x : i32
  memref.store %m, %abs[%i] : memref<4xi32>
  %next = arith.addi %i, %c1 : index
  cf.br ^loop(%next : index)
^done:
  return
}
