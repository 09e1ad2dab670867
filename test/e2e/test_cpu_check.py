"""Issue 5: `--target native` picks the widest target this CPU runs (the default of the commands that compile into
the cache and run at once; `compile` defaults to generic), and a bundle refuses a CPU that lacks its
target's extensions with one line instead of dying with SIGILL.

The expected native target comes from /proc/cpuinfo's flags (not from the code under test). The CPUs that lack
extensions are qemu-x86_64's: `-cpu qemu64` (baseline x86-64, no AVX2) and `-cpu Haswell` (AVX2, FMA, F16C, no
AVX-512). Under them the x86-avx2 and x86-avx512vnni programs — generating (`-p`) and through the C API
(`--complete`) — must exit 1 with one line naming the weights file, the target and exactly the missing
extensions, and print nothing on stdout; the generic program must run there and
print what it prints on the host."""
import json
import os
import shutil

import common

PROMPT = ["-p", "Q: What is 3 + 5?\nA:", "-n", "12", "-t", "0"]
X86_AVX2 = ["avx2", "fma", "f16c"]
X86_AVX512VNNI = X86_AVX2 + ["avx512f", "avx512vl", "avx512bw", "avx512_vnni"]
# What manifest.json's cpu_extensions and the refusal name, per target (GCC's spelling: avx512vnni).
NEEDS = {"generic": [], "x86-avx2": ["avx2", "fma", "f16c"],
         "x86-avx512vnni": ["avx2", "fma", "f16c", "avx512f", "avx512vl", "avx512bw", "avx512vnni"]}


def expected_native(flags):
    if set(X86_AVX512VNNI) <= flags:
        return "x86-avx512vnni"
    if set(X86_AVX2) <= flags:
        return "x86-avx2"
    return "generic"


