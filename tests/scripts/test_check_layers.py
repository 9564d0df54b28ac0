#!/usr/bin/env python3
"""The layer check fails on what it exists to catch: an include pointing up the stack, an
include between sibling layers, and a function defined in a layer above the header that
declares it; both in a small tree and planted in a copy of the project's own sources."""
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECK = ROOT / "scripts" / "check_layers.py"


def check(tree):
    result = subprocess.run([sys.executable, str(CHECK), str(tree)], capture_output=True, text=True)
    return result.returncode, result.stdout


def write(tree, rel, text):
    path = tree / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def expect(condition, message):
    if not condition:
        print("FAIL:", message)
        sys.exit(1)


def small_tree(tree):
    write(tree, "sim/core/clock.hpp", "#pragma once\nnamespace torsim {\nint tick();\n}\n")
    write(tree, "sim/core/clock.cpp", '#include "sim/core/clock.hpp"\nnamespace torsim {\nint tick() { return 1; }\n}\n')
    write(tree, "models/messaging/messaging.hpp",
          "#pragma once\nnamespace torsim::rt {\nclass Layer {\n public:\n  int size() const;\n};\n"
          "Layer* make_layer(int kind);\n}  // namespace torsim::rt\n")
    write(tree, "models/messaging/messaging.cpp",
          '#include "models/messaging/messaging.hpp"\nnamespace torsim::rt {\n'
          "int Layer::size() const { return 0; }\nLayer* make_layer(int) { return nullptr; }\n}\n")
    write(tree, "models/runtime/raw.cpp",
          '#include "models/messaging/messaging.hpp"\nnamespace torsim::rt {\nnamespace {\n'
          "int helper() { return 2; }\n}  // namespace\n}  // namespace torsim::rt\n")
    write(tree, "models/nic/nic.hpp", "#pragma once\n")
    write(tree, "models/gpu/gpu.hpp", "#pragma once\n")


def test_small_tree():
    with tempfile.TemporaryDirectory() as tmp:
        tree = pathlib.Path(tmp)
        small_tree(tree)
        code, out = check(tree)
        expect(code == 0, f"a clean tree fails: {out}")

        write(tree, "sim/core/clock.hpp", '#pragma once\n#include "models/runtime/raw.hpp"\n')
        code, out = check(tree)
        expect(code == 1 and "sim/core/clock.hpp (core) includes models/runtime/raw.hpp (runtime): points up" in out,
               f"an upward include passes: {out}")
        small_tree(tree)

        write(tree, "models/gpu/gpu.hpp", '#pragma once\n#include "models/nic/nic.hpp"\n')
        code, out = check(tree)
        expect(code == 1 and "a sibling layer" in out, f"an include between siblings passes: {out}")
        small_tree(tree)

        # The factory moved up into the runtime layer, its declaration left in messaging.
        write(tree, "models/messaging/messaging.cpp",
              '#include "models/messaging/messaging.hpp"\nnamespace torsim::rt {\n'
              "int Layer::size() const { return 0; }\n}\n")
        write(tree, "models/runtime/registry.cpp",
              '#include "models/messaging/messaging.hpp"\nnamespace torsim {\n'
              "rt::Layer* rt::make_layer(int kind) {\n  return kind ? nullptr : nullptr;\n}\n}\n")
        code, out = check(tree)
        expect(code == 1 and "models/runtime/registry.cpp (runtime) defines rt::make_layer, declared in "
               "models/messaging/messaging.hpp (messaging): a definition above its declaration" in out,
               f"a free function defined above its declaration passes: {out}")
        (tree / "models/runtime/registry.cpp").unlink()

        write(tree, "models/runtime/layer_size.cpp",
              '#include "models/messaging/messaging.hpp"\nnamespace torsim::rt {\n'
              "int Layer::size() const {\n  return [] { return 1; }();\n}\n}\n")
        code, out = check(tree)
        expect(code == 1 and "defines Layer::size" in out, f"a member defined above its class passes: {out}")


def test_project_copy():
    """Both faults planted in a copy of the project: each is reported, nothing else is."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = pathlib.Path(tmp)
        for top in ("sim", "topologies", "models", "run", "validation", "cli", "tests"):
            shutil.copytree(ROOT / top, tree / top, ignore=shutil.ignore_patterns("*.py", "*.json", "*.md"))
        clock = tree / "sim/core/time.hpp"
        clock.write_text(clock.read_text(encoding="utf-8") + '#include "models/apps/workload.hpp"\n', encoding="utf-8")
        write(tree, "models/apps/planted.cpp",
              '#include "models/messaging/messaging.hpp"\nnamespace torsim::rt {\n'
              "Task<> MessagingLayer::compute(Rank, Time) { co_return; }\n}  // namespace torsim::rt\n")
        code, out = check(tree)
        lines = out.strip().splitlines()
        expect(code == 1, f"the planted faults pass: {out}")
        expect("sim/core/time.hpp (core) includes models/apps/workload.hpp (apps): points up" in lines,
               f"the planted include is not reported: {out}")
        expect(any(line.startswith("models/apps/planted.cpp (apps) defines MessagingLayer::compute, declared in "
                                   "models/messaging/messaging.hpp (messaging)") for line in lines),
               f"the planted definition is not reported: {out}")
        expect(len(lines) == 2, f"more than the two planted faults reported: {out}")


if __name__ == "__main__":
    test_small_tree()
    test_project_copy()
    print("check_layers: planted faults are caught")
