#!/usr/bin/env python3
"""Prints the suites and tests that a verbose Swift Testing log shows started and never ended.

Usage: unfinished-tests.py LOG. Swift Testing's verbose lines are "◇ Suite S started." and
"◇ Test t() started." and end "✔ … passed …", "✘ … failed …" or "➜ … skipped …"; a name is
counted up at its start and down at its end, so what is left is still running (or hung)."""
import re
import sys
from collections import Counter

started = re.compile(r"^◇ (Suite|Test) (.+?) started\.$")
ended = re.compile(r"^[✔✘➜] (Suite|Test) (.+?)(?: with \d+ (?:test cases?|tests?|issues?)(?: \(including \d+ known issues?\))?)? (passed|failed|skipped)\b")
running = Counter()
issues = {}
with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
    for line in log:
        line = line.rstrip("\n")
        if line[2:].startswith("Test case") or line[2:].startswith("Test run"):
            continue
        if m := started.match(line):
            running[(m[1], m[2])] += 1
        elif m := ended.match(line):
            running[(m[1], m[2])] -= 1
        elif m := re.match(r"^✘ Test (.+?) recorded an issue", line):
            issues.setdefault(m[1], line)
left = [key for key, count in running.items() if count > 0]
for kind, name in left:
    print(f"  {kind} {name}")
    if kind == "Test" and name in issues:
        print(f"      {issues[name][:300]}")
if not left:
    print("  (none: the run hung between tests, or in XCTest)")
