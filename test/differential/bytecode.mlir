// Bytecode in and out: reading a bytecode file (from a path and from stdin), writing it in each
// version, eliding resources, and the errors for versions that do not exist or need text.
// RUN: %compare %S/Inputs/model.mlirbc
// RUN: cat %S/Inputs/model.mlirbc | %compare -
// RUN: %compare %S/Inputs/model.mlirbc --canonicalize --mlir-print-debuginfo
// RUN: %compare %S/Inputs/model.mlirbc --emit-bytecode -o out.mlirbc
// RUN: %compare %S/Inputs/model.mlirbc --emit-bytecode --emit-bytecode-version=0 -o out.mlirbc
// RUN: %compare %S/Inputs/model.mlirbc --emit-bytecode --emit-bytecode-version=1 -o out.mlirbc
// RUN: %compare %S/Inputs/model.mlirbc --emit-bytecode --emit-bytecode-version=99 -o out.mlirbc
// RUN: %compare %S/Inputs/model.mlirbc --emit-bytecode --elide-resource-data-from-bytecode -o out.mlirbc
// RUN: %compare %S/Inputs/model.mlirbc --emit-bytecode-version=1
// RUN: %compare %S/Inputs/bytecode-source.mlir --emit-bytecode --split-input-file -o out.mlirbc
// RUN: %compare %S/Inputs/model.mlirbc --verify-roundtrip
// RUN: %compare %S/Inputs/bytecode-source.mlir --verify-roundtrip
// RUN: %compare %S/Inputs/model.mlirbc --split-input-file
