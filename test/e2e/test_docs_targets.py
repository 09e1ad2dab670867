#!/usr/bin/env python3
"""docs/user-guide.md's target table is a copy of the compiler's one target table (kernels/targets.h): the same
rows in the same order with the same architecture, flags, CPU extensions and kernels; and `saguaro compile
--target` refuses a name that is no row with one line listing the table's names."""
import os
import re

import common

ROW = re.compile(r'\{"([^"]+)",\s*TargetArch::(\w+),\s*"([^"]*)",\s*"([^"]*)",\s*"([^"]*)"\}', re.S)


def header_rows(args):
    path = os.path.join(args.source_dir, "codegen", "kernels", "include", "saguaro", "kernels", "targets.h")
    rows = [tuple(" ".join(f.split()) for f in m) for m in ROW.findall(open(path).read())]
    if len(rows) < 2:
        raise SystemExit(f"FAIL: read {len(rows)} targets from {path}")
    return rows


def docs_rows(args):
    path = os.path.join(args.source_dir, "docs", "user-guide.md")
    text = open(path).read()
    table = text.split("<!-- targets-table: begin -->")[1].split("<!-- targets-table: end -->")[0]
    rows = []
    for line in table.strip().splitlines()[2:]:
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        name, arch, flags, extensions, kernels = (("" if c == "—" else c) for c in cells)
        rows.append((name, arch, flags, extensions, kernels))
    return rows


def main():
    args = common.parse_args()
    want = header_rows(args)
    got = docs_rows(args)
    if got != want:
        raise SystemExit(f"FAIL: docs/user-guide.md's target table differs from kernels/targets.h:\n"
                         f"  docs:   {got}\n  header: {want}")
    names = ", ".join(r[0] for r in want)
    model = os.path.join(args.source_dir, "examples", "models", "default")
    out = os.path.join(args.work_dir, "bundle")
    proc = common.run([args.saguaro, "compile", model, "-o", out, "--target", "riscv"], args, check=False)
    err = proc.stderr.decode().strip()
    if proc.returncode == 0 or f"unknown target 'riscv' ({names})" not in err or len(err.splitlines()) != 1:
        raise SystemExit(f"FAIL: --target riscv: exit {proc.returncode}, stderr {err!r}")
    if os.path.exists(out):
        raise SystemExit(f"FAIL: a refused compile left {out}")
    print(f"{len(want)} targets: the docs table matches kernels/targets.h; an unknown target is refused in one line")


if __name__ == "__main__":
    main()
