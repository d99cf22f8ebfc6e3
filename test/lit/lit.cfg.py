# lit configuration for umac: runs test/lit/**/*.mlir with Debian's lit and FileCheck (LLVM 22).
# Each accelerator's own tests (targets/<name>/test) load this file from a lit.cfg.py of theirs:
# `lit test/lit targets/*/test` runs them all.
import os
import lit.formats

here = os.path.dirname(os.path.abspath(__file__))
config.name = "umac"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs"]
config.test_source_root = config.test_source_root or here

root = os.path.abspath(os.path.join(here, "..", ".."))
profile = os.environ.get("UMAC_PROFILE", "debug")
bin_dir = os.environ.get("UMAC_BIN_DIR", os.path.join(root, "target", profile))
llvm_bin = "/usr/lib/llvm-22/bin"

config.environment["PATH"] = os.pathsep.join([bin_dir, llvm_bin, config.environment.get("PATH", "")])
config.environment["UMAC_BIN_DIR"] = bin_dir
config.substitutions.append(("umac-opt", os.path.join(bin_dir, "umac-opt")))
config.substitutions.append(("mlir-translate", os.path.join(llvm_bin, "mlir-translate")))
config.substitutions.append(("%umac_root", root))

# The MLPerf Tiny models live beside the checkout (../shared). Without them the tests that need
# them fail, unless UMAC_ALLOW_MISSING_SHARED=1 (a user's clone) reports them unsupported.
shared = os.environ.get("UMAC_SHARED", os.path.join(root, "..", "shared"))
if os.path.isdir(os.path.join(shared, "models", "mlperf-tiny")):
    config.available_features.add("shared-models")
elif os.environ.get("UMAC_ALLOW_MISSING_SHARED") != "1":
    lit_config.fatal(
        "%s is missing: the shared models live beside the checkout "
        "(set UMAC_ALLOW_MISSING_SHARED=1 to skip the tests that need them)" % os.path.join(shared, "models", "mlperf-tiny"))
config.substitutions.append(("%shared", shared))
