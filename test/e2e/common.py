"""Shared helpers for Saguaro's end-to-end tests: paths, running the CLI, skipping."""
import argparse
import os
import shutil
import subprocess
import sys

SKIP = 77  # ctest's SKIP_RETURN_CODE for these tests


def parse_args(extra=None):
    """Parses the arguments every e2e test gets from CMake."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--saguaro", required=True, help="path of build/bin/saguaro")
    ap.add_argument("--source-dir", required=True, help="the Saguaro checkout")
    ap.add_argument("--shared-dir", required=True, help="the ../shared test material")
    ap.add_argument("--work-dir", required=True, help="scratch directory of this test")
    for name, kwargs in (extra or {}).items():
        ap.add_argument(name, **kwargs)
    args = ap.parse_args()
    shutil.rmtree(args.work_dir, ignore_errors=True)
    os.makedirs(args.work_dir)
    return args


def require_shared(args, *relative):
    """Returns the path of a file in ../shared, or exits with SKIP and a clear message."""
    path = os.path.join(args.shared_dir, *relative)
    if not os.path.exists(path):
        print(f"SKIP: {path} is absent (this test needs the ../shared material beside the checkout)")
        sys.exit(SKIP)
    return path


def reference_script(args, name):
    """Path of an independent oracle in test/reference/."""
    return os.path.join(args.source_dir, "test", "reference", name)


def run(cmd, args, check=True, **kwargs):
    """Runs a command with the test's private bundle cache; returns the CompletedProcess."""
    env = dict(os.environ, SAGUARO_CACHE_DIR=os.path.join(args.work_dir, "cache"))
    proc = subprocess.run([str(c) for c in cmd], env=env, capture_output=True, **kwargs)
    if check and proc.returncode != 0:
        sys.stderr.write(proc.stderr.decode(errors="replace"))
        raise SystemExit(f"FAIL: {' '.join(map(str, cmd))} exited with {proc.returncode}")
    return proc


def python():
    """Debian's python3, which has numpy (the pyenv one on PATH may not)."""
    return "/usr/bin/python3"
