#!/usr/bin/env bash
# The main job on the demo feeds in Feeds/, with no network: builds podfresh, subscribes a fresh database to the
# demo feeds, refreshes them (new episodes are listed), refreshes again (nothing new), and shows the store.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-deps.sh
swift build --product podfresh
bin="$(swift build --show-bin-path)/podfresh"
export PODFRESH_DATABASE="${PODFRESH_DATABASE:-$PWD/.demo/podfresh.sqlite}"
rm -f "$PODFRESH_DATABASE" "$PODFRESH_DATABASE-wal" "$PODFRESH_DATABASE-shm"
mkdir -p "$(dirname "$PODFRESH_DATABASE")"
echo "== podfresh add --no-fetch Feeds/*   (database: $PODFRESH_DATABASE)"
"$bin" add --no-fetch Feeds/*.xml Feeds/*.atom
echo; echo "== podfresh refresh"
"$bin" refresh
echo; echo "== podfresh refresh --all   (second run: nothing new)"
"$bin" refresh --all
echo; echo "== podfresh list"
"$bin" list
echo; echo "== podfresh episodes --limit 5"
"$bin" episodes --limit 5
