#!/usr/bin/env python3
"""Checks that every project include points down the layer stack (docs/architecture.md).

Each source file belongs to the first layer whose prefix matches its path; a file may include
headers of its own layer or of layers below it, never above. Exit 1 with one line per upward
include, 0 when the stack holds. Run by CTest (test `layers`) and usable by hand:

    python3 scripts/check_layers.py [ROOT]
"""
import pathlib
import re
import sys

# Bottom to top. Within models/, the folders form layers of their own: the node (a job's
# ranks, placement and cores) sits under the NICs, which charge core time through it; the
# messaging interface sits above the NICs, the layers implementing it above the collective
# algorithms they install, and workloads on top.
LAYERS = [
    ("core", ["sim/core/"]),
    ("config", ["sim/config/"]),
    ("topologies", ["topologies/"]),
    ("machine", ["models/machine."]),
    ("network", ["models/network/"]),
    ("node", ["models/node/"]),
    ("nic", ["models/nic/"]),
    ("gpu", ["models/gpu/"]),
    ("messaging", ["models/messaging/"]),
    ("collectives", ["models/collectives/"]),
    ("runtime", ["models/runtime/"]),
    ("apps", ["models/apps/"]),
    ("run", ["run/"]),
    ("validation", ["validation/"]),
    ("cli", ["cli/"]),
    ("tests", ["tests/", "fuzz/"]),
]
SOURCE_DIRS = ["sim", "topologies", "models", "run", "validation", "cli", "tests", "fuzz"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def layer_of(path):
    for rank, (name, prefixes) in enumerate(LAYERS):
        if any(path.startswith(p) for p in prefixes):
            return rank, name
    return None


def violations(root):
    found, unplaced = [], []
    for top in SOURCE_DIRS:
        for file in sorted((root / top).rglob("*")):
            if file.suffix not in (".hpp", ".cpp", ".h", ".cc"):
                continue
            rel = file.relative_to(root).as_posix()
            own = layer_of(rel)
            if own is None:
                unplaced.append(rel)
                continue
            for target in INCLUDE.findall(file.read_text(encoding="utf-8")):
                other = layer_of(target)
                if other is None:
                    if (root / target).exists():
                        unplaced.append(target)
                    continue  # a header beside the file or a test-support header
                if other[0] > own[0]:
                    found.append(f"{rel} ({own[1]}) includes {target} ({other[1]}): points up")
    return found, sorted(set(unplaced))


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
    found, unplaced = violations(root.resolve())
    for line in found:
        print(line)
    for rel in unplaced:
        print(f"{rel}: in no layer; add its folder to LAYERS in scripts/check_layers.py")
    if found or unplaced:
        return 1
    print(f"layers: every include points down ({len(LAYERS)} layers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
