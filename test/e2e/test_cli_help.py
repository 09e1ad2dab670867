"""The driver's help and option errors, generated from its command table (compiler/driver/main.cpp):
- `saguaro --help`, `saguaro help` and `saguaro` alone list exactly the commands below, each with a summary;
- `saguaro CMD --help` (and `saguaro help CMD`) exits 0 with CMD's usage line and its options on stdout;
- an unknown option and an option without its value are one line on stderr naming the option, exit 1;
- an unknown command, or a command group without its command, exits 2."""
import common

# Every command and some options its documentation names (docs/user-guide.md, probe.md, handoff.md, audio.md,
# image.md). The test's own list: a command added to the table without being added here fails.
COMMANDS = {
    "compile": ["-o", "--target", "--tokenizer", "--bits", "--kv-cache", "--hidden-tap", "--handoff",
                "--embed-weights", "--threads"],
    "run": ["-p", "-n", "-t", "--seed", "--top-k", "--threads", "--target", "--max-seq", "--image", "--audio"],
    "logits": ["--token-ids", "-o", "--soft-tokens", "--threads", "--target"],
    "encode": ["--image", "--pixels", "--audio", "--features", "--max-soft-tokens", "-o", "--threads", "--target"],
    "tokenize": ["--decode", "--no-special"],
    "render": ["--messages", "--tools", "--no-generation-prompt"],
    "eval": ["--text", "--bits", "--method", "--calibration", "--tasks", "--score-after", "--json"],
    "calibrate": ["--text", "--token-ids", "-o", "--tokenizer"],
    "inspect": ["--tensor", "-o"],
    "bench": ["--bits", "--threads", "--target", "--kv-cache", "--json"],
    "bench tokenizer": ["--text", "--json"],
    "bench audio": ["--runs", "--json"],
    "synth": ["-o", "--seed"],
    "features audio": ["--mel", "--config", "--pad-30s", "--pcm-only", "--mask", "-o"],
    "features image": ["--decode-only", "--resized-only", "--config", "--max-soft-tokens", "--positions", "--pixels",
                       "-o"],
    "complete": ["--messages", "--options", "--tools", "--task", "--response-format"],
    "chat": ["--options", "--system", "--threads"],
    "serve": ["--port", "--host", "--model-id", "--api-key-file", "--queue", "--request-timeout", "--options"],
    "auth": ["--key-file"],
    "probe collect": ["--tasks", "-o", "--max-new", "--hidden-tap"],
    "probe train": ["-o", "--seed", "--epochs", "--verbose"],
    "probe eval": ["--json", "--cloud-accuracy", "--scores"],
    "probe calibrate": ["--handoff-rate", "--json"],
}


SWITCHES = {"--decode", "--no-special", "--json", "--pad-30s", "--pcm-only", "--decode-only", "--resized-only",
            "--handoff", "--verbose", "--embed-weights"}


def fail(message):
    raise SystemExit(f"FAIL: {message}")


def saguaro(args, *words):
    proc = common.run([args.saguaro, *words], args, check=False)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def listed_commands(text):
    """The command names of the overview's `commands:` section (a name is the words before two spaces)."""
    section = text.split("\ncommands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.strip().split("  ", 1)[0] for line in section.splitlines() if line.startswith("  ")]


def check_overview(args):
    for words, want_code in ((["--help"], 0), (["help"], 0), ([], 2)):
        code, out, _ = saguaro(args, *words)
        if code != want_code or "\ncommands:\n" not in out:
            fail(f"saguaro {' '.join(words)}: exit {code} (expected {want_code}), stdout {out!r}")
        listed = listed_commands(out)
        if sorted(listed) != sorted(COMMANDS):
            fail(f"saguaro {' '.join(words)} lists {listed}, expected {sorted(COMMANDS)}")
        for line in out.split("\ncommands:\n", 1)[1].splitlines():
            if line.startswith("  ") and len(line.split()) < 3:
                fail(f"a command without a summary: {line!r}")
    print(f"ok: saguaro --help, help and no arguments list the {len(COMMANDS)} commands with their summaries")


def check_command_help(args, name, options):
    words = name.split()
    code, out, err = saguaro(args, *words, "--help")
    if code != 0 or err or not out.startswith(f"usage: saguaro {name} "):
        fail(f"saguaro {name} --help: exit {code}, stderr {err!r}, stdout {out[:200]!r}")
    named = {line.split()[0] for line in out.split("\noptions:\n", 1)[-1].splitlines() if line.startswith("  -")}
    missing = [o for o in options + ["--help"] if o not in named]
    if missing:
        fail(f"saguaro {name} --help does not list {missing}:\n{out}")
    if saguaro(args, "help", *words) != (0, out, ""):
        fail(f"saguaro help {name} differs from saguaro {name} --help")


def check_refusals(args, name, options):
    words = name.split()
    valued = next((o for o in options if o not in SWITCHES), None)
    cases = [([*words, "--no-such-option"], "--no-such-option")]
    if valued:
        cases.append(([*words, "x", valued], valued))
    for argv, named in cases:
        code, out, err = saguaro(args, *argv)
        lines = err.strip().splitlines()
        if code != 1 or out or len(lines) != 1 or named not in lines[0]:
            fail(f"saguaro {' '.join(argv)}: exit {code}, stdout {out!r}, stderr {lines}; expected one line naming "
                 f"{named}")


def main():
    args = common.parse_args()
    check_overview(args)
    for name, options in COMMANDS.items():
        check_command_help(args, name, options)
        check_refusals(args, name, options)
    print("ok: every saguaro CMD --help prints its usage and options; unknown options and missing values are one line")

    code, out, err = saguaro(args, "compile", "model.bin", "--help")
    if code != 0 or not out.startswith("usage: saguaro compile "):
        fail(f"--help after an argument: exit {code}, {out[:100]!r} {err!r}")
    code, out, _ = saguaro(args, "probe", "--help")
    if code != 0 or sorted(listed_commands(out)) != sorted(c for c in COMMANDS if c.startswith("probe ")):
        fail(f"saguaro probe --help: exit {code}, {out!r}")
    for argv in (["frobnicate"], ["probe"], ["features"], ["help", "frobnicate"]):
        code, _, err = saguaro(args, *argv)
        if code != 2 or not err:
            fail(f"saguaro {' '.join(argv)}: exit {code} (expected 2 and the usage on stderr), stderr {err!r}")
    print("ok: --help after arguments, saguaro probe --help, and exit 2 for unknown commands and bare groups")


if __name__ == "__main__":
    main()
