#!/usr/bin/env bash
# The package test (issue #24), run by .ci/run after the test suite: builds the .deb with Scripts/package.sh (one
# release build), inspects it with dpkg-deb (every file, owners, control fields, no maintainer scripts), installs it
# with dpkg into a scratch root (its own dpkg database; this machine's packages are not touched), and runs the
# installed binary with the Swift toolchain out of reach: a clean environment (env -i, no LD_LIBRARY_PATH, the
# toolchain off PATH), the toolchain's folder hidden under an empty mount where the kernel allows it (root and
# `unshare --mount`), and ldd checked. The binary then works on the demo feeds in Feeds/ (an empty database, add,
# refresh, list, episodes, parse; over HTTP too when python3 can serve them), the man page renders with `man -l`
# and names every option --help shows, and the bash completion loads through bash-completion's own loader and
# completes. Last, `dpkg --root … -r` removes every file of the package and leaves a user's database and downloads
# byte for byte as they were.
#   Scripts/test-package.sh [PACKAGE.deb]   # without an argument it builds the package first
# Skips (exit 0, saying why) where dpkg-deb is missing (not a Debian-like system); installs dpkg-dev, man-db,
# bash-completion and binutils when missing, with apt-get, as Scripts/install-deps.sh does.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

if ! command -v dpkg-deb >/dev/null 2>&1 || ! command -v dpkg >/dev/null 2>&1; then
    echo "SKIP package test: dpkg-deb is not on PATH (not a Debian system; the package is a .deb)"
    exit 0
