#!/usr/bin/env python3
"""`./dev mca`'s script (codegen/kernels/mca/mca.py) prints a row with positive numbers for every decode loop issue
34 asks about: each aarch64 target on Cortex-A76, Cortex-X1 and Neoverse-N1 and each x86 target on at least one
model of its own, at every bit width, for both compilers; weights per iteration are whole 8-row x 128-code tiles and
the ratio is the bytes per cycle over the phone's DRAM rate. A structural check: no performance figure is asserted.
Without llvm-mca-19 or a compiler the script skips with one line and status 77, which this test passes on; an
unknown target is refused in one line."""
import os
import re
import subprocess
import sys

import common

ARM_TARGETS = ("aarch64-neon", "aarch64-dotprod", "aarch64-i8mm")
ARM_CPUS = ("cortex-a76", "cortex-x1", "neoverse-n1")
X86_CPUS = {"x86-avx2": "znver3", "x86-avx512vnni": "icelake-server"}  # one model each must be there
COMPILERS = ("gcc", "clang")
BITS = ("1", "2", "3", "4")


def run(script, *extra, env=None):
    return subprocess.run(["/usr/bin/python3", script, *extra], capture_output=True, text=True, env=env)


def main():
    args = common.parse_args()
    script = os.path.join(args.source_dir, "codegen", "kernels", "mca", "mca.py")

    bad = run(script, "--targets", "riscv")
    if bad.returncode != 2 or len(bad.stderr.strip().splitlines()) != 1 or "'riscv'" not in bad.stderr:
        raise SystemExit(f"FAIL: --targets riscv: exit {bad.returncode}, stderr {bad.stderr!r}")
    skip = run(script, env={**os.environ, "PATH": "/nonexistent"})
    if skip.returncode != 77 or len(skip.stderr.strip().splitlines()) != 1 or "llvm-mca-19" not in skip.stderr:
        raise SystemExit(f"FAIL: without tools: exit {skip.returncode}, stderr {skip.stderr!r}")

    proc = run(script)
    if proc.returncode == 77:
        print(f"SKIP: {proc.stderr.strip()}")
        sys.exit(77)
    if proc.returncode != 0:
        raise SystemExit(f"FAIL: mca.py exited {proc.returncode}: {proc.stderr.strip()}")
    dram = re.search(r"= ([\d.]+) B/cycle", proc.stdout)
    if not dram or float(dram.group(1)) <= 0:
        raise SystemExit(f"FAIL: no phone DRAM rate in:\n{proc.stdout}")
    rows = {}
    for line in proc.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 11 or cells[0] not in COMPILERS:
            continue
        compiler, target, bits, cpu, weights, cycles, per32, bpc, phone, ratio, gbps = cells
        key = (compiler, target, bits, cpu)
        if key in rows:
            raise SystemExit(f"FAIL: row {key} twice")
        numbers = [float(weights), float(cycles), float(per32), float(bpc)]
        if min(numbers) <= 0 or int(float(weights)) % 1024:
            raise SystemExit(f"FAIL: row {line}")
        if target in ARM_TARGETS:
            if abs(float(ratio) - float(bpc) / float(dram.group(1))) > 0.011 or float(phone) != float(dram.group(1)):
                raise SystemExit(f"FAIL: ratio or DRAM column of {line}")
        rows[key] = line
    want = [(c, t, b, cpu) for c in COMPILERS for t in ARM_TARGETS for b in BITS for cpu in ARM_CPUS]
    want += [(c, t, b, cpu) for c in COMPILERS for t, cpu in X86_CPUS.items() for b in BITS]
    missing = [k for k in want if k not in rows]
    if missing:
        raise SystemExit(f"FAIL: rows missing: {missing}\n{proc.stdout}")
    print(f"{len(rows)} rows, every required (compiler, target, bits, cpu) with positive numbers")


if __name__ == "__main__":
    main()
