"""Issue 5, acceptance 1 (aarch64): stories260K compiled for each ARM target, cross-compiled with
cmake/aarch64-linux-gnu.cmake and run under qemu on the matching core, prints the host build's greedy text
(and llama2.c's) byte for byte; no build holds an instruction its core lacks (objdump); the dotprod and i8mm
programs refuse, in one line, a core without their extensions (cortex-a72, neoverse-n1); and the kernel unit
tests, cross-compiled by test/cross once per target's -march (ARMv8.0, + dotprod, + dotprod and i8mm: kernels.h
selects the int8 CQ kernels of that level), pass under qemu on the target's core and hold its own instructions
(SDOT, SMMLA) but none the core lacks. The tiny Gemma 4 model with every feature on
(test/reference/make_random_gemma4.py) compiled for aarch64-neon gives under qemu the host's generic logits within
the ISA tolerance, 1e-4 of the logits' scale (issue 28, acceptance 1)."""
import filecmp
import json
import os
import re
import shutil

import numpy as np

import common
import compare_logits

SYSROOT = "/usr/aarch64-linux-gnu"
TOOLS = ("aarch64-linux-gnu-g++", "aarch64-linux-gnu-objdump", "qemu-aarch64", "cmake")
PROMPT = ["-p", "Once upon a time", "-n", "256", "-t", "0"]

# Each bundle target runs on the weakest core that has its extensions (TOOLCHAIN.md).
TARGETS = [("aarch64-neon", "cortex-a72"), ("aarch64-dotprod", "neoverse-n1"), ("aarch64-i8mm", "max")]
# A core each target's program must refuse (Linux hwcap names of what that core lacks): kernels/cpu_features.h.
REFUSING = {"aarch64-dotprod": ("cortex-a72", "asimddp"), "aarch64-i8mm": ("neoverse-n1", "i8mm")}
# What manifest.json says each target needs of the CPU (Linux hwcap names).
CPU_EXTENSIONS = {"aarch64-neon": [], "aarch64-dotprod": ["asimddp"], "aarch64-i8mm": ["asimddp", "i8mm"]}
# Mnemonics (objdump spelling) of the extensions a target's core lacks: FEAT_DotProd and FEAT_I8MM.
DOTPROD = {"sdot", "udot"}
I8MM = {"smmla", "ummla", "usmmla", "usdot", "sudot"}
FORBIDDEN = {"aarch64-neon": DOTPROD | I8MM, "aarch64-dotprod": I8MM, "aarch64-i8mm": set()}
# The kernel tests of a target are compiled with its flags (kernels/targets.h) and must then contain the
# level's own instructions: proof that its kernels, not a lower level's, were compiled and tested.
REQUIRED = {"aarch64-neon": set(), "aarch64-dotprod": {"sdot"}, "aarch64-i8mm": {"sdot", "smmla"}}
# Compiled with dotprod and i8mm on, this must show both kinds of instruction: proof the scan can fail.
PROBE_SOURCE = """#include <arm_neon.h>
int32x4_t probe_sdot(int32x4_t a, int8x16_t b, int8x16_t c) { return vdotq_s32(a, b, c); }
int32x4_t probe_smmla(int32x4_t a, int8x16_t b, int8x16_t c) { return vmmlaq_s32(a, b, c); }
"""


def require_tools():
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if not os.path.isdir(SYSROOT):
        missing.append(SYSROOT)
    if missing:
        print(f"SKIP: {', '.join(missing)} absent (apt-get install g++-aarch64-linux-gnu "
              "binutils-aarch64-linux-gnu qemu-user cmake)")
        raise SystemExit(common.SKIP)
    if not os.path.exists("/usr/src/googletest/CMakeLists.txt"):
        print("SKIP: /usr/src/googletest is absent (apt-get install googletest)")
        raise SystemExit(common.SKIP)


def configure(args, source, build, *defines):
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    toolchain = os.path.join(args.source_dir, "cmake", "aarch64-linux-gnu.cmake")
    common.run(["cmake", "-S", source, "-B", build, *generator, "-DCMAKE_BUILD_TYPE=Release",
                f"-DCMAKE_TOOLCHAIN_FILE={toolchain}", *defines], args)
    common.run(["cmake", "--build", build, "-j", "2"], args)


def sync_tree(src, dst):
    """Makes dst a copy of src, rewriting only files whose bytes differ, so the build tree of the previous
    target rebuilds just what changed (ninja also rebuilds whatever's command line changed)."""
    for d, _, files in os.walk(src):
        os.makedirs(os.path.join(dst, os.path.relpath(d, src)), exist_ok=True)
        for f in files:
            a = os.path.join(d, f)
            b = os.path.join(dst, os.path.relpath(a, src))
            if not (os.path.exists(b) and filecmp.cmp(a, b, shallow=False)):
                shutil.copyfile(a, b)
    for d, _, files in os.walk(dst):
        for f in files:
            if not os.path.exists(os.path.join(src, os.path.relpath(os.path.join(d, f), dst))):
                os.remove(os.path.join(d, f))


