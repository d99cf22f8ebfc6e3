// Integer arithmetic per element, i32 and i8 (wrapping, shifts, division rounding toward zero,
// floor division, comparisons and selects, widening and narrowing).
// case: i32[4] 7 -7 100 -128 ; i32[4] 3 3 -9 5 -> i32[4] 10 -4 91 -123 ; i32[4] 2 -2 -11 -25 ; i32[4] 1 -1 1 -3 ; i32[4] 2 -3 -12 -26 ; i32[4] 7 3 100 5 ; i8[4] 10 -4 91 -123
func.func @main(%a: memref<4xi32>, %b: memref<4xi32>, %sum: memref<4xi32>, %quot: memref<4xi32>,
                %rem: memref<4xi32>, %floor: memref<4xi32>, %max: memref<4xi32>, %narrow: memref<4xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  cf.br ^loop(%c0 : index)
^loop(%i: index):
  %more = arith.cmpi slt, %i, %c4 : index
  cf.cond_br %more, ^body, ^done
^body:
  %x = memref.load %a[%i] : memref<4xi32>
  %y = memref.load %b[%i] : memref<4xi32>
  %s = arith.addi %x, %y : i32
  memref.store %s, %sum[%i] : memref<4xi32>
  %q = arith.divsi %x, %y : i32
  memref.store %q, %quot[%i] : memref<4xi32>
  %r = arith.remsi %x, %y : i32
  memref.store %r, %rem[%i] : memref<4xi32>
  %f = arith.floordivsi %x, %y : i32
  memref.store %f, %floor[%i] : memref<4xi32>
  %greater = arith.cmpi sgt, %x, %y : i32
  %m = arith.select %greater, %x, %y : i32
  memref.store %m, %max[%i] : memref<4xi32>
  %t = arith.trunci %s : i32 to i8
  memref.store %t, %narrow[%i] : memref<4xi8>
  %next = arith.addi %i, %c1 : index
  cf.br ^loop(%next : index)
^done:
  return
}
