"""The Node package (bindings/node) installed from the checkout with npm into a fresh project:
- docs/node.md's example (init, complete with confidence_threshold / auto_handoff, reading cloud_handoff and
  confidence, streaming through the token callback) runs against the default model, and what it streams is the
  answer; init builds the bundle's library (BUNDLE/build/libsaguaro.so), which nothing built before;
- the package's own tests (bindings/node/test, under `node --test`: bad input, the event loop during a generation,
  concurrency) pass against the same bundle."""
import os
import shutil
import subprocess

import common


def main():
    args = common.parse_args()
    app = common.node_package(args)
    bundle = common.binding_example(args, "node.md", "js", "node", app)

    tests = os.path.join(app, "test")
    shutil.copytree(os.path.join(args.source_dir, "bindings", "node", "test"), tests)
    proc = subprocess.run(["node", "--test", "--test-reporter=spec", tests], cwd=app,
                          env=dict(os.environ, SAGUARO_TEST_BUNDLE=bundle), capture_output=True)
    print(proc.stdout.decode(errors="replace") + proc.stderr.decode(errors="replace"))
    if proc.returncode != 0:
        raise SystemExit("FAIL: the Node package's tests")


if __name__ == "__main__":
    main()
