// LLVM dialect: functions, globals, pointers, GEPs, structs, intrinsics and control flow.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s -cse

!s = !llvm.struct<"pair", (i32, f64)>

llvm.mlir.global internal constant @msg("hi\00") {addr_space = 0 : i32}
llvm.mlir.global external @counter(0 : i64) : i64

llvm.func @printf(!llvm.ptr, ...) -> i32

llvm.func @body(%p: !llvm.ptr, %n: i64, %c: i1) -> i32 attributes {passthrough = ["nounwind"]} {
  %one = llvm.mlir.constant(1 : i32) : i32
  %addr = llvm.mlir.addressof @msg : !llvm.ptr
  %g = llvm.getelementptr inbounds %p[%n, 1] : (!llvm.ptr, i64) -> !llvm.ptr, !s
  %v = llvm.load %g {alignment = 8 : i64} : !llvm.ptr -> f64
  %u = llvm.mlir.undef : !s
  %s = llvm.insertvalue %v, %u[1] : !s
  %x = llvm.extractvalue %s[0] : !s
  %call = llvm.call @printf(%addr) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr) -> i32
  llvm.cond_br %c, ^bb1(%x : i32), ^bb2
^bb1(%a: i32):
  %sum = llvm.add %a, %one overflow<nsw> : i32
  llvm.return %sum : i32
^bb2:
  %m = llvm.intr.smax(%call, %one) : (i32, i32) -> i32
  %cnt = llvm.mlir.addressof @counter : !llvm.ptr
  %old = llvm.atomicrmw add %cnt, %n seq_cst : !llvm.ptr, i64
  llvm.store %old, %cnt : i64, !llvm.ptr
  llvm.return %m : i32
}
