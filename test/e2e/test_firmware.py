"""The firmware build (`saguaro compile --embed-weights --threads 0`, docs/firmware.md) on the default model:
- the bundle holds libsaguaro_model.a, whose weights.S object carries weights.sgw byte for byte in a read-only,
  64-byte-aligned section, with no thread pool and no pthread symbol in it;
- compiling it twice gives the same bytes, the library included;
- manifest.json's "firmware" sizes equal readelf's sections of the size probe built again from the bundle, and the
  plan's arena and KV cache;
- examples/firmware builds against the bundle; with the bundle deleted it answers exactly what the normal bundle's
  `saguaro complete` answers for the same prompt and seed, and under strace it opens no weights, tokenizer or
  bundle file (only the dynamic libraries it links and /proc/self/status for ram_usage_mb);
- a model with vision and audio towers builds its library too, the image and audio front-ends in it;
- what --embed-weights cannot take is one line and exit 1, with nothing written: a model without a tokenizer,
  --handoff, a target of another architecture without CMAKE_TOOLCHAIN_FILE; compile --threads other than 0 too.
With --aarch64 (e2e_firmware_aarch64): compile builds an aarch64-neon library with cmake/aarch64-linux-gnu.cmake, and
the example linked with it answers under qemu as the x86 bundle does."""
import json
import os
import re
import shutil
import subprocess

import common

PROMPT = "What is 17 + 25?"
SEED = 7
# The example's fixed options (examples/firmware/main.c), given to `saguaro complete` as they are.
OPTIONS = {"max_tokens": 32, "temperature": 0.8, "seed": SEED}


def tool(cmd, **kwargs):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kwargs).stdout


def member(archive, name, out_dir):
    """Extracts one object of a static library."""
    os.makedirs(out_dir, exist_ok=True)
    tool(["ar", "x", os.path.abspath(archive), name], cwd=out_dir)
    return os.path.join(out_dir, name)


def sections(path):
    """readelf's section table: name -> (type, size, flags, alignment)."""
    table = {}
    for line in tool(["readelf", "-SW", path]).splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+(\S*)\s+\d+\s+\d+\s+(\d+)$",
                     line)
        if m:
            table[m.group(1)] = (m.group(2), int(m.group(3), 16), m.group(4), int(m.group(5)))
    return table


def thread_symbols(archive):
    """nm's lines of an archive that name pthreads, std::thread or std::condition_variable."""
    return [line for line in tool(["nm", "-A", archive]).splitlines()
            if re.search(r"pthread|St6thread|condition_variable", line)]


def check_library(args, fw, work):
    lib = os.path.join(fw, "libsaguaro_model.a")
    members = tool(["ar", "t", lib]).split()
    for needed in ("weights.S.o", "model.cpp.o", "capi.cpp.o", "saguaro_model_embedded.c.o"):
        if needed not in members:
            raise SystemExit(f"FAIL: {lib} lacks {needed}: {members}")
    if any("thread_pool" in m for m in members):
        raise SystemExit(f"FAIL: --threads 0 still links the thread pool: {members}")
    obj = member(lib, "weights.S.o", os.path.join(work, "objects"))
    kind, size, flags, align = sections(obj)[".rodata.saguaro_weights"]
    blob = open(os.path.join(fw, "weights.sgw"), "rb").read()
    if (kind, size, flags, align) != ("PROGBITS", len(blob), "A", 64):
        raise SystemExit(f"FAIL: weights section {kind} {size} bytes flags {flags} align {align}, "
                         f"want PROGBITS {len(blob)} A 64")
    raw = os.path.join(work, "weights.bin")
    tool(["objcopy", "-O", "binary", "--only-section=.rodata.saguaro_weights", obj, raw])
    if open(raw, "rb").read() != blob:
        raise SystemExit("FAIL: the linked-in section differs from weights.sgw")
    threads = thread_symbols(lib)
    if threads:
        raise SystemExit(f"FAIL: the library refers to threads: {threads[:5]}")
    # The same search finds the thread pool's symbols in the project's own runtime, which has one.
    pooled = os.path.join(os.path.dirname(os.path.dirname(args.saguaro)), "lib", "libsaguaro_runtime.a")
    if not thread_symbols(pooled):
        raise SystemExit(f"FAIL: no thread symbol found in {pooled} either: the search is blind")
    print(f"ok: libsaguaro_model.a ({len(members)} objects): weights.sgw ({len(blob)} bytes) in a read-only section "
          "aligned to 64, no thread pool, no pthread symbol")


