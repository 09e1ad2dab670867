"""Acceptance 3 and 5 on a compiled stories260K bundle:
- compiling the same inputs twice gives byte-identical bundles;
- model.cpp is straight-line: no loops, branches, switches or shape arithmetic, only kernel calls
  whose shapes are literal template arguments;
- model.cpp reads as the model: a comment starts each layer's attention and MLP, and values are named after what
  they hold (x_l3_attn_out, kv_l3_k, w_layers_3_wq), none by the emitter's v1, v2, ...;
- the memory plan in manifest.json never places two simultaneously live buffers on the same bytes;
- after init, prefill and decode allocate nothing (a counting operator new around generation);
- with ccache installed, a second bundle compiles nothing the first one compiled (its CMakeLists routes the
  compiler through ccache with the bundle directory as CCACHE_BASEDIR); -DSAGUARO_CCACHE=OFF turns that off, and
  a bundle whose ccache cannot work (no cache directory) builds without it."""
import filecmp
import json
import os
import re
import shutil
import subprocess

import common


def tree(root):
    """Relative paths of all files under root."""
    out = []
    for d, _, files in os.walk(root):
        out += [os.path.relpath(os.path.join(d, f), root) for f in files]
    return sorted(out)


def check_identical(a, b):
    files_a, files_b = tree(a), tree(b)
    if files_a != files_b:
        raise SystemExit(f"FAIL: bundles list different files: {set(files_a) ^ set(files_b)}")
    for f in files_a:
        if not filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False):
            raise SystemExit(f"FAIL: {f} differs between two compilations of the same inputs")
    print(f"determinism: {len(files_a)} files byte-identical")


def check_straight_line(model_cpp):
    text = open(model_cpp).read()
    bodies = re.findall(r"void saguaro_model_(?:prefill|decode)\([^)]*\) \{(.*?)\n\}", text, re.S)
    if len(bodies) != 2:
        raise SystemExit("FAIL: model.cpp does not define saguaro_model_prefill and saguaro_model_decode")
    for body in bodies:
        for banned in ("for (", "while (", "switch (", "if (", "goto ", "[i]"):
            if banned in body:
                raise SystemExit(f"FAIL: generated entry point contains '{banned}'")
        calls = re.findall(r"saguaro::kernels::(\w+)<([^>]*)>\(", body)
        if not calls:
            raise SystemExit("FAIL: no kernel calls in a generated entry point")
        for name, targs in calls:
            for arg in targs.split(","):
                if not re.fullmatch(r"\s*(-?\d+|true|false)\s*", arg):
                    raise SystemExit(f"FAIL: {name} has a non-literal template argument '{arg}'")
        # Every other statement is a pointer from a constant offset, a weight slot, the thread pool or the row count
        # (comments mark the model's blocks).
        ident = r"[A-Za-z_]\w*"
        for line in body.strip().splitlines():
            line = line.strip()
            if line.startswith("saguaro::kernels::") or line.startswith("// ") or line == "return;":
                continue
            if not re.fullmatch(rf"(float\*|uint16_t\*|const void\*|const int32_t\*|int32_t|"
                                rf"const saguaro::kernels::Parallel\*) {ident} = "
                                rf"({ident} \+ \d+|weight_of\(state, \d+\)|arena_of\(state\)|kv_of\(state\)|"
                                rf"parallel_of\(state\)|&{ident}|{ident} \? {ident} : 1);", line):
                raise SystemExit(f"FAIL: unexpected statement in generated code: {line}")
    print(f"straight-line: {sum(len(re.findall('saguaro::kernels::', b)) for b in bodies)} kernel calls, "
          "no loops or branches")


def check_readable(model_cpp, layers):
    """Each entry point comments every layer's attention and MLP in order, and names its values."""
    text = open(model_cpp).read()
    bodies = re.findall(r"void saguaro_model_(?:prefill|decode)\([^)]*\) \{(.*?)\n\}", text, re.S)
    for body in bodies:
        comments = re.findall(r"^  // (.*)$", body, re.M)
        expected = ["embedding"] + [f"layer {l}: {b}" for l in range(layers) for b in ("attention", "mlp")] + ["output"]
        if comments != expected:
            raise SystemExit(f"FAIL: the block comments of an entry point are {comments}, expected {expected}")
        for l in range(layers):
            for value in (f"x_l{l}_attn_norm", f"x_l{l}_q", f"kv_l{l}_k", f"kv_l{l}_v", f"x_l{l}_attn_out",
                          f"x_l{l}_mlp_gate", f"x_l{l}_mlp", f"w_layers_{l}_wq"):
                if not re.search(rf"\b{value} = ", body):
                    raise SystemExit(f"FAIL: an entry point declares no value named {value}")
        if re.search(r"\bv\d+\b", body):
            raise SystemExit("FAIL: an entry point still has values named by the emitter (v1, v2, ...)")
    print(f"readable: {layers} layers commented and their values named in both entry points")


