#!/usr/bin/env python3
"""The C++ sources follow .clang-format: `check_format.py ROOT` lists every file clang-format would
change and exits 1; `check_format.py ROOT --fix` rewrites them in place (`make format`).

clang-format's output differs between major versions, so one version is the project's: the one
scripts/setup.sh installs (REQUIRED_MAJOR). Another version is an error, not a silent pass."""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys

from check_layers import source_paths  # the same C++ sources the layer check reads

REQUIRED_MAJOR = 14  # Debian bookworm's clang-format; scripts/setup.sh installs clang-format-14.


def find_clang_format():
    for name in (f"clang-format-{REQUIRED_MAJOR}", "clang-format"):
        path = shutil.which(name)
        if not path:
            continue
        version = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
        match = re.search(r"version (\d+)\.", version)
        if match and int(match.group(1)) == REQUIRED_MAJOR:
            return path
    sys.exit(f"check_format: clang-format {REQUIRED_MAJOR} not found (scripts/setup.sh installs it)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=pathlib.Path)
    parser.add_argument("--fix", action="store_true", help="rewrite the files in place")
    args = parser.parse_args()
    clang_format = find_clang_format()
    style = f"--style=file:{args.root / '.clang-format'}"
    unformatted = []
    for path in source_paths(args.root):
        if args.fix:
            subprocess.run([clang_format, style, "-i", str(path)], check=True)
            continue
        formatted = subprocess.run([clang_format, style, str(path)], capture_output=True, check=True).stdout
        if formatted != path.read_bytes():
            unformatted.append(path.relative_to(args.root))
    for path in unformatted:
        print(f"{path}: not formatted (make format)")
    return 1 if unformatted else 0


if __name__ == "__main__":
    sys.exit(main())
