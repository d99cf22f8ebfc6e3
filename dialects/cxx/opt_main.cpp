// umac-opt is mlir-opt: MLIR's own driver (command line, pass flags, splitting, diagnostics
// checking, printing, exit codes) over every upstream dialect and pass, with the umac dialect
// and umac's passes registered. Parsing for umac's own tools goes through the same parser.

#include "umac_mlir.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/ParseUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

extern "C" MlirOperation umacParseModule(MlirContext context, MlirStringRef source, MlirStringRef name) {
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(unwrap(source), unwrap(name)), llvm::SMLoc());
  mlir::MLIRContext *ctx = unwrap(context);
  // Some dialect parsers fail without a diagnostic (tosa's custom assembly on a mangled attribute
  // name). Watch for errors, passing each on to the caller's handlers, and say at least where the
  // failed input starts when there was none.
  bool reported = false;
  mlir::DiagnosticEngine &engine = ctx->getDiagEngine();
  mlir::DiagnosticEngine::HandlerID watcher = engine.registerHandler([&](mlir::Diagnostic &diagnostic) {
    reported |= diagnostic.getSeverity() == mlir::DiagnosticSeverity::Error;
    return mlir::failure();
  });
  mlir::ParserConfig config(ctx);
  mlir::OwningOpRef<mlir::Operation *> op = mlir::parseSourceFileForTool(sourceMgr, config, /*insertImplicitModule=*/true);
  engine.eraseHandler(watcher);
  if (!op && !reported)
    mlir::emitError(mlir::FileLineColLoc::get(ctx, unwrap(name), 1, 1),
                    "MLIR failed to parse this input without saying where or why");
  return wrap(op.release());
}

// MLIR's test dialects and passes (mlir_test_registry.cpp).
void umacRegisterMlirTestPasses();
void umacRegisterMlirTestDialects(mlir::DialectRegistry &registry);

extern "C" int umacMlirOptMain(int argc, char **argv, UmacVerifyOpFn verifyOp, UmacVerifyAttributeFn verifyAttribute) {
  mlir::registerAllPasses();
  umacRegisterMlirTestPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  umacRegisterMlirTestDialects(registry);
  umacRegisterDialect(wrap(&registry), verifyOp, verifyAttribute);
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "MLIR modular optimizer driver\n", registry));
}
