#!/usr/bin/env python3
"""scripts/test-summary on a made-up meson log: its counts, and each failed check shown with the
lines that say why (a red CI must say which assertion failed, not only which suite)."""
import json
import os
import subprocess
import sys
import tempfile

script = os.path.join(sys.argv[1], "scripts", "test-summary")
tests = [
    {"name": "suite / flood", "result": "FAIL", "stdout": "TAP version 13\n1..2\nok - a::one (0.1s)\n"
     "not ok - a::two  (0.00s)\n  ---\n  failures:\n  - t.c:2: |+\n      Assertion failed: served 3 of 4\n  ...\n"},
    {"name": "suite / shell", "result": "OK", "stdout": "ok 1 - x\nok 2 - y # SKIP no root\n"},
    {"name": "suite / plain", "result": "OK", "stdout": "nothing tap\n"},
]
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    for t in tests:
        f.write(json.dumps(t) + "\n")
out = subprocess.run([sys.executable, script, f.name], capture_output=True, text=True, check=True).stdout
os.unlink(f.name)
checks = [
    ("the closing line counts each check", out.rstrip().endswith("3 passed, 1 failed, 1 skipped, 0 known failures")),
    ("the failed check is named with its suite", "FAILED in suite / flood: not ok - a::two" in out),
    ("the assertion's message is shown", "Assertion failed: served 3 of 4" in out),
    ("a passing check is not shown", "a::one" not in out),
]
print(f"1..{len(checks)}")
for n, (what, ok) in enumerate(checks, 1):
    print(f"{'ok' if ok else 'not ok'} {n} - {what}")
if not all(ok for _, ok in checks):
    print(out)
