#!/usr/bin/env bash
# Installs what a fresh Debian (bookworm) machine needs to build and test torsim.
# Idempotent: installs only what is missing. Run as root or with sudo available.
set -euo pipefail

# clang and libclang-rt-14-dev (compiler-rt: ASan, UBSan, libFuzzer) build the sanitizer and fuzz
# tree (build-sanitize/, `make sanitize`, part of `make test`).
# libopen-trace-format2-dev reads OTF2 traces; otf2-tools' otf2-print made the OTF2 readers' golden
# listings (tests/data/traces/).
# clang-format-14 is the formatter whose output .clang-format is checked against (CTest `format`).
apt_packages=(build-essential cmake ninja-build pkg-config libsimgrid-dev libboost-graph-dev
              nlohmann-json3-dev catch2 python3 python3-pip python3-venv clang libclang-rt-14-dev
              libopen-trace-format2-dev otf2-tools clang-format-14)

missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Python modules, for the python3 on PATH (which may not be Debian's): matplotlib draws the
# validation report's plots, pandas backs the torsim Python package (python/), jsonschema checks
# the shipped scenarios against `torsim schema`, wheel lets `pip install -e python` build without
# fetching anything. pip first, Debian's package when pip refuses.
python_module() {  # python_module MODULE DEBIAN_PACKAGE
  python3 -c "import $1" 2>/dev/null && return 0
  echo "setup: installing $1 for $(command -v python3)"
  python3 -m pip install --quiet "$1" 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages "$1" 2>/dev/null \
    || { as_root apt-get update -qq; DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$2"; }
  python3 -c "import $1" || { echo "setup: $1 still missing for $(command -v python3)" >&2; exit 1; }
}
python_module matplotlib python3-matplotlib
python_module pandas python3-pandas
python_module jsonschema python3-jsonschema
python_module wheel python3-wheel
