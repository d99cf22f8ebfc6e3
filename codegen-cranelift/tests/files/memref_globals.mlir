// A constant global read per element, a stack buffer written then read back, and a helper
// function called with buffers and a scalar.
// case: i16[3] 1 2 3 -> i16[3] 11 202 3003
memref.global "private" constant @weights : memref<3xi16> = dense<[10, 200, 3000]>
func.func private @add_into(%a: memref<3xi16>, %b: memref<3xi16>, %i: index) {
  %x = memref.load %a[%i] : memref<3xi16>
  %y = memref.load %b[%i] : memref<3xi16>
  %s = arith.addi %x, %y : i16
  memref.store %s, %b[%i] : memref<3xi16>
  return
}
func.func @main(%a: memref<3xi16>, %out: memref<3xi16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %w = memref.get_global @weights : memref<3xi16>
  %tmp = memref.alloca() : memref<3xi16>
  cf.br ^loop(%c0 : index)
^loop(%i: index):
  %more = arith.cmpi slt, %i, %c3 : index
  cf.cond_br %more, ^body, ^done
^body:
  %x = memref.load %w[%i] : memref<3xi16>
  memref.store %x, %tmp[%i] : memref<3xi16>
  func.call @add_into(%a, %tmp, %i) : (memref<3xi16>, memref<3xi16>, index) -> ()
  %y = memref.load %tmp[%i] : memref<3xi16>
  memref.store %y, %out[%i] : memref<3xi16>
  %next = arith.addi %i, %c1 : index
  cf.br ^loop(%next : index)
^done:
  return
}
