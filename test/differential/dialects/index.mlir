// Index dialect: target-independent index arithmetic, comparisons, casts and bool constants.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --convert-index-to-llvm

func.func @index_ops(%a: index, %b: index, %i: i32) -> (index, i1, i64) {
  %c4 = index.constant 4
  %t = index.bool.constant true
  %0 = index.add %a, %b
  %1 = index.mul %0, %c4
  %2 = index.ceildivs %1, %b
  %3 = index.maxu %2, %a
  %4 = index.shl %3, %c4
  %5 = index.cmp ult(%4, %b)
  %6 = index.casts %i : i32 to index
  %7 = arith.xori %5, %t : i1
  %8 = index.castu %6 : index to i64
  %9 = index.sizeof
  %r = index.add %4, %9
  return %r, %7, %8 : index, i1, i64
}
