#!/usr/bin/env python3
"""Checks that each target of Package.swift depends on exactly the modules its sources import (layers
point one way, and no target drags in what it does not use). Reads `swift package dump-package` on
stdin; prints each mismatch and exits 1 when there is one. deploy/test.sh runs it before building."""
import json
import pathlib
import re
import sys

# Modules of the toolchain and the system, and platform-conditional imports.
SYSTEM = {"Foundation", "FoundationEssentials", "FoundationNetworking", "Testing", "XCTest", "Synchronization", "Dispatch",
          "Glibc", "Darwin", "HTTPTypes", "UnixSignals"}
root = pathlib.Path(__file__).resolve().parent.parent
package = json.load(sys.stdin)
problems = []
for target in package["targets"]:
    if target["type"] == "system":
        continue
    path = root / (target.get("path") or f"Tests/{target['name']}")
    excluded = [path / name for name in target.get("exclude", [])]
    imports = set()
    for source in path.rglob("*.swift"):
        if any(source == e or e in source.parents for e in excluded):
            continue
        imports |= set(re.findall(r"^(?:@testable )?import (\w+)", source.read_text(), re.M))
    declared = {next(iter(dependency.values()))[0] for dependency in target["dependencies"]}
    if declared - imports:
        problems.append(f"{target['name']} depends on {sorted(declared - imports)} but imports none of them")
    if imports - declared - SYSTEM:
        problems.append(f"{target['name']} imports {sorted(imports - declared - SYSTEM)} without depending on them")
print("\n".join(problems) or "every target depends on exactly what it imports")
sys.exit(1 if problems else 0)
