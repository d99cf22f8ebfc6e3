# lit configuration for umac: runs test/lit/**/*.mlir with Debian's lit and FileCheck (LLVM 22).
import os
import lit.formats

config.name = "umac"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)

root = os.path.abspath(os.path.join(config.test_source_root, "..", ".."))
profile = os.environ.get("UMAC_PROFILE", "debug")
bin_dir = os.environ.get("UMAC_BIN_DIR", os.path.join(root, "target", profile))
llvm_bin = "/usr/lib/llvm-22/bin"

config.environment["PATH"] = os.pathsep.join([bin_dir, llvm_bin, config.environment.get("PATH", "")])
config.substitutions.append(("umac-opt", os.path.join(bin_dir, "umac-opt")))
config.substitutions.append(("mlir-translate", os.path.join(llvm_bin, "mlir-translate")))
config.substitutions.append(("%umac_root", root))

# The MLPerf Tiny models live beside the checkout (../shared); a user's clone has none, and the
# tests that need them are then reported unsupported rather than failing.
shared = os.environ.get("UMAC_SHARED", os.path.join(root, "..", "shared"))
if os.path.isdir(os.path.join(shared, "models", "mlperf-tiny")):
    config.available_features.add("shared-models")
config.substitutions.append(("%shared", shared))
