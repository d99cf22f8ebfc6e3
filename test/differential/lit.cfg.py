# lit configuration of the differential test: every file here runs `%compare ARGS`, which runs
# mlir-opt 22 and umac-opt with the same ARGS and input and fails on any difference in exit
# code, standard output, standard error (modulo the program's name) or files written.
import os

here = os.path.dirname(os.path.abspath(__file__))
config.test_source_root = here
lit_config.load_config(config, os.path.join(here, "..", "lit", "lit.cfg.py"))
config.name = "umac-differential"
config.excludes = ["Inputs", "compare.py"]
config.substitutions.insert(0, ("%compare", "python3 " + os.path.join(here, "compare.py")))
