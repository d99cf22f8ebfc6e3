// The umac dialect, registered: `umac.call_extern` is a dynamic op whose verifier is umac's Rust
// verifier, and `umac.*` attributes are checked by it too, so MLIR's own verifier (after parsing,
// after every pass) covers umac IR, in mlir-opt's driver and in umac's tools alike. Accelerators'
// own dialects (their primitive ops) are dynamic dialects registered beside it, each op verified
// by Rust (umacAddDynamicDialect).

#include "umac_mlir.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/ExtensibleDialect.h"

#include <string>
#include <vector>

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

namespace {

// An accelerator's dialect: its namespace, its ops, their verifier.
struct DynamicDialectSpec {
  std::string name;
  std::vector<std::string> ops;
  UmacVerifyOpFn verify;
};

// Added before any registry is filled (umac registers its backends first thing).
std::vector<DynamicDialectSpec> &dynamicDialects() {
  static std::vector<DynamicDialectSpec> specs;
  return specs;
}

} // namespace

extern "C" void umacAddDynamicDialect(MlirStringRef name, const MlirStringRef *ops, size_t numOps,
                                      UmacVerifyOpFn verify) {
  DynamicDialectSpec spec{std::string(unwrap(name)), {}, verify};
  for (size_t i = 0; i < numOps; ++i)
    spec.ops.emplace_back(unwrap(ops[i]));
  for (const DynamicDialectSpec &known : dynamicDialects())
    if (known.name == spec.name)
      return;
  dynamicDialects().push_back(std::move(spec));
}

extern "C" void umacRegisterDialect(MlirDialectRegistry registry, UmacVerifyOpFn verifyOp,
                                    UmacVerifyAttributeFn verifyAttribute) {
  umac::UmacDialect::verifyOp = verifyOp;
  umac::UmacDialect::verifyAttribute = verifyAttribute;
  unwrap(registry)->insert<umac::UmacDialect>();
  for (const DynamicDialectSpec &spec : dynamicDialects()) {
    unwrap(registry)->insertDynamic(spec.name, [spec](mlir::MLIRContext *, mlir::DynamicDialect *dialect) {
      UmacVerifyOpFn verifyOp = spec.verify;
      for (const std::string &op : spec.ops) {
        auto verify = [verifyOp](mlir::Operation *op) { return mlir::success(verifyOp(wrap(op))); };
        auto verifyRegions = [](mlir::Operation *) { return mlir::success(); };
        dialect->registerDynamicOp(mlir::DynamicOpDefinition::get(op, dialect, verify, verifyRegions));
      }
    });
  }
}
