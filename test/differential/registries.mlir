// umac-opt registers exactly what mlir-opt 22 registers (its test dialects and passes included),
// plus the umac dialect and umac passes and pipelines.
// RUN: %compare --registries
