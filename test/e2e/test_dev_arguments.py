"""`dev`'s argument errors: a number of seconds or executions that is not a whole number, and an unknown command,
exit 2 with one line on stderr naming the argument (and nothing on stdout), before anything is installed or
built."""
import os

import common

CASES = [
    (["fuzz", "1e3"], "dev: fuzz SECONDS must be a whole number, got '1e3'"),
    (["fuzz-report", "5x"], "dev: fuzz-report SECONDS must be a whole number, got '5x'"),
    (["fuzz-report", "60", "--until", "ten"], "dev: fuzz-report --until EXECUTIONS must be a whole number, got 'ten'"),
    (["fuzz-report", "--until"], "dev: fuzz-report --until EXECUTIONS must be a whole number, got ''"),
    (["nosuch"], "usage: ./dev run"),
]


def main():
    args = common.parse_args()
    dev = os.path.join(args.source_dir, "dev")
    for argv, expect in CASES:
        proc = common.run([dev] + argv, args, check=False, timeout=60)
        lines = proc.stderr.decode().strip().splitlines()
        print(f"./dev {' '.join(argv)}: exit {proc.returncode}: {lines[-1] if lines else '(nothing said)'}")
        if proc.returncode != 2 or len(lines) != 1 or not lines[0].startswith(expect) or proc.stdout:
            raise SystemExit(f"FAIL: ./dev {' '.join(argv)} should exit 2 with one line starting {expect!r}")
    print("dev argument errors: ok")


if __name__ == "__main__":
    main()
