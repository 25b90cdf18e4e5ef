#!/usr/bin/env bash
# The simulated internet in a network namespace: podfresh-netsim (a DNS server on 127.0.0.53 with delays, NXDOMAIN
# and silence; HTTP/1.1, HTTPS and HTTP/2 hosts on their own 127.x.y.z addresses; a control server for counters)
# running inside `ip netns`, with a resolv.conf, a hosts file and a CA bundle that exist inside the namespace only.
# Used by Scripts/bench-internet.sh and Tests/InternetTests. Needs root and iproute2; never touches the real
# /etc/resolv.conf, /etc/hosts or the system CA store.
#
#   Scripts/netsim.sh up NAME LAYOUT.json CORPUS_DIR    make namespace podfresh-NAME, start the simulator, wait for it
#   Scripts/netsim.sh exec NAME CMD ARGS...            run CMD inside (test CA trusted, SSL_CERT_FILE and
#                                                      REQUESTS_CA_BUNDLE set)
#   Scripts/netsim.sh stats NAME [reset]               print the counters as JSON (reset: print, then zero them)
#   Scripts/netsim.sh stats NAME mode MODE             switch how the hosts answer: normal, unconditional (validators
#                                                      never honoured), changed (5% of the feeds gained an item), mixed
#                                                      (45% of the hosts without validators, a fifth of those stamped)
#   Scripts/netsim.sh down NAME                        stop the simulator (its counters go to STATE/stats.json), remove
#                                                      the namespace and /etc/netns/podfresh-NAME
#   Scripts/netsim.sh check                            exit 0 when namespaces can be made here (root, ip netns)
#
# Environment:
#   NETSIM_BIN            the podfresh-netsim binary (default: `swift build --product podfresh-netsim` of this tree)
#   NETSIM_STATE          where each namespace's state goes (default ${TMPDIR:-/tmp}/podfresh-netsim/NAME): CA,
#                         certificate, simulator log, pid, stats.json
#   NETSIM_RESOLV_OPTIONS the `options` line of the namespace's resolv.conf (default: none, glibc's timeout:5
#                         attempts:2)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { echo "netsim: $*" >&2; exit 1; }

ns_name() { local n="${1:?namespace name}"; echo "podfresh-${n#podfresh-}"; }
state_dir() { echo "${NETSIM_STATE:-${TMPDIR:-/tmp}/podfresh-netsim}/$1"; }

