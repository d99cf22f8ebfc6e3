; The C library functions umac's objects may call (LLVM emits calls to them for large copies),
; linked beside a model when it runs on umac's RV32 simulator. "no-builtins" keeps LLVM from
; turning these loops back into calls to themselves. Word copies when both pointers are
; 4-byte aligned, bytes otherwise.

define ptr @memcpy(ptr %d, ptr %s, i32 %n) #0 {
entry:
  %di = ptrtoint ptr %d to i32
  %si = ptrtoint ptr %s to i32
  %or = or i32 %di, %si
  %mis = and i32 %or, 3
  %aligned = icmp eq i32 %mis, 0
  %words = lshr i32 %n, 2
  %w = select i1 %aligned, i32 %words, i32 0
  %wb = shl i32 %w, 2
  %anyw = icmp ne i32 %w, 0
  br i1 %anyw, label %wloop, label %bytes
wloop:
  %i = phi i32 [ 0, %entry ], [ %i1, %wloop ]
  %sp = getelementptr i32, ptr %s, i32 %i
  %v = load i32, ptr %sp, align 4
  %dp = getelementptr i32, ptr %d, i32 %i
  store i32 %v, ptr %dp, align 4
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %w
  br i1 %more, label %wloop, label %bytes
bytes:
  %anyb = icmp ult i32 %wb, %n
  br i1 %anyb, label %bloop, label %done
bloop:
  %j = phi i32 [ %wb, %bytes ], [ %j1, %bloop ]
  %sb = getelementptr i8, ptr %s, i32 %j
  %b = load i8, ptr %sb, align 1
  %db = getelementptr i8, ptr %d, i32 %j
  store i8 %b, ptr %db, align 1
  %j1 = add i32 %j, 1
  %bmore = icmp ult i32 %j1, %n
  br i1 %bmore, label %bloop, label %done
done:
  ret ptr %d
}

define ptr @memmove(ptr %d, ptr %s, i32 %n) #0 {
entry:
  %di = ptrtoint ptr %d to i32
  %si = ptrtoint ptr %s to i32
  %forward = icmp ule i32 %di, %si
  br i1 %forward, label %copy, label %back
copy:
  %r = call ptr @memcpy(ptr %d, ptr %s, i32 %n)
  ret ptr %d
back:
  %any = icmp ne i32 %n, 0
  br i1 %any, label %bloop, label %done
bloop:
  %k = phi i32 [ %n, %back ], [ %k1, %bloop ]
  %k1 = sub i32 %k, 1
  %sb = getelementptr i8, ptr %s, i32 %k1
  %b = load i8, ptr %sb, align 1
  %db = getelementptr i8, ptr %d, i32 %k1
  store i8 %b, ptr %db, align 1
  %more = icmp ne i32 %k1, 0
  br i1 %more, label %bloop, label %done
done:
  ret ptr %d
}

define ptr @memset(ptr %d, i32 %c, i32 %n) #0 {
entry:
  %byte = trunc i32 %c to i8
  %any = icmp ne i32 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %p = getelementptr i8, ptr %d, i32 %i
  store i8 %byte, ptr %p, align 1
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret ptr %d
}

attributes #0 = { nounwind "no-builtins" }