fi
started=$SECONDS
missing=()
command -v dpkg-shlibdeps >/dev/null 2>&1 || missing+=(dpkg-dev)
command -v man >/dev/null 2>&1 || missing+=(man-db)
command -v strip >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1 || missing+=(binutils)
[ -f /usr/share/bash-completion/bash_completion ] || missing+=(bash-completion)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/podfresh-package.XXXXXX")"
server_pid=""
cleanup() {
    [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
checks=0
fail() { echo "FAIL package test: $*" >&2; exit 1; }
pass() { checks=$((checks + 1)); echo "ok - $*"; }

# MARK: - Build and inspect

if [ $# -gt 0 ]; then
    deb="$(readlink -f "$1")"   # a package built before (or elsewhere): test it as it is
else
    deb="$(bash Scripts/package.sh --output "$work/out" | tail -n 1)"
fi
[ -f "$deb" ] || fail "no package: ${deb:-Scripts/package.sh made none}"
version="$(sed -n 's/^ *static let current = "\(.*\)"$/\1/p' Sources/podfresh/RootCommand.swift)"
arch="$(dpkg --print-architecture)"
[ "$(basename "$deb")" = "podfresh_${version}_${arch}.deb" ] || fail "package named $(basename "$deb")"
pass "built $(basename "$deb") ($(stat -c %s "$deb") bytes)"

field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = podfresh ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version), PodfreshVersion.current is $version"
[ "$(field Architecture)" = "$arch" ] || fail "Architecture: $(field Architecture)"
for key in Maintainer Installed-Size Section Priority Description Depends; do
    [ -n "$(field "$key")" ] || fail "no $key field"
done
depends="$(field Depends)"
for needed in libc6 libxml2 libsqlite3-0 libjemalloc2; do
    grep -Eq "(^|, )$needed( |,|$)" <<<"$depends" || fail "Depends lacks $needed: $depends"
done
! grep -qi swift <<<"$depends" || fail "Depends names something of Swift: $depends"
pass "control: podfresh $version $arch, Depends: $depends"

expected="$(
    cat <<'EOF'
./usr/bin/podfresh
./usr/lib/systemd/system/podfresh-worker@.service
./usr/lib/systemd/user/podfresh-refresh.service
./usr/lib/systemd/user/podfresh-refresh.timer
./usr/lib/systemd/user/podfresh-watch.service
./usr/share/bash-completion/completions/podfresh
./usr/share/doc/podfresh/README.Debian
./usr/share/doc/podfresh/copyright
./usr/share/doc/podfresh/examples/fleet.env
./usr/share/fish/vendor_completions.d/podfresh.fish
./usr/share/man/man1/podfresh.1.gz
./usr/share/zsh/vendor-completions/_podfresh
EOF
)"
contents="$(dpkg-deb --contents "$deb")"
files="$(awk '$1 !~ /^d/ { print $6 }' <<<"$contents" | sort)"
[ "$files" = "$expected" ] || fail "contents differ from the expected list:
$(diff <(echo "$expected") <(echo "$files") || true)"
! awk '{ print $2 }' <<<"$contents" | grep -v -q '^root/root$' || fail "a file not owned by root/root"
grep -q '^-rwxr-xr-x .* \./usr/bin/podfresh$' <<<"$contents" || fail "/usr/bin/podfresh is not 0755"
control_files="$(dpkg-deb --ctrl-tarfile "$deb" | tar -t | grep -v '/$' | sort | tr '\n' ' ')"
[ "$control_files" = "./control ./md5sums " ] || fail "control archive holds more than control and md5sums: $control_files"
pass "contents: the 12 expected files, all root/root, the binary 0755; no maintainer scripts"

# MARK: - Install into a scratch root

root="$work/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
dpkg_root=(dpkg --root="$root" --log=/dev/null --force-script-chrootless --force-depends)
[ "$(id -u)" -eq 0 ] || dpkg_root+=(--force-not-root)
"${dpkg_root[@]}" -i "$deb" >"$work/dpkg-i.log" 2>&1 || fail "dpkg --root -i: $(cat "$work/dpkg-i.log")"
[ "$(dpkg-query --root="$root" -W -f '${Status} ${Version}' podfresh)" = "install ok installed $version" ] ||
    fail "dpkg --root does not list podfresh as installed"
installed="$(dpkg-query --root="$root" -L podfresh)"
pass "installed with dpkg --root into a scratch root ($(wc -l <<<"$installed") paths)"
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    # Would this machine's apt install it, dependencies and all? (Simulated: nothing is installed.)
    apt-get install --simulate --no-download -qq "$deb" >"$work/apt.log" 2>&1 ||
        fail "apt-get cannot install the package here: $(cat "$work/apt.log")"
    pass "apt-get install --simulate resolves its Depends on this machine"
fi

bin="$root/usr/bin/podfresh"
swift_path="$(command -v swift || true)"
toolchain=""
[ -z "$swift_path" ] || toolchain="$(dirname "$(dirname "$(dirname "$(readlink -f "$swift_path")")")")" # /opt/swift
libraries="$(ldd "$bin")"
if grep -E "not found|swift|Foundation|dispatch|BlocksRuntime${toolchain:+|$toolchain}" <<<"$libraries"; then
    fail "the installed binary still needs libraries it cannot find, or the toolchain's (above)"
fi
! readelf -d "$bin" | grep -E 'R(UN)?PATH' | grep -q -i swift || fail "RUNPATH into a toolchain: $(readelf -d "$bin")"
pass "ldd: $(awk '{ print $1 }' <<<"$libraries" | tr '\n' ' ')"

# Every run of the installed binary: a clean environment, and the toolchain's folder hidden where possible.
home="$work/home"
mkdir -p "$home"
clean=(env -i "HOME=$home" "PATH=/usr/bin:/bin" "LANG=C.UTF-8" "LD_LIBRARY_PATH=" "TERM=dumb")
hide=()
if [ -n "$toolchain" ] && [ "$toolchain" != / ] && [ "$toolchain" != /usr ] && [ "$(id -u)" -eq 0 ] &&
    unshare --mount sh -c "mount -t tmpfs -o ro,size=1k none '$toolchain' && test ! -e '$swift_path'" 2>/dev/null; then
    hide=(unshare --mount sh -c 'mount -t tmpfs -o ro,size=1k none "$0" && exec "$@"' "$toolchain")
    pass "the toolchain ($toolchain) is hidden under an empty mount for every run below"
else
    echo "note: the toolchain stays visible (needs root and unshare --mount); the clean environment and ldd still apply"
fi
podfresh() { "${hide[@]}" "${clean[@]}" "$bin" "$@"; }

# MARK: - The installed binary on the demo feeds

version_line="$(podfresh --version)"
[[ "$version_line" =~ ^"$version (commit "([0-9a-f]{12}(-dirty)?|unknown)")"$ ]] ||
    fail "--version says: $version_line"
pass "--version: $version_line"
podfresh --help | grep -q '^USAGE: podfresh' || fail "--help has no USAGE line"
pass "--help"
out="$(podfresh list)"
[ ! -e "$home/.local/share/podfresh/podfresh.sqlite" ] || fail "list on an empty database created one"
pass "list on an empty database"
feeds=("$repo"/Feeds/*.xml "$repo"/Feeds/*.atom)
podfresh add --no-fetch "${feeds[@]}" >"$work/add.log" || fail "add: $(cat "$work/add.log")"
podfresh refresh >"$work/refresh.log" 2>&1 || fail "refresh exited $?: $(cat "$work/refresh.log")"
grep -q 'Harbour at dusk' "$work/refresh.log" || fail "refresh did not announce the demo feed's episode:
$(cat "$work/refresh.log")"
podfresh refresh --all >"$work/refresh2.log" 2>&1 || fail "second refresh: $(cat "$work/refresh2.log")"
out="$(podfresh list)"
for title in "Field Recordings" "Garden Notes" "Night Shift Radio"; do
    grep -q "$title" <<<"$out" || fail "list lacks $title: $out"
done
[ -f "$home/.local/share/podfresh/podfresh.sqlite" ] || fail "no database at the XDG default path"
stored="$(podfresh episodes --limit 1000 --json | grep -c '"title"')"
[ "$stored" -gt 0 ] || fail "episodes --json shows none"
podfresh parse --json "$repo/Feeds/field-recordings.xml" | grep -q '"Harbour at dusk"' || fail "parse --json"
pass "demo feeds: add, refresh twice, list (3 feeds), episodes ($stored), parse: ISO-8859-1, Atom, RSS"

if command -v python3 >/dev/null 2>&1; then
    port_file="$work/port"
    python3 -c '
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
handler.func.log_message = lambda *a: None
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
open(sys.argv[2], "w").write(str(server.server_address[1]))
server.serve_forever()' "$repo/Feeds" "$port_file" &
    server_pid=$!
    for _ in $(seq 50); do [ -s "$port_file" ] && break; sleep 0.1; done
    [ -s "$port_file" ] || fail "the test HTTP server did not start"
    url="http://127.0.0.1:$(cat "$port_file")/night-shift-radio.xml"
    podfresh add --database "$work/http.sqlite" "$url" >"$work/http.log" 2>&1 || fail "add $url: $(cat "$work/http.log")"
    podfresh refresh --database "$work/http.sqlite" --force >>"$work/http.log" 2>&1 ||
        fail "refresh over HTTP: $(cat "$work/http.log")"
    podfresh list --database "$work/http.sqlite" | grep -q "Night Shift Radio" || fail "HTTP feed not listed"
    kill "$server_pid" && wait "$server_pid" 2>/dev/null || true
    server_pid=""
    pass "over HTTP (AsyncHTTPClient and NIO inside the binary): add, refresh --force, list"
else
    echo "note: no python3 to serve the demo feeds over HTTP; the HTTP check is left out"
fi

# MARK: - Man page and completions

manual="$root/usr/share/man/man1/podfresh.1.gz"
LC_ALL=C MANWIDTH=100 MANPAGER=cat PAGER=cat man -l "$manual" >"$work/man.txt" 2>"$work/man.err" ||
    fail "man -l failed: $(cat "$work/man.err")"
[ ! -s "$work/man.err" ] || fail "man -l warned: $(cat "$work/man.err")"
grep -q '^NAME' "$work/man.txt" && grep -q 'podfresh' "$work/man.txt" || fail "the man page has no NAME section"
# Every subcommand and every option that --help shows is in the page.
commands="$(podfresh --help | awk '/^SUBCOMMANDS:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')"
[ "$(wc -l <<<"$commands")" -ge 10 ] || fail "--help lists too few subcommands: $commands"
missing_words=()
for command in "" $commands; do
    for word in $(podfresh $command --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
        grep -q -- "$word" "$work/man.txt" || missing_words+=("${command:-podfresh} $word")
    done
    [ -z "$command" ] || grep -q "$command" "$work/man.txt" || missing_words+=("$command")
done
[ ${#missing_words[@]} -eq 0 ] || fail "the man page lacks what --help shows: ${missing_words[*]}"
pass "man -l renders the page ($(wc -l <"$work/man.txt") lines), with all $(wc -l <<<"$commands") subcommands and their options"

# Tab completion in bash, loaded on demand by bash-completion from the installed file (as when a user presses Tab).
complete_words() {   # the command line so far → what Tab offers, one per line
    "${hide[@]}" "${clean[@]}" "PATH=$root/usr/bin:/usr/bin:/bin" "XDG_DATA_DIRS=$root/usr/share" bash --norc \
        --noprofile -c '
        source /usr/share/bash-completion/bash_completion
        __load_completion podfresh || exit 3
        spec="$(complete -p podfresh)" || exit 4
        function="$(sed -n "s/.* -F \([^ ]*\) .*/\1/p" <<<"$spec")"
        COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}; read -r -a COMP_WORDS <<<"$COMP_LINE"
        [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        "$function" podfresh "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf "%s\n" "${COMPREPLY[@]}"' complete "$1"
}
offered="$(complete_words 'podfresh li')" || fail "bash completion did not load (exit $?)"
grep -qx 'list' <<<"$offered" || fail "Tab after 'podfresh li' offers: $offered"
offered="$(complete_words 'podfresh refresh --jo')"
grep -qx -- '--jobs' <<<"$offered" || fail "Tab after 'podfresh refresh --jo' offers: $offered"
pass "bash completion loads from the package and completes 'li' → list, 'refresh --jo' → --jobs"
for shell in zsh fish; do
    if command -v "$shell" >/dev/null 2>&1; then
        script="$(dpkg-query --root="$root" -L podfresh | grep -E "/(_podfresh|podfresh\.fish)$" | grep "$shell")"
        "$shell" -n "$root$script" || fail "$shell cannot parse $script"
        pass "$shell parses $script"
    fi
done

# MARK: - Removal

# A user's data where podfresh keeps it: the database, and a downloaded episode, in the scratch root.
data="$root/root/.local/share/podfresh"
mkdir -p "$data" "$root/root/Podcasts/Night Shift Radio" "$root/var/lib/podfresh"
cp "$home/.local/share/podfresh/podfresh.sqlite" "$data/"
head -c 100000 /dev/urandom >"$root/root/Podcasts/Night Shift Radio/episode.mp3"
cp "$home/.local/share/podfresh/podfresh.sqlite" "$root/var/lib/podfresh/fleet.sqlite"
(cd "$root" && find root var/lib/podfresh -type f -print0 | xargs -0 sha256sum) >"$work/user-data.sha256"
"${dpkg_root[@]}" -r podfresh >"$work/dpkg-r.log" 2>&1 || fail "dpkg --root -r: $(cat "$work/dpkg-r.log")"
status="$(dpkg-query --root="$root" -W -f '${Status}' podfresh 2>/dev/null || true)"
[ -z "$status" ] || [ "$status" = "unknown ok not-installed" ] || [ "$status" = "deinstall ok not-installed" ] ||
    fail "after dpkg -r, podfresh is: $status"
left="$(cd "$root" && find . -mindepth 1 -not -path './var/lib/dpkg*' -not -path './root*' \
    -not -path './var/lib/podfresh*' -not -path ./var -not -path ./var/lib | sort)"
[ -z "$left" ] || fail "dpkg -r left behind: $left"
(cd "$root" && sha256sum --quiet -c "$work/user-data.sha256") || fail "dpkg -r changed a user's data"
pass "dpkg -r removed all $(wc -l <<<"$installed") paths it installed; the user's database and downloads are untouched"

echo "package test: $checks checks passed in $((SECONDS - started)) s"
