#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this): installs what a clean Debian machine lacks, checks
# the formatting against .swift-format, runs every test side by side, then builds the Debian package and tests it
# installed (Scripts/test-package.sh). Extra arguments go to `swift test` (e.g. `-Xswiftc -warnings-as-errors`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-deps.sh
bash Scripts/check-format.sh
swift test --parallel "$@"
bash Scripts/test-package.sh