def qemu(cpu, exe, *argv):
    return ["qemu-aarch64", "-cpu", cpu, "-L", SYSROOT, exe, *argv]


def check_aarch64_elf(path):
    with open(path, "rb") as f:
        header = f.read(20)
    if header[:4] != b"\x7fELF" or int.from_bytes(header[18:20], "little") != 183:  # EM_AARCH64
        raise SystemExit(f"FAIL: {path} is not an aarch64 ELF file: the toolchain file was not applied")


def instructions(args, path, wanted):
    """The mnemonics out of `wanted` that objdump finds in path's code, with a count each."""
    listing = common.run(["aarch64-linux-gnu-objdump", "-d", "--no-show-raw-insn", path], args).stdout.decode()
    found = {}
    for m in re.finditer(r"^\s*[0-9a-f]+:\s+([a-z0-9.]+)\s", listing, re.M):
        if m.group(1) in wanted:
            found[m.group(1)] = found.get(m.group(1), 0) + 1
    return found


def check_probe(args):
    """The instruction scan finds SDOT and SMMLA where the compiler was allowed to emit them."""
    src = os.path.join(args.work_dir, "probe.cpp")
    obj = os.path.join(args.work_dir, "probe.o")
    open(src, "w").write(PROBE_SOURCE)
    common.run(["aarch64-linux-gnu-g++", "-O2", "-march=armv8.2-a+dotprod+i8mm", "-c", src, "-o", obj], args)
    found = instructions(args, obj, DOTPROD | I8MM)
    if "sdot" not in found or "smmla" not in found:
        raise SystemExit(f"FAIL: the objdump scan missed sdot/smmla in {obj} (found {found})")


def refuses(args, target, cpu_missing, exe, bundle):
    """On a core without the target's extensions the program says so in one line and exits 1 (no SIGILL)."""
    cpu, missing = cpu_missing
    proc = common.run(qemu(cpu, exe, bundle, *PROMPT), args, check=False, timeout=600)
    want = common.cpu_refusal(bundle, target, missing)
    if proc.returncode != 1 or proc.stderr.decode().splitlines() != [want] or proc.stdout:
        raise SystemExit(f"FAIL: {target} under qemu -cpu {cpu}: exit {proc.returncode}, stderr "
                         f"{proc.stderr.decode()!r}, stdout {proc.stdout[:80]!r}; wanted exit 1 and only: {want}")
    print(f"{target}: under qemu -cpu {cpu} refused in one line (lacks {missing})")


def bundles(args, model, tok, expected):
    bundle, build = os.path.join(args.work_dir, "bundle"), os.path.join(args.work_dir, "build")
    for target, cpu in TARGETS:
        out_dir = os.path.join(args.work_dir, target)
        common.run([args.saguaro, "compile", model, "--tokenizer", tok, "-o", out_dir, "--target", target], args)
        needs = json.load(open(os.path.join(out_dir, "manifest.json")))["cpu_extensions"]
        if needs != CPU_EXTENSIONS[target]:
            raise SystemExit(f"FAIL: {target}: manifest.json's cpu_extensions are {needs}, not {CPU_EXTENSIONS[target]}")
        sync_tree(out_dir, bundle)
        configure(args, bundle, build)
        exe = os.path.join(args.work_dir, f"saguaro_bundle-{target}")
        shutil.copy2(os.path.join(build, "saguaro_bundle"), exe)  # keeps the x bit (qemu exits 1 silently)
        check_aarch64_elf(exe)

        bad = instructions(args, exe, FORBIDDEN[target])
        if bad:
            raise SystemExit(f"FAIL: the {target} build contains {bad}, which -cpu {cpu} lacks")
        out = common.run(qemu(cpu, exe, out_dir, *PROMPT), args, timeout=600)
        if out.stdout != expected:
            reference = os.path.join(args.work_dir, "host.stdout.txt")
            got = os.path.join(args.work_dir, f"{target}.stdout.txt")
            open(got, "wb").write(out.stdout)
            raise SystemExit(f"FAIL: {target} under qemu -cpu {cpu} printed other text than the host "
                             f"build: diff {reference} {got}")
        if target in REFUSING:
            refuses(args, target, REFUSING[target], exe, out_dir)
        note = f"none of {', '.join(sorted(FORBIDDEN[target]))}" if FORBIDDEN[target] else "no restriction"
        print(f"{target}: under qemu -cpu {cpu} byte-identical to the host ({len(expected)} bytes); "
              f"objdump: {note}")


