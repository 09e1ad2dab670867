"""Puts examples/tasks and examples/train on sys.path for the task-suite tests; the repo root as REPO."""
import os
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
for sub in ("tasks", "train"):
    path = os.path.join(REPO, "examples", sub)
    if path not in sys.path:
        sys.path.insert(0, path)
