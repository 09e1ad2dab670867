"""The Python package (bindings/python) in a fresh virtual environment, installed offline from the checkout:
- docs/python.md's example (init, complete with confidence_threshold / auto_handoff, reading cloud_handoff and
  confidence, streaming through on_token) runs against the default model, and what it streams is the answer;
- the package's own tests (bindings/python/tests: bad input, the context manager, threads) pass against the same
  bundle;
- init on a bundle whose library is not built yet builds it (BUNDLE/build/libsaguaro.so)."""
import os
import shutil
import subprocess

import common


def main():
    args = common.parse_args()
    python = common.python_package(args)
    bundle = common.binding_example(args, "python.md", "python", python, args.work_dir)

    tests = os.path.join(args.work_dir, "tests")
    shutil.copytree(os.path.join(args.source_dir, "bindings", "python", "tests"), tests)
    out = subprocess.run([python, "-m", "unittest", "discover", "-s", tests, "-v"], cwd=args.work_dir,
                         env=dict(os.environ, SAGUARO_TEST_BUNDLE=bundle), capture_output=True)
    print(out.stderr.decode(errors="replace"))
    if out.returncode != 0:
        raise SystemExit("FAIL: the Python package's tests")


if __name__ == "__main__":
    main()