def gemma4(args):
    """The full tiny Gemma 4 model for aarch64-neon under qemu against the host's generic build. The other ARM targets
    differ only in the int8 CQ products, which a float model does not call."""
    model, ids = os.path.join(args.work_dir, "gemma4"), os.path.join(args.work_dir, "gemma4-ids.txt")
    common.random_gemma4(args, model, "full")
    open(ids, "w").write(" ".join(str((i * 37 + 11) % 256) for i in range(24)) + "\n")  # past the window of 8
    host = os.path.join(args.work_dir, "gemma4-host.npy")
    common.run([args.saguaro, "logits", model, "--token-ids", ids, "-o", host, "--target", "generic",
                "--kv-cache", "f32"], args)
    out_dir, target, cpu = os.path.join(args.work_dir, "gemma4-aarch64-neon"), "aarch64-neon", "cortex-a72"
    common.run([args.saguaro, "compile", model, "-o", out_dir, "--target", target, "--kv-cache", "f32"], args)
    bundle, build = os.path.join(args.work_dir, "bundle"), os.path.join(args.work_dir, "build")
    sync_tree(out_dir, bundle)  # the stories260K bundles' build tree: only model.cpp is new
    configure(args, bundle, build)
    exe = os.path.join(args.work_dir, f"saguaro_bundle-gemma4-{target}")
    shutil.copy2(os.path.join(build, "saguaro_bundle"), exe)
    check_aarch64_elf(exe)
    ours = os.path.join(args.work_dir, "gemma4-aarch64-neon.npy")
    common.run(qemu(cpu, exe, out_dir, "--logits", ids, "-o", ours), args, timeout=600)
    ok, msg = compare_logits.compare(np.load(ours), np.load(host), 1e-4)
    if not ok:
        raise SystemExit(f"FAIL: Gemma 4 {target} under qemu -cpu {cpu} against the host's generic logits: {msg}")
    print(f"Gemma 4 (full tiny model), {target} under qemu -cpu {cpu} against host generic: {msg}")


def kernel_tests(args):
    for target, cpu in TARGETS:
        build = os.path.join(args.work_dir, f"kernels-{target}")
        # Through ccache when it is installed, as ./dev's own build (a bundle routes itself through it).
        launcher = ["-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] \
            if shutil.which("ccache") else []
        configure(args, os.path.join(args.source_dir, "test", "cross"), build, *launcher,
                  f"-DSAGUARO_CROSS_TARGET={target}", f"-DQEMU_CPU={cpu}")
        exe = os.path.join(build, "unit_kernels", "kernels_neon_tests")
        check_aarch64_elf(exe)
        found = instructions(args, exe, DOTPROD | I8MM)
        bad = {m: n for m, n in found.items() if m in FORBIDDEN[target]}
        if bad:
            raise SystemExit(f"FAIL: the {target} kernel tests contain {bad}, which -cpu {cpu} lacks")
        missing = REQUIRED[target] - found.keys()
        if missing:
            raise SystemExit(f"FAIL: the {target} kernel tests ({common.target_flags(args, target)}) lack "
                             f"{sorted(missing)}: kernels.h did not select that level's kernels")
        os.environ["SAGUARO_EXPECT_NATIVE_TARGET"] = target  # CpuFeatures.NativeTargetRunsHereAndIsTheWidest
        proc = common.run(["ctest", "--test-dir", build, "-j", "2", "--output-on-failure", "--no-tests=error"],
                          args, check=False, timeout=600)
        summary = [l for l in proc.stdout.decode(errors="replace").splitlines() if "tests passed" in l]
        if proc.returncode != 0:
            print(proc.stdout.decode(errors="replace"))
            raise SystemExit(f"FAIL: {target} kernel unit tests under qemu -cpu {cpu}")
        print(f"kernel unit tests ({target}, {common.target_flags(args, target)}, qemu -cpu {cpu}): "
              f"{summary[-1] if summary else 'passed'}; objdump: {dict(sorted(found.items())) or 'no sdot/smmla'}")


def main():
    args = common.parse_args()
    model = common.require_shared(args, "data", "stories260K", "stories260K.bin")
    tok = common.require_shared(args, "data", "stories260K", "tok512.bin")
    reference = common.require_shared(args, "data", "stories260K", "ref", "once-upon-a-time.stdout.txt")
    require_tools()
    check_probe(args)

    host = common.run([args.saguaro, "run", model, "--tokenizer", tok, *PROMPT], args).stdout
    open(os.path.join(args.work_dir, "host.stdout.txt"), "wb").write(host)
    if host != open(reference, "rb").read():
        raise SystemExit(f"FAIL: the host build's text differs from llama2.c's ({reference})")
    print(f"host: byte-identical to llama2.c ({len(host)} bytes)")

    bundles(args, model, tok, host)
    gemma4(args)
    kernel_tests(args)


if __name__ == "__main__":
    main()
