#!/usr/bin/env bash
# Makes the Python venv the sync tests run their gPodder servers in (issue #35): gpodder-fastapi-router (a
# gpodder.net-compatible server) served by uvicorn, in .build-sync-venv/ (git-ignored, as every .build-* folder).
# The router declares Python 3.12 but runs on Debian 12's 3.11, hence --ignore-requires-python.
# Usage: Scripts/sync-test-venv.sh [folder]. Exits non-zero when the venv cannot be made (no PyPI, no python3-venv).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${1:-.build-sync-venv}"
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import gpodder_router, uvicorn, aiosqlite' 2>/dev/null; then
  exit 0
fi
rm -rf "$VENV.tmp"
python3 -m venv "$VENV.tmp"
"$VENV.tmp/bin/pip" install --quiet --disable-pip-version-check --ignore-requires-python \
  'gpodder-fastapi-router==0.1.3' 'uvicorn>=0.30' 'aiosqlite>=0.20'
"$VENV.tmp/bin/python" -c 'import gpodder_router, uvicorn, aiosqlite'
rm -rf "$VENV"
mv "$VENV.tmp" "$VENV"
# The venv's scripts name their folder: make them point at the final one.
sed -i "s#$PWD/$VENV.tmp#$PWD/$VENV#g" "$VENV"/bin/* 2>/dev/null || true
