// Command-line handling: `-o` only as its own option (or `-o=`), a long option starting with `o`
// is that option, values after `=` or a space, `--` ending options, stdin as `-`, and errors for
// what LLVM's parser refuses.
// RUN: %compare %s -o out.mlir
// RUN: %compare %s -o=out.mlir
// RUN: %compare %s -oout.mlir
// RUN: %compare %s -one-shot-bufferize=allow-unknown-ops
// RUN: %compare %s -one-shot-bufferize="bufferize-function-boundaries allow-unknown-ops"
// RUN: %compare %s --one-shot-bufferize=bufferize-function-boundaries -o bufferized.mlir
// RUN: %compare %s --output-split-marker='// =====' --split-input-file
// RUN: %compare -- %s
// RUN: %compare %s %s
// RUN: cat %s | %compare -
// RUN: cat %s | %compare
// RUN: cat %s | %compare --canonicalize -
// RUN: %compare %s --mlir-elide-elementsattrs-if-larger 2
// RUN: %compare %s --mlir-elide-elementsattrs-if-larger=x
// RUN: %compare %s --no-such-flag
// RUN: %compare %s -no-such-flag=1
// RUN: %compare does-not-exist.mlir
// RUN: %compare %s -o no-such-dir/out.mlir
// RUN: %compare %s --verify-diagnostics=only-expected
// RUN: %compare %s --verify-diagnostics=bogus

func.func @f(%t: tensor<4xi8>) -> tensor<4xi8> {
  %c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi8>
  %s = arith.addi %t, %c : tensor<4xi8>
  return %s : tensor<4xi8>
}