check() {
  [ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
  command -v ip >/dev/null || { echo "no ip (iproute2)"; return 1; }
  local probe="podfresh-probe-$$"
  ip netns add "$probe" 2>/dev/null || { echo "ip netns add fails here"; return 1; }
  ip netns del "$probe"
}

control_url() {
  python3 -c 'import json,sys; c=json.load(open(sys.argv[1])).get("control",{}); print("http://%s:%s" % (c.get("address","127.0.0.2"), c.get("port",9999)))' "$1"
}

# Makes a CA and one server certificate for every name in the layout (EC P-256), unless already there.
make_certificates() {
  local layout="$1" dir="$2"
  [ -s "$dir/server.pem" ] && return 0
  local names
  names="$(python3 -c 'import json,sys; print(",".join("DNS:"+h["name"].lower() for h in json.load(open(sys.argv[1]))["hosts"]))' "$layout")"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -keyout "$dir/ca.key" -out "$dir/ca.pem" -subj "/CN=podfresh netsim test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$dir/server.key" -out "$dir/server.csr" -subj "/CN=podfresh netsim hosts" 2>/dev/null
  printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n' \
    "$names" > "$dir/server.ext"
  openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 2 \
    -extfile "$dir/server.ext" -out "$dir/server.pem" 2>/dev/null
}

netsim_bin() {
  if [ -n "${NETSIM_BIN:-}" ]; then echo "$NETSIM_BIN"; return; fi
  (cd "$ROOT" && swift build --product podfresh-netsim >&2)
  echo "$(cd "$ROOT" && swift build --show-bin-path)/podfresh-netsim"
}

up() {
  local ns layout corpus st bin etc
  ns="$(ns_name "$1")"; layout="$(realpath "${2:?layout}")"; corpus="$(realpath "${3:?corpus folder}")"
  st="$(state_dir "$ns")"; etc="/etc/netns/$ns"
  [ "$(id -u)" = 0 ] || die "needs root (ip netns)"
  ip netns list | grep -qw "^$ns" && die "namespace $ns exists already (Scripts/netsim.sh down ${ns#podfresh-})"
  bin="$(netsim_bin)"
  [ -x "$bin" ] || die "no simulator at $bin"
  mkdir -p "$st"
  rm -f "$st/stats.json" "$st/pid"
  trap 'echo "netsim: setting up $ns failed; cleaning up" >&2; down "$ns" >/dev/null 2>&1 || true' ERR

  make_certificates "$layout" "$st"

  # Inside the namespace only: `ip netns exec` bind-mounts each entry of /etc/netns/NAME over the same name in /etc.
  mkdir -p "$etc/ssl/certs"
  printf 'nameserver 127.0.0.53\n' > "$etc/resolv.conf"
  [ -n "${NETSIM_RESOLV_OPTIONS:-}" ] && printf 'options %s\n' "$NETSIM_RESOLV_OPTIONS" >> "$etc/resolv.conf"
  printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' > "$etc/hosts"
  [ -f /etc/ssl/openssl.cnf ] && cp /etc/ssl/openssl.cnf "$etc/ssl/openssl.cnf"
  # The bundle NIOSSL/BoringSSL, libcurl (newsboat) and Python's ssl read: the system's CAs plus the test CA.
  { cat /etc/ssl/certs/ca-certificates.crt 2>/dev/null || true; cat "$st/ca.pem"; } > "$etc/ssl/certs/ca-certificates.crt"
  cp "$st/ca.pem" "$etc/ssl/certs/podfresh-netsim-ca.pem"
  openssl rehash "$etc/ssl/certs" >/dev/null 2>&1 || true

  ip netns add "$ns"
  ip -n "$ns" link set lo up
  # A non-loopback interface with an IPv4 address, so getaddrinfo's AI_ADDRCONFIG still asks for IPv4 inside.
  ip -n "$ns" link add pf-veth0 type veth peer name pf-veth1
  ip -n "$ns" addr add 10.253.0.1/30 dev pf-veth0
  ip -n "$ns" link set pf-veth0 up
  ip -n "$ns" link set pf-veth1 up

  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true  # many listeners and connections in one process
  # In a subshell that closes every descriptor but 0-2 first: a caller waiting for this script to end (Foundation's
  # Process, $(...)) must not wait for the simulator, which would otherwise hold that caller's pipes open.
  (
    for fd in /proc/self/fd/*; do
      fd="${fd##*/}"
      [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-" 2>/dev/null
    done
    exec ip netns exec "$ns" "$bin" --layout "$layout" --corpus "$corpus" --cert "$st/server.pem" \
      --key "$st/server.key" --stats-out "$st/stats.json"
  ) < /dev/null > "$st/netsim.log" 2>&1 &
  echo $! > "$st/pid"
  local url i
  url="$(control_url "$layout")"
  for i in $(seq 200); do
    if grep -q '^ready' "$st/netsim.log" 2>/dev/null \
      && ip netns exec "$ns" curl -sf -o /dev/null "$url/stats"; then
      trap - ERR
      echo "$ns up: $(head -1 "$st/netsim.log")"
      return 0
    fi
    kill -0 "$(cat "$st/pid")" 2>/dev/null || { cat "$st/netsim.log" >&2; die "the simulator exited"; }
    sleep 0.1
  done
  cat "$st/netsim.log" >&2
  die "the simulator did not answer within 20 s"
}

down() {
  local ns st pid i
  ns="$(ns_name "$1")"; st="$(state_dir "$ns")"
  if [ -s "$st/pid" ]; then
    pid="$(cat "$st/pid")"
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$st/pid"
  fi
  ip netns del "$ns" 2>/dev/null || true
  rm -rf "/etc/netns/$ns"
  rmdir /etc/netns 2>/dev/null || true
}

in_ns() {
  local ns st
  ns="$(ns_name "$1")"; shift; st="$(state_dir "$ns")"
  exec ip netns exec "$ns" env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt CURL_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt "$@"
}

stats() {
  local ns st path=stats
  ns="$(ns_name "$1")"; st="$(state_dir "$ns")"
  [ "${2:-}" = reset ] && path=reset
  # `mode NAME`: how the hosts answer from now on (normal, unconditional, changed, mixed; ServingMode.swift).
  [ "${2:-}" = mode ] && path="mode/${3:?mode name}"
  local url
  # The control address is in the simulator's first log line: "... stats http://ADDR:PORT/stats".
  url="$(sed -n 's|.*stats \(http://[^ ]*\)/stats.*|\1|p' "$st/netsim.log" | head -1)"
  [ -n "$url" ] || die "$ns is not up"
  ip netns exec "$ns" curl -sf "$url/$path"
}

cmd="${1:-}"; shift || true
case "$cmd" in
  up) up "$@" ;;
  down) down "$@" ;;
  exec) in_ns "$@" ;;
  stats) stats "$@" ;;
  check) check ;;
  *) sed -n '2,25p' "$0"; exit 64 ;;
esac
