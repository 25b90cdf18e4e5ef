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
# Made in place: a venv names its own folder in its scripts. One cut short fails the import check above next time,
# and is made again from nothing.
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --ignore-requires-python \
  'gpodder-fastapi-router==0.1.3' 'uvicorn>=0.30' 'aiosqlite>=0.20'
"$VENV/bin/python" -c 'import gpodder_router, uvicorn, aiosqlite'
