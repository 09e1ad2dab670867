# lit configuration for Saguaro's pass tests.
import os
import lit.formats

config.name = "saguaro"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.saguaro_obj_root
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]

# saguaro-opt first, then FileCheck and friends from LLVM 19.
config.environment["PATH"] = os.pathsep.join(
    [config.saguaro_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
