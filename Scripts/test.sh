#!/usr/bin/env bash
# Runs every test: first side by side (`swift test --parallel`), then, one at a time, the suites that assert how long
# something takes (a timeout, a stall, "at once", "nobody else waits"). On two cores those starve each other of
# Swift's cooperative threads when they share the machine with the rest, so they run alone, after it.
# Extra arguments go to both runs (e.g. `-Xswiftc -warnings-as-errors`).
set -euo pipefail
cd "$(dirname "$0")/.."
timed="$(cat Tests/timed-suites.txt)"
swift test --parallel --skip "$timed" "$@"
swift test --skip-build --no-parallel --filter "$timed" "$@"
