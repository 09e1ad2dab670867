"""What the reference checks (check_*_reference.py) share: a pass/fail tally printed one line per check."""
import numpy as np


class Checker:
    """Runs checks, prints one line each, remembers failures."""

    def __init__(self):
        """No failures yet."""
        self.failed = []

    def check(self, name, ok, detail):
        """Records and prints one result."""
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
        if not ok:
            self.failed.append(name)


def max_diff(a, b):
    """max |a - b| (0 for empty arrays), inf when the shapes differ."""
    return float(np.max(np.abs(a - b), initial=0.0)) if a.shape == b.shape else float("inf")