def check_sizes(args, fw, work):
    manifest = json.load(open(os.path.join(fw, "manifest.json")))
    firmware, memory = manifest["firmware"], manifest["memory"]
    # The size probe built again from the bundle's own CMake project: its sections, summed by readelf's flags.
    build = os.path.join(work, "probe-build")
    common.run(["cmake", "-S", fw, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"], args)
    common.run(["cmake", "--build", build, "--target", "saguaro_model_size_probe"], args)
    sums = {"code": 0, "rodata": 0, "data": 0, "bss": 0}
    for kind, size, flags, _ in sections(os.path.join(build, "saguaro_model_size_probe")).values():
        if "A" not in flags:
            continue
        key = "code" if "X" in flags else "rodata" if "W" not in flags else "bss" if kind == "NOBITS" else "data"
        sums[key] += size
    want = {f"{k}_bytes": v for k, v in sums.items()}
    want.update(weights_bytes=memory["weights_blob_bytes"], arena_bytes=memory["arena_bytes"],
                kv_cache_bytes=memory["kv_cache_bytes"],
                ram_bytes=sums["data"] + sums["bss"] + memory["arena_bytes"] + memory["kv_cache_bytes"],
                library_bytes=os.path.getsize(os.path.join(fw, "libsaguaro_model.a")), thread_pool=False)
    got = {k: firmware.get(k) for k in want}
    if got != want:
        raise SystemExit(f"FAIL: manifest firmware sizes {got}, readelf and the plan say {want}")
    if not firmware["rodata_bytes"] > firmware["weights_bytes"] > 0 or firmware["code_bytes"] <= 0:
        raise SystemExit(f"FAIL: implausible split {firmware}")
    print(f"ok: manifest firmware sizes match readelf: code {firmware['code_bytes']}, read-only data "
          f"{firmware['rodata_bytes']} (weights {firmware['weights_bytes']}), RAM {firmware['ram_bytes']} "
          f"(data {firmware['data_bytes']} + bss {firmware['bss_bytes']} + arena {firmware['arena_bytes']} + KV "
          f"{firmware['kv_cache_bytes']})")


def opened_paths(trace):
    """The paths of the open/openat calls of an strace -f log."""
    return re.findall(r'open(?:at)?\((?:AT_FDCWD|\d+), "([^"]*)"', open(trace).read())


def example_answer(args, fw, run_prefix, cmake_extra=()):
    """Builds examples/firmware against the bundle `fw`, deletes the bundle and runs the example (after
    `run_prefix`) on PROMPT and SEED; returns its answer, which its response JSON must repeat."""
    build = os.path.join(args.work_dir, "example-build-" + os.path.basename(fw))
    common.run(["cmake", "-S", os.path.join(args.source_dir, "examples", "firmware"), "-B", build, "-G", "Ninja",
                f"-DSAGUARO_MODEL_DIR={fw}", *cmake_extra], args)
    common.run(["cmake", "--build", build], args)
    shutil.rmtree(fw)  # the program must not need the bundle any more
    proc = common.run([*run_prefix, os.path.join(build, "firmware_example"), PROMPT, str(SEED)], args)
    answer = proc.stdout.decode()
    if not answer.endswith("\n"):
        raise SystemExit(f"FAIL: the example's output {answer!r} does not end its line")
    answer = answer[:-1]
    stats = json.loads(proc.stderr.decode().strip().splitlines()[-1])
    if not stats["success"] or stats["response"] != answer:
        raise SystemExit(f"FAIL: streamed {answer!r}, response {stats}")
    return answer


def bundle_answer(args, model):
    """`saguaro complete` of a normal bundle of `model` for generic (the firmware bundle's target), with the
    example's messages and options."""
    plain = os.path.join(args.work_dir, "plain")
    common.run([args.saguaro, "compile", model, "-o", plain], args)
    proc = common.run([args.saguaro, "complete", plain, "--messages",
                       json.dumps([{"role": "user", "content": PROMPT}]), "--options", json.dumps(OPTIONS)], args)
    return json.loads(proc.stdout)["response"]


def main():
    args = common.parse_args({"--aarch64": {"action": "store_true",
                                            "help": "cross-compile for aarch64-neon and run the example under qemu"}})
    if args.aarch64:
        return main_aarch64(args)
    w = args.work_dir
    model = os.path.join(args.source_dir, "examples", "models", "default")
    fw = os.path.join(w, "fw")
    common.run([args.saguaro, "compile", model, "-o", fw, "--embed-weights", "--threads", "0"], args)
    check_library(args, fw, w)
    check_sizes(args, fw, w)
    again = os.path.join(w, "fw-again")
    common.run([args.saguaro, "compile", model, "-o", again, "--embed-weights", "--threads", "0"], args)
    differ = subprocess.run(["diff", "-r", "-q", fw, again], capture_output=True, text=True).stdout
    if differ:
        raise SystemExit(f"FAIL: the same compile twice gave different bundles: {differ}")
    print("ok: the same inputs give the same bundle, libsaguaro_model.a and manifest included")

    trace = os.path.join(w, "strace.txt")
    answer = example_answer(args, fw, ["strace", "-f", "-e", "trace=open,openat", "-o", trace])
    paths = opened_paths(trace)
    library = re.compile(r"^(/etc/ld\.so\.cache|/(usr/)?lib\d*/.*\.so[.\d]*|/proc/self/status)$")
    stray = [p for p in paths if not library.match(p)]
    if not paths or stray:
        raise SystemExit(f"FAIL: the example opened {stray} (all: {paths})")
    print(f"ok: with the bundle deleted the example answered {answer!r}, opening only {len(paths)} library/proc "
          "files")

    expected = bundle_answer(args, model)
    if answer != expected:
        raise SystemExit(f"FAIL: the firmware example answered {answer!r}, the bundle {expected!r}")
    print(f"ok: the same answer as the normal bundle's saguaro complete (seed {SEED})")

    check_media_library(args)
    check_refusals(args, model)


def check_media_library(args):
    """A model with vision and audio towers: its library holds the image and audio front-ends (libraries of their own
    in the bundle), so the size probe, which calls saguaro_complete, links and the readers are defined in it."""
    model = common.random_gemma4(args, os.path.join(args.work_dir, "media"), "plain", "--conditional", "--audio",
                                 "--vision", "clipped")
    fixture = os.path.join(args.source_dir, "test", "fixtures", "chat_templates", "gemma4")
    for name in ("tokenizer.json", "tokenizer_config.json", "generation_config.json", "chat_template.jinja"):
        shutil.copy(os.path.join(fixture, name), model)  # the library links its tokenizer in
    fw = os.path.join(args.work_dir, "fw-media")
    common.run([args.saguaro, "compile", model, "-o", fw, "--embed-weights", "--threads", "0", "--target", "generic",
                "--max-seq", "64"], args)
    defined = tool(["nm", "-C", "--defined-only", os.path.join(fw, "libsaguaro_model.a")])
    for symbol in ("saguaro::image::decode_image_memory", "saguaro::audio::LogMelStream::push"):
        if symbol not in defined:
            raise SystemExit(f"FAIL: the library of a model with vision and audio towers does not define {symbol}")
    print("ok: a model with vision and audio towers builds its library, the image and audio front-ends in it")


def main_aarch64(args):
    """The firmware library of an aarch64-neon bundle, built by compile with the aarch64 toolchain file: its sizes
    are an AArch64 ELF's, and the example it links answers under qemu (ARMv8.0 core) as the x86 bundle does."""
    for tool_name in ("aarch64-linux-gnu-g++", "qemu-aarch64"):
        if not shutil.which(tool_name):
            print(f"SKIP: {tool_name} is not installed (./dev test installs it)")
            raise SystemExit(common.SKIP)
    model = os.path.join(args.source_dir, "examples", "models", "default")
    toolchain = os.path.join(args.source_dir, "cmake", "aarch64-linux-gnu.cmake")
    fw = os.path.join(args.work_dir, "fw-aarch64")
    os.environ["CMAKE_TOOLCHAIN_FILE"] = toolchain
    common.run([args.saguaro, "compile", model, "-o", fw, "--embed-weights", "--threads", "0", "--target",
                "aarch64-neon"], args)
    del os.environ["CMAKE_TOOLCHAIN_FILE"]
    firmware = json.load(open(os.path.join(fw, "manifest.json")))["firmware"]
    if not (firmware["code_bytes"] > 0 and firmware["rodata_bytes"] > firmware["weights_bytes"] > 0 and
            firmware["ram_bytes"] == firmware["data_bytes"] + firmware["bss_bytes"] + firmware["arena_bytes"] +
            firmware["kv_cache_bytes"]):
        raise SystemExit(f"FAIL: aarch64 firmware sizes {firmware}")
    obj = member(os.path.join(fw, "libsaguaro_model.a"), "weights.S.o", os.path.join(args.work_dir, "objects"))
    if "AArch64" not in tool(["readelf", "-h", obj]) or sections(obj)[".rodata.saguaro_weights"][3] != 64:
        raise SystemExit("FAIL: weights.S.o is not an AArch64 object with a 64-byte-aligned weights section")
    answer = example_answer(args, fw, ["qemu-aarch64", "-cpu", "cortex-a72", "-L", "/usr/aarch64-linux-gnu"],
                            [f"-DCMAKE_TOOLCHAIN_FILE={toolchain}"])
    expected = bundle_answer(args, model)
    if answer != expected:
        raise SystemExit(f"FAIL: the aarch64 firmware example answered {answer!r}, the x86 bundle {expected!r}")
    print(f"ok: aarch64-neon library (code {firmware['code_bytes']}, read-only data {firmware['rodata_bytes']}, "
          f"RAM {firmware['ram_bytes']}); with the bundle deleted the example answered {answer!r} under qemu, as the "
          "x86 bundle does")


def check_refusals(args, model):
    """What --embed-weights cannot take: one line naming the problem, exit 1, nothing written."""
    w = args.work_dir
    bare = os.path.join(w, "no-tokenizer")  # the default model's weights without its tokenizer files
    os.makedirs(bare)
    for name in ("config.json", "model.safetensors"):
        shutil.copy(os.path.join(model, name), bare)
    os.environ.pop("CMAKE_TOOLCHAIN_FILE", None)  # the cross-target case is about its absence
    cases = [
        ([bare, "--embed-weights"], "needs a tokenizer"),
        ([model, "--embed-weights", "--handoff"], "cannot link in the cloud handoff"),
        ([model, "--embed-weights", "--target", "aarch64-neon"], "CMAKE_TOOLCHAIN_FILE"),
        ([model, "--embed-weights", "--threads", "2"], "--threads takes only 0"),
    ]
    for extra, said in cases:
        out = os.path.join(w, "refused")
        proc = common.run([args.saguaro, "compile", *extra, "-o", out], args, check=False)
        err = proc.stderr.decode().strip()
        if proc.returncode != 1 or said not in err or len(err.splitlines()) != 1 or not err.startswith("saguaro: "):
            raise SystemExit(f"FAIL: compile {' '.join(extra[1:])}: exit {proc.returncode}, {err!r}")
        left = [p for p in os.listdir(w) if p.startswith("refused")]
        if left:
            raise SystemExit(f"FAIL: a refused compile left {left}")
        print(f"ok: {err}")


if __name__ == "__main__":
    main()
