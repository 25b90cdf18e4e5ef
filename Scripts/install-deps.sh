#!/usr/bin/env bash
# Installs the system libraries podfresh builds against, when they are missing (Debian/Ubuntu).
set -euo pipefail
missing=()
pkg-config --exists libxml-2.0 2>/dev/null || missing+=(libxml2-dev)
[ -f /usr/include/sqlite3.h ] || missing+=(libsqlite3-dev)
[ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)           # feed bodies are inflated as they stream
[ -f /usr/include/jemalloc/jemalloc.h ] || missing+=(libjemalloc-dev)  # the executable's allocator
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3)   # the store tests read the file with the sqlite3 shell
command -v openssl >/dev/null 2>&1 || missing+=(openssl)   # the fetch tests make a self-signed certificate
# The internet tests (Tests/InternetTests, as root) build a network namespace with ip, ask the simulator with curl, and
# read its layout with python3 (Scripts/netsim.sh).
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
# The sync tests (issue #35) run a gpodder.net-compatible server from PyPI in a venv of their own (python3-venv).
python3 -c 'import ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
# The PostgreSQL store's tests start a throwaway cluster (initdb, pg_ctl); no system service is needed or started.
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
# The tagging and HLS tests encode their media with a real encoder (they use committed fixtures without it).
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
command -v swift >/dev/null 2>&1 || { echo "swift is not on PATH (Swift 6.1 or newer is needed)"; exit 1; }
# The venv of the sync tests' gPodder server (.build-sync-venv, git-ignored); without PyPI those tests skip, saying why.
bash "$(dirname "$0")/sync-test-venv.sh" || echo "the sync tests' gPodder server venv could not be made (no PyPI?): those tests will be skipped"
# The venv of the tagging tests' independent reader, mutagen (.build-tag-venv); without PyPI those tests skip, saying why.
bash "$(dirname "$0")/tag-test-venv.sh" || echo "the tagging tests' mutagen venv could not be made (no PyPI?): those tests will be skipped"
