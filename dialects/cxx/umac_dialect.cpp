// The umac dialect, registered: `umac.call_extern` is a dynamic op whose verifier is umac's Rust
// verifier, and `umac.*` attributes are checked by it too, so MLIR's own verifier (after parsing,
// after every pass) covers umac IR, in mlir-opt's driver and in umac's tools alike.

#include "umac_mlir.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/ExtensibleDialect.h"

namespace umac {

class UmacDialect : public mlir::ExtensibleDialect {
public:
  explicit UmacDialect(mlir::MLIRContext *context);
  static constexpr llvm::StringLiteral getDialectNamespace() { return "umac"; }

  mlir::LogicalResult verifyOperationAttribute(mlir::Operation *op, mlir::NamedAttribute attribute) override {
    return mlir::success(verifyAttribute(wrap(op), wrap(attribute.getName().strref()), wrap(attribute.getValue())));
  }

  // Set once, before any context exists (see umacRegisterDialect).
  static UmacVerifyOpFn verifyOp;
  static UmacVerifyAttributeFn verifyAttribute;
};

UmacVerifyOpFn UmacDialect::verifyOp = nullptr;
UmacVerifyAttributeFn UmacDialect::verifyAttribute = nullptr;

} // namespace umac

MLIR_DECLARE_EXPLICIT_TYPE_ID(umac::UmacDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(umac::UmacDialect)

umac::UmacDialect::UmacDialect(mlir::MLIRContext *context)
    : ExtensibleDialect(getDialectNamespace(), context, mlir::TypeID::get<UmacDialect>()) {
  auto verify = [](mlir::Operation *op) { return mlir::success(verifyOp(wrap(op))); };
  auto verifyRegions = [](mlir::Operation *) { return mlir::success(); };
  registerDynamicOp(mlir::DynamicOpDefinition::get("call_extern", this, verify, verifyRegions));
}

extern "C" void umacRegisterDialect(MlirDialectRegistry registry, UmacVerifyOpFn verifyOp,
                                    UmacVerifyAttributeFn verifyAttribute) {
  umac::UmacDialect::verifyOp = verifyOp;
  umac::UmacDialect::verifyAttribute = verifyAttribute;
  unwrap(registry)->insert<umac::UmacDialect>();
}
