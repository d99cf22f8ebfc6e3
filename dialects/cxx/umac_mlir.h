/* The C interface between umac's Rust crates and the few MLIR C++ APIs the C API lacks: the umac
 * dialect as a registered dialect (its verifier in Rust), umac passes in MLIR's own pass registry
 * (their work in Rust), MLIR's mlir-opt driver, and parsing as mlir-opt parses. Every callback is
 * a Rust function; every string is borrowed for the duration of the call. */
#ifndef UMAC_MLIR_H
#define UMAC_MLIR_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Checks a `umac.*` op; emits located errors itself. */
typedef bool (*UmacVerifyOpFn)(MlirOperation op);
/* Checks a `umac.*` discardable attribute `name` of `op`; emits located errors itself. */
typedef bool (*UmacVerifyAttributeFn)(MlirOperation op, MlirStringRef name, MlirAttribute value);

/* Adds a dialect `name` (an accelerator's primitive ops) with the ops `ops` (names without the
 * namespace), each checked by `verify`: umacRegisterDialect registers it beside the umac dialect
 * from then on. A second dialect of the same name is ignored. */
void umacAddDynamicDialect(MlirStringRef name, const MlirStringRef *ops, size_t numOps, UmacVerifyOpFn verify);

/* Registers the umac dialect (with the op `umac.call_extern`), and the dialects added by
 * umacAddDynamicDialect, in `registry`. */
void umacRegisterDialect(MlirDialectRegistry registry, UmacVerifyOpFn verifyOp, UmacVerifyAttributeFn verifyAttribute);

/* An option of a umac pass: `kind` 0 = bool, 1 = int, 2 = string. */
typedef struct {
  MlirStringRef name;
  MlirStringRef help;
  int kind;
  MlirStringRef defaultValue;
} UmacOptionSpec;

/* A umac pass or pipeline as MLIR's registry lists it. `anchor` empty: any op. `typeId` is an
 * 8-byte aligned address unique to the pass (its MLIR TypeID). */
typedef struct {
  MlirStringRef argument;
  MlirStringRef description;
  MlirStringRef className;
  MlirStringRef anchor;
  const UmacOptionSpec *options;
  size_t numOptions;
  const void *typeId;
} UmacPassSpec;

/* Receives a string (an error message, pipeline text). */
typedef void (*UmacStringFn)(MlirStringRef text, void *userData);

/* Validates option `values` (one per option, as text) of pass `argument`; on failure writes the
 * reason to `error` and returns false. */
typedef bool (*UmacCheckOptionsFn)(MlirStringRef argument, const MlirStringRef *values, size_t numValues,
                                   UmacStringFn error, void *userData);
/* Runs pass `argument` with option `values` on `op`; errors are emitted as diagnostics. */
typedef bool (*UmacRunPassFn)(MlirStringRef argument, const MlirStringRef *values, size_t numValues, MlirOperation op);
/* Expands pipeline `argument` with option text `options` into pipeline text (written to `out`),
 * or writes the reason to `out` and returns false. */
typedef bool (*UmacExpandPipelineFn)(MlirStringRef argument, MlirStringRef options, UmacStringFn out, void *userData);

/* Adds a pass to MLIR's pass registry (once per argument per process). */
void umacRegisterPass(const UmacPassSpec *spec, UmacCheckOptionsFn check, UmacRunPassFn run);
/* Adds a named pipeline to MLIR's pass registry (once per argument per process). */
void umacRegisterPipeline(const UmacPassSpec *spec, UmacExpandPipelineFn expand);

/* Parses `source` (text or bytecode) named `name` as mlir-opt parses an input: one top-level
 * `builtin.module` is the module, anything else is wrapped in one. Null after reported errors. */
MlirOperation umacParseModule(MlirContext context, MlirStringRef source, MlirStringRef name);

/* MLIR's mlir-opt driver over every upstream dialect, extension and pass, MLIR's test dialects and
 * passes (as mlir-opt registers them), plus the umac dialect and the passes registered above.
 * Returns the process exit code. */
int umacMlirOptMain(int argc, char **argv, UmacVerifyOpFn verifyOp, UmacVerifyAttributeFn verifyAttribute);

#ifdef __cplusplus
}
#endif

#endif
