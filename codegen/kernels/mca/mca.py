#!/usr/bin/python3
"""Static analysis of the int8 CQ decode loops with llvm-mca (`./dev mca`, docs/performance.md).

For every target that has int8 CQ kernels and every bit width, decode_loop.cpp (the decode GEMV generated code calls)
is compiled to assembly with GCC and clang (COMPILERS), the target's flags (kernels/targets.h, read here as cmake/SaguaroTargets.cmake
reads them) and the bundle's -O2 -ffp-contract=off. The decode loop is found in that assembly, not rewritten: the
single-basic-block loop (a backward branch with no label or branch inside) that holds both the codebook lookups and
the most int8 products. Its weights per iteration come from its product instructions (each covers one vector of
weight bytes) and must be a whole number of the kernel's tiles (8 rows x one group). llvm-mca-19 then predicts the
loop's cycles per iteration on each CPU model; the table gives cycles per 32 weights and the weight bytes per cycle
the loop can consume (codes plus norms, docs/quantization.md: bits/8 + 2/g bytes per weight), beside the phone
core's sustained DRAM bytes per cycle (PHONE_DRAM below) for the aarch64 rows, and the predicted weight GB/s at the
host clock for the x86 rows, to set beside `saguaro bench`'s (weight MB/token x decode tok/s, one thread).

Exit status 77 (a skip, for the tests) when llvm-mca-19 or a compiler is missing; 2 for an unknown target or
compiler; 1 when the loop cannot be found or llvm-mca fails.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
INCLUDE = os.path.join(ROOT, "codegen", "kernels", "include")
TARGETS_H = os.path.join(INCLUDE, "saguaro", "kernels", "targets.h")
DRIVER = os.path.join(HERE, "decode_loop.cpp")
MCA = "llvm-mca-19"

K = 1024  # Qwen3-0.6B's hidden size: group size g = 128, the size every K >= 128 has
GROUP = 128  # cq::group_size(K)
TILE_ROWS = 8  # the decode tile: eight weight rows (cq_i8_loops::gemv_rows)
BITS = (1, 2, 3, 4)

# The phone core's sustained DRAM read rate. ASSUMPTION, no measured single-core figure was found: Snapdragon 888
# runs its Cortex-X1 at 2.84 GHz (https://www.gizbot.com/mobile/features/arm-cortex-x1-the-next-gen-mobile-cpu-
# architecture-explained-071330.html) with LPDDR5 at 6.4 Gb/s per pin (https://www.moneycontrol.com/news/technology/
# samsung-achieves-fastest-ever-dram-speed-on-qualcomms-platform-clocking-8-5gbps-9348381.html); on a 64-bit bus
# (4 x 16-bit channels, taken as given) that peaks at 51.2 GB/s, and one core is taken to sustain half of it:
# 25.6 GB/s, 9.0 bytes per cycle.
PHONE_DRAM = {"gbps": 25.6, "ghz": 2.84,
              "source": "assumption: half of Snapdragon 888's LPDDR5-6400 peak (51.2 GB/s) at the X1's 2.84 GHz"}

# Per target: architecture, CPU models, the product instruction (one per vector of weight bytes) and its vector
# width in weights, the codebook lookup instruction. LLVM 19 has no scheduling model of its own for cortex-a76 and
# cortex-x1: it analyses both with its Cortex-A57 model (same numbers); neoverse-n1, a Cortex-A76 derivative, has
# one. None of the three has i8mm, which decode does not use (aarch64-i8mm's decode loop is the dotprod one).
ARM_CPUS = ("cortex-a76", "cortex-x1", "neoverse-n1")
TARGETS = {
    "aarch64-neon": ("aarch64", ARM_CPUS, "smlal2", 16, "tbl"),  # SMULL + SMLAL2 (+ SADALP) per 16 weights
    "aarch64-dotprod": ("aarch64", ARM_CPUS, "sdot", 16, "tbl"),
    "aarch64-i8mm": ("aarch64", ARM_CPUS, "sdot", 16, "tbl"),
    # znver3: the AVX2-only machine issue 34 measured; znver4: the AVX-512 development host (docs/performance.md).
    "x86-avx2": ("x86_64", ("znver3", "znver4"), "vpmaddubsw", 32, "vpshufb"),
    "x86-avx512vnni": ("x86_64", ("znver4", "icelake-server"), "vpdpbusd", 32, "vpshufb"),
}
TRIPLES = {"aarch64": "aarch64-linux-gnu", "x86_64": "x86_64-linux-gnu"}

# The compilers, per architecture: GCC is what the project builds bundles with (g++, and cmake/aarch64-linux-gnu.cmake
# across); clang is what an Android NDK build of a bundle would use.
COMPILERS = {
    "gcc": {"aarch64": ["aarch64-linux-gnu-g++"], "x86_64": ["g++"]},
    "clang": {"aarch64": ["clang++-19", "--target=aarch64-linux-gnu"], "x86_64": ["clang++-19"]},
}


def fail(message, status=1):
    print(f"mca: {message}", file=sys.stderr)
    sys.exit(status)


def target_flags(name):
    """The flags of target `name` in kernels/targets.h (the table's third field)."""
    with open(TARGETS_H, encoding="utf-8") as f:
        table = f.read()
    m = re.search(r'\{"' + re.escape(name) + r'",\s*TargetArch::\w+,\s*"([^"]*)"', table)
    if not m:
        fail(f"{TARGETS_H}: no row for target '{name}'")
    return m.group(1).split()


def compile_asm(compiler, target, bits, out):
    cmd = [*COMPILERS[compiler][TARGETS[target][0]], "-std=c++17", "-O2", "-ffp-contract=off", *target_flags(target),
           f"-DSAGUARO_MCA_K={K}", f"-DSAGUARO_MCA_BITS={bits}", "-I", INCLUDE, "-S", "-o", out, DRIVER]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{DRIVER}: {cmd[0]} failed for {target} {bits}-bit:\n{r.stderr.strip()}")


LABEL = re.compile(r"^(\.?L\w+):")
BRANCH_X86 = re.compile(r"^\s*j\w*\s+(\.L\w+)\s*$")
CONDITIONS = "eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al"
BRANCH_ARM = re.compile(r"^\s*(?:b\.?(?:" + CONDITIONS + r")?|cbn?z\s+\w+,|tbn?z\s+\w+,\s*#?\w+,)\s+(\.L\w+)\s*$")


def instructions(lines):
    """The instruction lines of `lines` (no labels, directives, comments or blank lines)."""
    out = []
    for line in lines:
        s = line.strip()
        if not s or s.startswith((".", "#", "//")) or LABEL.match(s):
            continue
        out.append(s)
    return out


def mnemonic(insn):
    return insn.split()[0]


def decode_loop(asm_path, product, lookup):
    """The instructions of the single-block loop with lookups and the most `product` instructions."""
    with open(asm_path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    labels = {}
    best = None
    for i, line in enumerate(lines):
        m = LABEL.match(line)
        if m:
            labels[m.group(1)] = i
            continue
        b = BRANCH_X86.match(line) or BRANCH_ARM.match(line)
        if not b or b.group(1) not in labels:
            continue  # a forward branch
        body = lines[labels[b.group(1)] + 1:i + 1]
        inner = body[:-1]
        if any(LABEL.match(x) or BRANCH_X86.match(x) or BRANCH_ARM.match(x) for x in inner):
            continue  # more than one basic block
        insns = instructions(body)
        names = [mnemonic(x) for x in insns]
        products = names.count(product)
        if products and lookup in names and (best is None or products > best[0]):
            best = (products, insns)
    if best is None:
        fail(f"{asm_path}: no single-block loop with {product} and {lookup} (the decode loop's shape changed?)")
    return best


def run_mca(triple, cpu, insns):
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write("\n".join(insns) + "\n")
        path = f.name
    try:
        r = subprocess.run([MCA, f"-mtriple={triple}", f"-mcpu={cpu}", "-iterations=300", "-summary-view",
                            "-resource-pressure=false", "-instruction-info=false", path],
                           capture_output=True, text=True)
    finally:
        os.unlink(path)
    if r.returncode != 0:
        fail(f"{MCA} -mcpu={cpu} failed: {r.stderr.strip().splitlines()[0] if r.stderr.strip() else r.returncode}")
    total = re.search(r"Total Cycles:\s+(\d+)", r.stdout)
    iters = re.search(r"Iterations:\s+(\d+)", r.stdout)
    if not total or not iters:
        fail(f"{MCA} -mcpu={cpu}: no cycle count in its output")
    return int(total.group(1)) / int(iters.group(1))


def host_ghz():
    """The highest current clock /proc/cpuinfo reports (GHz), or None."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            mhz = [float(x) for x in re.findall(r"^cpu MHz\s*:\s*([\d.]+)", f.read(), re.M)]
        return max(mhz) / 1000 if mhz else None
    except OSError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", default=",".join(TARGETS), help="comma-separated targets (default: all)")
    ap.add_argument("--compilers", default=",".join(COMPILERS), help="comma-separated: gcc, clang (default: both)")
    ap.add_argument("--ghz", type=float, default=None, help="clock for the x86 rows' GB/s (default: /proc/cpuinfo)")
    args = ap.parse_args()
    targets, compilers = args.targets.split(","), args.compilers.split(",")
    for name, known in [(t, TARGETS) for t in targets] + [(c, COMPILERS) for c in compilers]:
        if name not in known:
            fail(f"unknown name '{name}' (known: {', '.join(known)})", 2)
    tools = {MCA} | {COMPILERS[c][TARGETS[t][0]][0] for c in compilers for t in targets}
    missing = sorted(x for x in tools if shutil.which(x) is None)
    if missing:
        fail(f"skipped: {' '.join(missing)} not found (Debian: llvm-19, clang-19, g++-aarch64-linux-gnu)", 77)
    ghz = args.ghz or host_ghz()
    dram = PHONE_DRAM["gbps"] / PHONE_DRAM["ghz"]

    print(f"phone DRAM: {PHONE_DRAM['gbps']} GB/s at {PHONE_DRAM['ghz']} GHz = {dram:.2f} B/cycle "
          f"({PHONE_DRAM['source']})")
    print("cortex-a76 and cortex-x1: LLVM 19 analyses both with its Cortex-A57 model; neoverse-n1 has its own")
    if ghz:
        print(f"x86 rows: predicted weight GB/s at {ghz:.2f} GHz, to compare with saguaro bench's weight MB/token x "
              "decode tok/s at one thread")
    print("| compiler | target | bits | cpu | weights/iter | cycles/iter | cycles per 32 weights | weight B/cycle "
          "| phone DRAM B/cycle | ratio | x86 GB/s at host clock |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for compiler in compilers:
            for t in targets:
                arch, cpus, product, lanes, lookup = TARGETS[t]
                for bits in BITS:
                    asm = os.path.join(tmp, f"{compiler}-{t}-{bits}.s")
                    compile_asm(compiler, t, bits, asm)
                    products, insns = decode_loop(asm, product, lookup)
                    weights = products * lanes
                    if weights % (TILE_ROWS * GROUP):
                        fail(f"{compiler} {t} {bits}-bit: the loop's {products} {product} cover {weights} weights, "
                             f"not a whole number of {TILE_ROWS}-row x {GROUP}-code tiles")
                    bytes_per_weight = bits / 8 + 2 / GROUP
                    for cpu in cpus:
                        cycles = run_mca(TRIPLES[arch], cpu, insns)
                        bpc = weights * bytes_per_weight / cycles
                        if arch == "aarch64":
                            cols = f"{dram:.2f} | {bpc / dram:.2f} | -"
                        else:
                            cols = f"- | - | {bpc * ghz:.1f}" if ghz else "- | - | -"
                        print(f"| {compiler} | {t} | {bits} | {cpu} | {weights} | {cycles:.1f} | "
                              f"{cycles * 32 / weights:.2f} | {bpc:.2f} | {cols} |")


if __name__ == "__main__":
    main()