def check_memory_plan(manifest_path):
    """No two buffers live at the same call overlap in the arena, and all fit in it."""
    memory = json.load(open(manifest_path))["memory"]
    for fn, plan in memory["plan"].items():
        buffers = [b for b in plan["buffers"] if b["bytes"] > 0]
        for i, a in enumerate(buffers):
            if a["offset"] % 64 or a["offset"] + a["bytes"] > plan["arena_bytes"]:
                raise SystemExit(f"FAIL: {fn}: buffer {a} is misaligned or outside the arena")
            for b in buffers[i + 1:]:
                live_together = a["first_call"] <= b["last_call"] and b["first_call"] <= a["last_call"]
                overlap = a["offset"] < b["offset"] + b["bytes"] and b["offset"] < a["offset"] + a["bytes"]
                if live_together and overlap:
                    raise SystemExit(f"FAIL: {fn}: buffers {a} and {b} are live together and overlap")
        if plan["arena_bytes"] > memory["arena_bytes"]:
            raise SystemExit(f"FAIL: {fn} needs more than the bundle's arena")
    print("memory plan: " + ", ".join(f"{fn} {len(p['buffers'])} buffers in {p['arena_bytes']} bytes"
                                      for fn, p in memory["plan"].items()) + ", no overlaps")


def ccache_stats(env):
    """ccache's counters (--print-stats: one `name<TAB>value` per line)."""
    out = subprocess.run(["ccache", "--print-stats"], env=env, capture_output=True, check=True).stdout.decode()
    return {k: int(v) for k, v in (line.split("\t") for line in out.splitlines() if "\t" in line)}


def check_ccache_reuse(args, first, second):
    """Builds `second` (the same bundle as the already built `first`, in another directory) and checks that ccache
    served every object it compiled; then that -DSAGUARO_CCACHE=OFF configures without the launcher."""
    if not shutil.which("ccache"):
        print("SKIP ccache reuse: ccache is not installed (./dev installs it)")
        return
    env = dict(os.environ)
    before = ccache_stats(env)
    common.run([args.saguaro, "run", second, "-p", "Once", "-n", "2", "-t", "0"], args)
    after = ccache_stats(env)
    hits = sum(after[k] - before.get(k, 0) for k in after if k.endswith("cache_hit"))
    misses = after.get("cache_miss", 0) - before.get("cache_miss", 0)
    if hits == 0 or misses != 0:
        raise SystemExit(f"FAIL: building a second copy of a built bundle: {hits} ccache hits, {misses} misses")
    print(f"ccache: the second bundle's {hits} objects all came from the cache")
    def launcher_after_configure(build, *flags):
        common.run(["cmake", "-S", first, "-B", build, "-G", "Ninja", *flags], args)
        lines = [l for l in open(os.path.join(build, "CMakeCache.txt")) if l.startswith("CMAKE_CXX_COMPILER_LAUNCHER")]
        return lines[0].strip() if lines else ""

    off = launcher_after_configure(os.path.join(args.work_dir, "no_ccache"), "-DSAGUARO_CCACHE=OFF")
    if "ccache" in off:
        raise SystemExit(f"FAIL: -DSAGUARO_CCACHE=OFF still compiles through ccache: {off}")
    # ccache fails every compile when it cannot create its cache directory: the bundle must then compile without it.
    os.environ["CCACHE_DIR"] = "/proc/saguaro-no-such-directory"
    try:
        broken = os.path.join(args.work_dir, "broken_ccache")
        if "ccache" in launcher_after_configure(broken):
            raise SystemExit("FAIL: a bundle configured with an unusable ccache directory compiles through ccache")
    finally:
        os.environ["CCACHE_DIR"] = os.path.join(args.work_dir, "ccache")
    print("ccache: off with -DSAGUARO_CCACHE=OFF, and left out when its cache directory is unusable")


def main():
    args = common.parse_args()
    # A private ccache directory, so that the counters check_ccache_reuse reads are this test's alone.
    os.environ["CCACHE_DIR"] = os.path.join(args.work_dir, "ccache")
    model = common.require_shared(args, "data", "stories260K", "stories260K.bin")
    tok = common.require_shared(args, "data", "stories260K", "tok512.bin")
    a, b = os.path.join(args.work_dir, "a"), os.path.join(args.work_dir, "b")
    for out in (a, b):
        common.run([args.saguaro, "compile", model, "--tokenizer", tok, "-o", out], args)
    check_identical(a, b)
    check_straight_line(os.path.join(a, "model.cpp"))
    check_readable(os.path.join(a, "model.cpp"), json.load(open(os.path.join(a, "manifest.json")))["model"]["layers"])
    check_memory_plan(os.path.join(a, "manifest.json"))

    # Build the bundle (through `saguaro run`), then link the allocation probe against it.
    common.run([args.saguaro, "run", a, "-p", "Once", "-n", "8", "-t", "0"], args)
    check_ccache_reuse(args, a, b)
    e2e, unit = os.path.dirname(__file__), os.path.join(args.source_dir, "test", "unit", "runtime")
    probe = os.path.join(args.work_dir, "alloc_probe")
    subprocess.run(["g++", "-std=c++17", "-O2", "-ffp-contract=off", "-o", probe,
                    os.path.join(e2e, "alloc_probe.cpp"), os.path.join(a, "model.cpp"),
                    os.path.join(unit, "alloc_counter.cpp"), "-I", a, "-I", unit,
                    "-I", os.path.join(a, "saguaro", "runtime-min", "include"),
                    "-I", os.path.join(a, "saguaro", "kernels", "include"),
                    os.path.join(a, "build", "runtime", "libsaguaro_runtime.a")], check=True)
    out = common.run([probe, a, "Once upon a time", "200"], args, check=False)
    print(out.stdout.decode().strip())
    if out.returncode != 0:
        raise SystemExit("FAIL: allocations during prefill/decode after init\n" + out.stderr.decode())


if __name__ == "__main__":
    main()
