# Shared by the benchmark scripts (sourced, not run): a private copy of ../shared/bench, a generated corpus served by
# nginx on 127.0.0.1, and the podfresh binary to measure. Expects ROOT (the package) and BENCH_WORK to be set.

# Copies the (read-only) kit into BENCH_WORK, where measure.py keeps its nginx state beside itself; sets KIT.
bench_kit_copy() {
  local shared="${SHARED:-$ROOT/../shared/bench}"
  [ -d "$shared" ] || { echo "no benchmark kit at $shared" >&2; exit 1; }
  export BENCH_PORT="${BENCH_PORT:-18080}"
  KIT="$BENCH_WORK"
  mkdir -p "$KIT"
  cp -r "$shared"/. "$KIT"/
  chmod -R u+w "$KIT"
}

# Installs the Debian packages named (those missing), and `time` for measure.py.
bench_install() {
  local need=("$@")
  [ -x /usr/bin/time ] || need+=(time)
  if [ ${#need[@]} -gt 0 ]; then
    echo "installing: ${need[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
  fi
}

# Serves the folder $1 (it must hold feeds/; anything beside it, e.g. media/, is served too) with the kit's nginx on
# 127.0.0.1:$BENCH_PORT: static files with real ETag, Last-Modified, 304s and byte ranges. The caller stops nginx
# ("$KIT/stop_nginx.sh").
bench_serve_root() {
  "$KIT/stop_nginx.sh" >/dev/null 2>&1 || true
  "$KIT/start_nginx.sh" "$1"
}

# Generates N feeds (once) and serves them with nginx; sets CORPUS. The caller stops nginx ("$KIT/stop_nginx.sh").
bench_serve_corpus() {
  CORPUS="$KIT/corpus/c$1"
  [ -d "$CORPUS/feeds" ] || python3 "$KIT/gen_corpus.py" --feeds "$1" --out "$CORPUS" --seed 1 --port "$BENCH_PORT"
  bench_serve_root "$CORPUS"
}

# Sets BIN: PODFRESH_BIN when given (another build, e.g. the one before a change), else a release build of this tree.
bench_binary() {
  if [ -n "${PODFRESH_BIN:-}" ]; then
    BIN="$(realpath "$PODFRESH_BIN")"
  else
    swift build -c release --product podfresh 2>&1 | tail -1
    BIN="$(swift build -c release --show-bin-path)/podfresh"
  fi
}
