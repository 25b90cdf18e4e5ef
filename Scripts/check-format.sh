#!/usr/bin/env bash
# Fails when `swift format` (with the checked-in .swift-format) would change a Swift file; lists those files.
# Fix with: swift format format --in-place --recursive --parallel Sources Tests Scripts Plugins Package.swift
set -euo pipefail
cd "$(dirname "$0")/.."
bad=0
while IFS= read -r -d '' file; do
  if ! swift format format --configuration .swift-format "$file" | cmp -s - "$file"; then
    echo "not formatted: $file" >&2
    bad=1
  fi
done < <(find Sources Tests Scripts Plugins Package.swift -name '*.swift' -print0)
[ "$bad" = 0 ] && echo "swift format: every file formatted"
exit "$bad"
