// umac passes and pipelines in MLIR's own pass registry, so MLIR's pipeline parser, mlir-opt's
// command line (`--umac-plan-memory=alignment=8`), `--help`, `--dump-pass-pipeline` and crash
// reproducers know them like any upstream pass. A pass's options are real MLIR pass options;
// its work is a Rust callback.

#include "umac_mlir.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace {

/// A pass or pipeline as registered, owned for the life of the process.
struct Spec {
  std::string argument, description, className, anchor;
  struct Option {
    std::string name, help, defaultValue;
    int kind;
  };
  std::vector<Option> options;
  const void *typeId;
  UmacCheckOptionsFn check = nullptr;
  UmacRunPassFn run = nullptr;
  UmacExpandPipelineFn expand = nullptr;
};

std::string toString(MlirStringRef ref) { return std::string(ref.data, ref.length); }

/// Every registered spec; a deque never moves its elements, so passes may point into it.
std::deque<Spec> &specs() {
  static std::deque<Spec> all;
  return all;
}

Spec &keep(const UmacPassSpec *spec) {
  Spec owned;
  owned.argument = toString(spec->argument);
  owned.description = toString(spec->description);
  owned.className = toString(spec->className);
  owned.anchor = toString(spec->anchor);
  for (size_t i = 0; i < spec->numOptions; ++i) {
    const UmacOptionSpec &option = spec->options[i];
    owned.options.push_back({toString(option.name), toString(option.help), toString(option.defaultValue), option.kind});
  }
  owned.typeId = spec->typeId;
  specs().push_back(std::move(owned));
  return specs().back();
}

void appendTo(MlirStringRef text, void *userData) {
  static_cast<std::string *>(userData)->append(text.data, text.length);
}

/// A umac pass: MLIR pass options declared from the spec, the work done by the Rust callback.
class RustPass : public mlir::Pass {
public:
  explicit RustPass(const Spec &spec)
      : Pass(mlir::TypeID::getFromOpaquePointer(spec.typeId),
             spec.anchor.empty() ? std::optional<llvm::StringRef>() : llvm::StringRef(spec.anchor)),
        spec(spec) {
    for (const Spec::Option &option : spec.options) {
      switch (option.kind) {
      case 0:
        bools.push_back(std::make_unique<Option<bool>>(*this, option.name, llvm::cl::desc(option.help),
                                                        llvm::cl::init(option.defaultValue == "true")));
        break;
      case 1:
        ints.push_back(std::make_unique<Option<int64_t>>(*this, option.name, llvm::cl::desc(option.help),
                                                          llvm::cl::init(std::stoll(option.defaultValue))));
        break;
      default:
        strings.push_back(std::make_unique<Option<std::string>>(*this, option.name, llvm::cl::desc(option.help),
                                                                 llvm::cl::init(option.defaultValue)));
      }
    }
  }

  llvm::StringRef getName() const override { return spec.className; }
  llvm::StringRef getArgument() const override { return spec.argument; }
  llvm::StringRef getDescription() const override { return spec.description; }

  bool canScheduleOn(mlir::RegisteredOperationName opName) const override {
    return spec.anchor.empty() || opName.getStringRef() == spec.anchor;
  }

  // The dialects umac passes build ops of: loaded before passes run on several threads.
  void getDependentDialects(mlir::DialectRegistry &registry) const override { mlir::registerAllDialects(registry); }

  mlir::LogicalResult initializeOptions(llvm::StringRef options,
                                        llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler) override {
    if (mlir::failed(Pass::initializeOptions(options, errorHandler)))
      return mlir::failure();
    std::vector<std::string> text = values();
    std::vector<MlirStringRef> refs = references(text);
    std::string error;
    if (!spec.check(wrap(llvm::StringRef(spec.argument)), refs.data(), refs.size(), appendTo, &error))
      return errorHandler(error);
    return mlir::success();
  }

  void runOnOperation() override {
    std::vector<std::string> text = values();
    std::vector<MlirStringRef> refs = references(text);
    if (!spec.run(wrap(llvm::StringRef(spec.argument)), refs.data(), refs.size(), wrap(getOperation())))
      signalPassFailure();
  }

  // (Pass::clone copies the option values into the clone.)
  std::unique_ptr<Pass> clonePass() const override { return std::make_unique<RustPass>(spec); }

private:
  /// The options' values as text, in declaration order.
  std::vector<std::string> values() const {
    std::vector<std::string> text;
    size_t b = 0, i = 0, s = 0;
    for (const Spec::Option &option : spec.options) {
      switch (option.kind) {
      case 0:
        text.push_back(bools[b++]->getValue() ? "true" : "false");
        break;
      case 1:
        text.push_back(std::to_string(ints[i++]->getValue()));
        break;
      default:
        text.push_back(strings[s++]->getValue());
      }
    }
    return text;
  }

  static std::vector<MlirStringRef> references(const std::vector<std::string> &text) {
    std::vector<MlirStringRef> refs;
    for (const std::string &value : text)
      refs.push_back(mlirStringRefCreate(value.data(), value.size()));
    return refs;
  }

  const Spec &spec;
  std::vector<std::unique_ptr<Option<bool>>> bools;
  std::vector<std::unique_ptr<Option<int64_t>>> ints;
  std::vector<std::unique_ptr<Option<std::string>>> strings;
};

} // namespace

extern "C" void umacRegisterPass(const UmacPassSpec *spec, UmacCheckOptionsFn check, UmacRunPassFn run) {
  Spec &owned = keep(spec);
  owned.check = check;
  owned.run = run;
  const Spec *pointer = &owned;
  mlir::registerPass([pointer]() -> std::unique_ptr<mlir::Pass> { return std::make_unique<RustPass>(*pointer); });
}

extern "C" void umacRegisterPipeline(const UmacPassSpec *spec, UmacExpandPipelineFn expand) {
  Spec &owned = keep(spec);
  owned.expand = expand;
  const Spec *pointer = &owned;
  auto builder = [pointer](mlir::OpPassManager &pm, llvm::StringRef options,
                           llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler) {
    std::string text;
    if (!pointer->expand(wrap(llvm::StringRef(pointer->argument)), wrap(options), appendTo, &text))
      return errorHandler(text);
    std::string errors;
    llvm::raw_string_ostream stream(errors);
    if (mlir::failed(mlir::parsePassPipeline(text, pm, stream)))
      return errorHandler("in pipeline '" + pointer->argument + "' (" + text + "): " + errors);
    return mlir::success();
  };
  mlir::registerPassPipeline(owned.argument, owned.description, builder, [](auto) {});
}
