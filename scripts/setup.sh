#!/usr/bin/env bash
# Installs what a fresh Debian (bookworm) machine needs to build and test torsim.
# Idempotent: installs only what is missing. Run as root or with sudo available.
set -euo pipefail

apt_packages=(build-essential cmake ninja-build pkg-config libsimgrid-dev libboost-graph-dev
              nlohmann-json3-dev catch2 python3 python3-pip)

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

# matplotlib draws the validation report's plots. Install it for the python3 on PATH (which may
# not be Debian's), falling back to Debian's package when pip refuses.
if ! python3 -c 'import matplotlib' 2>/dev/null; then
  echo "setup: installing matplotlib for $(command -v python3)"
  python3 -m pip install --quiet matplotlib 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages matplotlib 2>/dev/null \
    || { as_root apt-get update -qq; DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq python3-matplotlib; }
fi
python3 -c 'import matplotlib' || { echo "setup: matplotlib still missing for $(command -v python3)" >&2; exit 1; }
