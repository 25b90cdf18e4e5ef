#!/usr/bin/env bash
# Makes the Python venv in which the tagging tests read tags back with an independent reader: mutagen, in
# .build-tag-venv/ (git-ignored, as every .build-* folder).
# Usage: Scripts/tag-test-venv.sh [folder]. Exits non-zero when the venv cannot be made (no PyPI, no python3-venv).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${1:-.build-tag-venv}"
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import mutagen' 2>/dev/null; then
  exit 0
fi
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check 'mutagen==1.47.0'
"$VENV/bin/python" -c 'import mutagen'
