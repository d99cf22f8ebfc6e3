# lit configuration of tynnp's tests: umac's suite configuration, run on this folder.
import os

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
lit_config.load_config(config, os.path.join(config.test_source_root, "..", "..", "..", "test", "lit", "lit.cfg.py"))
config.name = "umac-tynnp"
