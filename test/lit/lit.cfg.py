# lit configuration for umac: runs test/lit/**/*.mlir with Debian's lit and FileCheck (LLVM 22).
# Each accelerator's own tests (targets/<name>/test) load this file from a lit.cfg.py of theirs:
# `lit test/lit targets/*/test` runs them all.
import os
import re
import lit.formats

here = os.path.dirname(os.path.abspath(__file__))
config.name = "umac"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs"]
config.test_source_root = config.test_source_root or here

root = os.path.abspath(os.path.join(here, "..", ".."))
# lit pastes %s, %S and %t into its shell unquoted: a checkout path with whitespace would split
# every RUN line's paths. Say so instead of failing in hundreds of places.
if any(c.isspace() for c in root):
    lit_config.fatal("the checkout's path %r has whitespace, which lit's %%s and %%t cannot carry: "
                     "clone it to a path without spaces" % root)
profile = os.environ.get("UMAC_PROFILE", "debug")
bin_dir = os.environ.get("UMAC_BIN_DIR", os.path.join(root, "target", profile))
llvm_bin = "/usr/lib/llvm-22/bin"

config.environment["PATH"] = os.pathsep.join([bin_dir, llvm_bin, config.environment.get("PATH", "")])
config.environment["UMAC_BIN_DIR"] = bin_dir
# A converter named by the caller (umac's `.tflite` input) reaches the tools lit runs.
if "UMAC_TFLITE_CONVERTER" in os.environ:
    config.environment["UMAC_TFLITE_CONVERTER"] = os.environ["UMAC_TFLITE_CONVERTER"]
# The tools by absolute path, matched as whole words only: a path that a substitution put into the
# line before (%compare's, under a checkout named umac-opt) is left alone.
tool = lambda name: (r"(?<![\w/.%%-])%s(?![\w.-])" % re.escape(name))
config.substitutions.append((tool("umac-opt"), os.path.join(bin_dir, "umac-opt")))
config.substitutions.append((tool("mlir-translate"), os.path.join(llvm_bin, "mlir-translate")))
config.substitutions.append(("%umac_bin", os.path.join(bin_dir, "umac")))
config.substitutions.append(("%umac_root", root))

# The MLPerf Tiny models the repository carries (test/models/mlperf-tiny: the models as mlcommons
# publishes them, their TOSA conversions and TFLite Micro references).
config.substitutions.append(("%models", os.path.join(root, "test", "models")))
