"""The Python package (bindings/python) in a fresh virtual environment, installed offline from the checkout:
- docs/python.md's example (init, complete with confidence_threshold / auto_handoff, reading cloud_handoff and
  confidence, streaming through on_token) runs against the default model, and what it streams is the answer;
- the package's own tests (bindings/python/tests: bad input, the context manager, threads) pass against the same
  bundle;
- init on a bundle whose library is not built yet builds it (BUNDLE/build/libsaguaro.so)."""
import os
import re
import shutil
import subprocess

import common


def doc_example(args):
    """The first ```python block of docs/python.md."""
    text = open(os.path.join(args.source_dir, "docs", "python.md")).read()
    match = re.search(r"```python\n(.*?)```", text, re.S)
    if not match:
        raise SystemExit("FAIL: docs/python.md has no ```python block")
    return match.group(1)


def run_in_venv(python, cmd, args, env=None):
    """Runs the environment's python from the work directory (not the checkout, so the installed package is what
    imports); returns stdout."""
    proc = subprocess.run([python, *cmd], cwd=args.work_dir, capture_output=True, env=dict(os.environ, **(env or {})))
    if proc.returncode != 0:
        print(proc.stdout.decode(errors="replace"))
        print(proc.stderr.decode(errors="replace"))
        raise SystemExit(f"FAIL: {' '.join(cmd)} exited with {proc.returncode}")
    return proc.stdout.decode()


def main():
    args = common.parse_args()
    python = common.python_package(args)
    bundle = os.path.join(args.work_dir, "bundle")
    common.run([args.saguaro, "compile", os.path.join(args.source_dir, "examples", "models", "default"), "-o",
                bundle], args)

    example = os.path.join(args.work_dir, "example.py")
    open(example, "w").write(doc_example(args))
    out = run_in_venv(python, [example, bundle], args)  # init builds the library: nothing is built yet
    if not os.path.exists(os.path.join(bundle, "build", "libsaguaro.so")):
        raise SystemExit("FAIL: init did not build BUNDLE/build/libsaguaro.so")
    streamed, _, verdict = out.rstrip("\n").rpartition("\n")
    match = re.fullmatch(r"answered on the device \(confidence (0\.\d\d|1\.00)\): (.*)", verdict, re.S)
    if not match or match.group(2) != streamed or not streamed.strip():
        raise SystemExit(f"FAIL: the example printed {out!r}")
    print(f"ok: the docs/python.md example streamed {streamed!r}, confidence {match.group(1)}")

    tests = os.path.join(args.work_dir, "tests")
    shutil.copytree(os.path.join(args.source_dir, "bindings", "python", "tests"), tests)
    out = subprocess.run([python, "-m", "unittest", "discover", "-s", tests, "-v"], cwd=args.work_dir,
                         env=dict(os.environ, SAGUARO_TEST_BUNDLE=bundle), capture_output=True)
    print(out.stderr.decode(errors="replace"))
    if out.returncode != 0:
        raise SystemExit("FAIL: the Python package's tests")


if __name__ == "__main__":
    main()