def build(args, bundle):
    out = os.path.join(bundle, "build")
    common.run(["cmake", "-S", bundle, "-B", out, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"], args)
    common.run(["cmake", "--build", out], args)
    return os.path.join(out, "saguaro_bundle")


def refused(args, cpu, exe, bundle, target, missing):
    """Both ways in refuse: the program's generation (Engine) and its C API (saguaro_init, --complete)."""
    messages = os.path.join(args.work_dir, "messages.json")
    json.dump([{"role": "user", "content": "What is 3 + 5?"}], open(messages, "w"))
    for mode in (PROMPT, ["--complete", messages]):
        proc = common.run(["qemu-x86_64", "-cpu", cpu, exe, bundle, *mode], args, check=False)
        said = [l for l in proc.stderr.decode().splitlines() if not l.startswith("qemu-x86_64: warning")]
        want = common.cpu_refusal(bundle, target, " ".join(missing))
        if proc.returncode != 1 or said != [want] or proc.stdout:
            raise SystemExit(f"FAIL: {target} {mode[0]} under qemu -cpu {cpu}: exit {proc.returncode}, stderr "
                             f"{said}, stdout {proc.stdout[:80]!r}; wanted exit 1 and only: {want}")
    print(f"{target} under qemu -cpu {cpu}: refused in one line (lacks {' '.join(missing)}), -p and --complete")


def defaults(args, model, native, host):
    """Without --target, `compile` writes portable generic code and `run` (which compiles into the cache and runs
    here at once) compiles for this machine's widest target, naming it; --target generic still gives generic."""
    bundle = os.path.join(args.work_dir, "default")
    common.run([args.saguaro, "compile", model, "-o", bundle], args)
    recorded = json.load(open(os.path.join(bundle, "manifest.json")))["target"]
    if recorded != "generic":
        raise SystemExit(f"FAIL: compile without --target wrote a {recorded} bundle, wanted generic")
    for flags, want in (([], native), (["--target", "generic"], "generic")):
        proc = common.run([args.saguaro, "run", model, *flags, *PROMPT], args)
        said = [l for l in proc.stderr.decode().splitlines() if l.startswith(f"saguaro: compiling {model} for ")]
        if len(said) != 1 or not said[0].startswith(f"saguaro: compiling {model} for {want} -> "):
            raise SystemExit(f"FAIL: run {' '.join(flags)}: wanted one line 'compiling {model} for {want} -> DIR', "
                             f"stderr: {proc.stderr.decode()}")
        cached = said[0].split(" -> ", 1)[1]
        recorded = json.load(open(os.path.join(cached, "manifest.json")))["target"]
        if recorded != want or proc.stdout != host:
            raise SystemExit(f"FAIL: run {' '.join(flags)}: cached bundle for {recorded} (wanted {want}), printed "
                             f"{proc.stdout!r} (the generic program: {host!r})")
        print(f"run {' '.join(flags) or 'without --target'}: compiled for {want}, the generic program's text")
    print("compile without --target: generic")


def main():
    args = common.parse_args()
    if not os.path.exists("/proc/cpuinfo") or os.uname().machine != "x86_64":
        print("SKIP: this test reads an x86-64 /proc/cpuinfo")
        raise SystemExit(common.SKIP)
    model = os.path.join(args.source_dir, "examples", "models", "default")
    native = expected_native(common.cpu_flags())

    bundles = {}
    for target in ("native", "generic", "x86-avx2", "x86-avx512vnni"):
        bundle = os.path.join(args.work_dir, target)
        proc = common.run([args.saguaro, "compile", model, "-o", bundle, "--target", target], args)
        manifest = json.load(open(os.path.join(bundle, "manifest.json")))
        recorded = manifest["target"]
        if manifest["cpu_extensions"] != NEEDS[recorded]:
            raise SystemExit(f"FAIL: {target}: manifest cpu_extensions {manifest['cpu_extensions']}, wanted "
                             f"{NEEDS[recorded]}")
        if target == "native":
            line = f"saguaro: --target native is {native} on this machine"
            if recorded != native or line not in proc.stderr.decode().splitlines():
                raise SystemExit(f"FAIL: --target native compiled for {recorded!r} (wanted {native!r}, said "
                                 f"{line!r}): {proc.stderr.decode()}")
            print(f"--target native: {native}, as /proc/cpuinfo's flags say")
        elif recorded != target:
            raise SystemExit(f"FAIL: --target {target}: the manifest records {recorded!r}")
        bundles[target] = (bundle, build(args, bundle))

    bundle, exe = bundles["generic"]
    host = common.run([exe, bundle, *PROMPT], args).stdout
    bundle, exe = bundles["native"]
    if common.run([exe, bundle, *PROMPT], args).stdout != host:
        raise SystemExit("FAIL: the native program printed other text than the generic one")
    defaults(args, model, native, host)

    if not shutil.which("qemu-x86_64"):
        print("SKIP: qemu-x86_64 (Debian's qemu-user) is not installed: the refusal is not checked")
        raise SystemExit(common.SKIP)
    bundle, exe = bundles["generic"]
    under = common.run(["qemu-x86_64", "-cpu", "qemu64", exe, bundle, *PROMPT], args).stdout
    if under != host:
        raise SystemExit(f"FAIL: the generic program printed {under!r} under qemu -cpu qemu64, {host!r} here")
    print("generic under qemu -cpu qemu64: runs, the host's text")
    for target in ("x86-avx2", "x86-avx512vnni"):  # qemu64 has none of either target's extensions
        refused(args, "qemu64", bundles[target][1], bundles[target][0], target, NEEDS[target])
    # Haswell has x86-avx2's; what the x86-avx512vnni program must name is the AVX-512 rest, in order.
    refused(args, "Haswell", bundles["x86-avx512vnni"][1], bundles["x86-avx512vnni"][0], "x86-avx512vnni",
            ["avx512f", "avx512vl", "avx512bw", "avx512vnni"])


if __name__ == "__main__":
    main()
