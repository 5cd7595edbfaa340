# lit configuration for compactptr.  The site file (generated into the build
# tree) sets paths; everything else is here.
import os
import lit.formats

config.name = "compactptr"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c", ".test"]
# Inputs/ hold files that tests include or compile; runtime/ holds the C unit
# tests and differential/ the random-program test that CTest runs directly.
config.excludes = ["Inputs", "runtime", "install", "differential", "CMakeLists.txt", "lit.cfg.py", "README.md"]

config.test_source_root = os.path.join(config.compactptr_src_root, "test")
config.test_exec_root = os.path.join(config.compactptr_obj_root, "test")

obj = config.compactptr_obj_root
src = config.compactptr_src_root
incs = "-I%s -I%s" % (os.path.join(src, "include"), os.path.join(obj, "include"))

config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, os.path.join(obj, "tool"), os.path.join(obj, "bench"),
     config.environment.get("PATH", os.environ.get("PATH", ""))])
# Runtime knobs from the developer's shell must not leak into tests.
for k in list(os.environ):
    if k.startswith("COMPACTPTR_"):
        config.environment.pop(k, None)

plugin = os.path.join(obj, "passes", "compactptr.so")
runtime_lib = os.path.join(obj, "runtime", "libcompactptr.a")

config.substitutions.append(("%clang", config.clang))
config.substitutions.append(("%cflags", incs))
config.substitutions.append(("%plugin", plugin))
# The runtime built with ThreadSanitizer (runtime/, where clang links TSan);
# before %runtime, which is its prefix.
runtime_tsan = os.path.join(obj, "runtime", "libcompactptr_tsan.a")
config.substitutions.append(("%runtime_tsan", "-fsanitize=thread %s -lpthread" % runtime_tsan))
config.substitutions.append(("%runtime", "%s -lpthread" % runtime_lib))
config.substitutions.append(("%rewrite", os.path.join(obj, "tool", "compactptr-rewrite")))
config.substitutions.append(("%cc", os.path.join(obj, "tool", "compactptr-cc")))
# The warning flags a careful C project builds with.
config.substitutions.append(("%strict", "-Wall -Wextra -Wpedantic -Wconversion "
                             "-Wcast-qual -Wshadow -Werror"))
config.substitutions.append(("%inputs", os.path.join(src, "test", "Inputs")))
config.substitutions.append(("%srcroot", src))
config.substitutions.append(("%objroot", obj))

if os.path.exists(plugin):
    config.available_features.add("plugin")
if os.path.exists(runtime_tsan):
    config.available_features.add("tsan")
# Other compilers and tools the toolchain tests use when present.
import shutil
for tool in ("clang-14", "clang-16", "ccache", "gdb", "gcc"):
    if shutil.which(tool):
        config.available_features.add(tool)
config.available_features.add("granule-%s" % config.granule_shift)
import shutil
if shutil.which("valgrind"):
    config.available_features.add("valgrind")
