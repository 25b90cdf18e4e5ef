#!/usr/bin/env bash
# Builds the Debian package podfresh_<version>_<arch>.deb (issue #24) with one release build:
#   - /usr/bin/podfresh: the Swift standard library and Foundation linked in (--static-swift-stdlib; a release
#     build already drops unused sections with --gc-sections), stripped; it needs only what Debian ships (libc,
#     libstdc++, libgcc, libxml2, libsqlite3, zlib), and the script fails when ldd or its RUNPATH still points into
#     a Swift toolchain;
#   - a man page made by swift-argument-parser's own generate-manual tool from the binary's --experimental-dump-help
#     (the same model --help prints, so the two cannot drift), and bash, zsh and fish completions from the binary;
#   - the systemd units of Scripts/systemd (user units and the system worker unit) pointing at /usr/bin/podfresh;
#   - /usr/share/doc/podfresh: copyright (podfresh and every license the binary carries), README.Debian, examples;
#   - Depends computed by dpkg-shlibdeps from the binary itself. No maintainer scripts: removing the package removes
#     its own files and nothing else (never a database, a download or a configuration of yours).
# `podfresh --version` says the version and the commit built from (PodfreshVersion in RootCommand.swift; the
# commit is stamped for this build only), and the package version is that version.
#
#   Scripts/package.sh [--output DIR] [--jobs N]
#
# --output DIR  where the .deb goes (default .build-package/); the package tree is assembled in DIR/root.
# --jobs N      passed to swift build as -j N.
# PODFRESH_COMMIT overrides the commit stamp (e.g. building from a source tarball without .git); PODFRESH_MAINTAINER
# the Maintainer field (default: the author of the commit built). SOURCE_DATE_EPOCH, when set, dates the man page
# (default: the commit's date). Needs swift, git, dpkg-deb, dpkg-shlibdeps (dpkg-dev), strip and readelf (binutils);
# Scripts/test-package.sh installs what is missing. The last line printed is the path of the .deb.
set -euo pipefail
cd "$(dirname "$0")/.."

out=.build-package
jobs=()
while [ $# -gt 0 ]; do
    case "$1" in
    --output) out="${2:?--output needs a folder}"; shift 2 ;;
    --jobs) jobs=(-j "${2:?--jobs needs a number}"); shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "package.sh: unknown argument: $1 (see --help)" >&2; exit 64 ;;
    esac
done
fail() { echo "package.sh: $*" >&2; exit 1; }
for tool in swift dpkg-deb dpkg-shlibdeps strip readelf ldd gzip; do
    command -v "$tool" >/dev/null 2>&1 || fail "$tool is not on PATH (Scripts/test-package.sh installs what is missing)"
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# MARK: - Commit stamp

commit="${PODFRESH_COMMIT:-}"
if [ -z "$commit" ]; then
    if commit="$(git rev-parse --short=12 HEAD 2>/dev/null)"; then
        git diff --quiet HEAD -- 2>/dev/null || commit="$commit-dirty"   # tracked files changed since that commit
    else
        commit=unknown
    fi
fi
[[ "$commit" =~ ^[0-9A-Za-z._+-]+$ ]] || fail "PODFRESH_COMMIT may hold only letters, digits and ._+-: $commit"
stamp=Sources/podfresh/BuildStamp.generated.swift
trap 'rm -f "$stamp"' EXIT
cat >"$stamp" <<EOF
// Written by Scripts/package.sh for its release build, and removed after it (git-ignored). See BuildStamped.
extension PodfreshVersion {
    static var stampedCommit: String? { "$commit" }
}
EOF

# MARK: - The binary

build=(swift build -c release --product podfresh --static-swift-stdlib)
echo "== ${build[*]} ${jobs[*]}   (commit $commit)" >&2
"${build[@]}" "${jobs[@]}" >&2
built="$("${build[@]}" --show-bin-path)/podfresh"
rm -f "$stamp"   # a later plain `swift build` says "commit unknown" again

root="$out/root"
rm -rf "$root"
install -d -m 0755 "$root/DEBIAN" "$root/usr/bin"
install -m 0755 "$built" "$root/usr/bin/podfresh"
strip --strip-all "$root/usr/bin/podfresh"
binary="$root/usr/bin/podfresh"

# Nothing may come from a Swift toolchain: not a library ldd finds, not a RUNPATH.
toolchain="$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")"   # e.g. /opt/swift/usr
libraries="$(ldd "$binary")"
if grep -E "not found|$toolchain|libswift|libFoundation|libdispatch|libBlocksRuntime|lib_Foundation" <<<"$libraries"
then
    fail "the binary still needs a Swift toolchain's libraries (above)"
fi
if readelf -d "$binary" | grep -E 'R(UN)?PATH' | grep -q -e "$toolchain" -e swift; then
    fail "the binary's RUNPATH points into the toolchain: $(readelf -d "$binary" | grep -E 'R(UN)?PATH')"
fi

version_line="$(env -i "$binary" --version)"   # "0.1.0 (commit 3afec98c1d2e)"
version="${version_line%% *}"
[[ "$version" =~ ^[0-9][0-9A-Za-z.+~-]*$ ]] || fail "unexpected --version output: $version_line"
arch="$(dpkg --print-architecture)"
echo "== podfresh $version_line, $arch, $(stat -c %s "$binary") bytes stripped" >&2

# MARK: - Man page and completions

# The generate-manual tool of the swift-argument-parser this package resolved, built once in its own scratch folder.
parser=.build/checkouts/swift-argument-parser
[ -f "$parser/Package.swift" ] || fail "$parser is missing (it appears with the first swift build)"
manual_build=(swift build --package-path "$parser" --scratch-path .build-manual --product generate-manual)
echo "== ${manual_build[*]}" >&2
"${manual_build[@]}" "${jobs[@]}" >"$out/generate-manual-build.log" 2>&1 ||
    { tail -n 40 "$out/generate-manual-build.log" >&2; fail "building generate-manual failed (above)"; }
generate_manual="$("${manual_build[@]}" --show-bin-path)/generate-manual"
epoch="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
manual="$out/manual"
rm -rf "$manual" && mkdir -p "$manual"
"$generate_manual" "$binary" --date "$(date -u -d "@$epoch" +%F)" --section 1 --output-directory "$manual" >&2
[ -s "$manual/podfresh.1" ] || fail "generate-manual wrote no podfresh.1"
install -d -m 0755 "$root/usr/share/man/man1"
# A blank line in a discussion becomes a blank input line, which mdoc warns about: make it the paragraph break it is.
sed 's/^$/.Pp/' "$manual/podfresh.1" | gzip -9 -n >"$root/usr/share/man/man1/podfresh.1.gz"

install -d -m 0755 "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"
env -i "$binary" --generate-completion-script bash >"$root/usr/share/bash-completion/completions/podfresh"
env -i "$binary" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_podfresh"
env -i "$binary" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/podfresh.fish"

# MARK: - systemd units, documentation, examples

install -d -m 0755 "$root/usr/lib/systemd/user" "$root/usr/lib/systemd/system"
place_unit() {   # unit, folder: the unit with its ExecStart pointing at the packaged binary
    sed -e 's#%h/\.local/bin/podfresh#/usr/bin/podfresh#g' -e 's#/usr/local/bin/podfresh#/usr/bin/podfresh#g' \
        "Scripts/systemd/$1" >"$2/$1"
    if grep '^ExecStart=' "$2/$1" | grep -v -q '^ExecStart=/usr/bin/podfresh '; then
        fail "$1: an ExecStart that is not /usr/bin/podfresh"
    fi
}
for unit in podfresh-refresh.service podfresh-refresh.timer podfresh-watch.service; do
    place_unit "$unit" "$root/usr/lib/systemd/user"
done
place_unit podfresh-worker@.service "$root/usr/lib/systemd/system"

doc="$root/usr/share/doc/podfresh"
install -d -m 0755 "$doc/examples"
install -m 0644 Scripts/packaging/README.Debian "$doc/README.Debian"
install -m 0644 Scripts/packaging/fleet.env "$doc/examples/fleet.env"

# The copyright file: podfresh's own notice, then every license the static binary carries: the Swift runtime and
# Foundation of the toolchain, and the LICENSE/NOTICE files of each Swift package this build resolved (the binary
# holds those of their modules it uses), each distinct text once.
{
    cat Scripts/packaging/copyright.head
    echo
    echo "The binary /usr/bin/podfresh also contains, linked in statically:"
    echo " - the Swift $(swift --version 2>/dev/null | grep -o 'Swift version [^ ]*' | cut -d' ' -f3) standard" \
        "library, Foundation, Dispatch and BlocksRuntime: Apache License 2.0 with Runtime Library Exception (text below);"
    echo " - ICU, inside Foundation (swift-foundation-icu): Unicode License V3, https://www.unicode.org/license.txt;"
    for checkout in .build/checkouts/*/; do
        name="$(basename "$checkout")"
        tag="$(git -C "$checkout" describe --tags --exact-match 2>/dev/null || git -C "$checkout" rev-parse --short HEAD)"
        url="$(sed -n "s#^ *\"location\" : \"\(.*/$name\)\(\.git\)\{0,1\}\",\$#\1#p" Package.resolved 2>/dev/null | head -n 1)"
        echo " - $name $tag${url:+ ($url)}"
    done
    echo
    echo "Their license and notice files follow, each distinct text once, headed by the packages that carry it."
    toolchain_license="$toolchain/share/swift/LICENSE.txt"
    {
        [ -f "$toolchain_license" ] && printf '%s\t%s\n' "the Swift toolchain" "$toolchain_license"
        for checkout in .build/checkouts/*/; do
            find "$checkout" -path "${checkout}.git" -prune -o -path "${checkout}Tests" -prune -o -type f \
                \( -iname 'LICENSE*' -o -iname 'NOTICE*' -o -iname 'COPYING*' \) ! -name '*.swift' ! -name '*.[ch]' \
                ! -name '*.cc' -print |
                sed "s#^#$(basename "$checkout")\t#"
        done
    } | while IFS=$'\t' read -r owner file; do
        printf '%s\t%s\t%s\n' "$(sha256sum <"$file" | cut -c1-64)" "$owner" "$file"
    done | sort -k1,1 -k2,2 | awk -F'\t' '
        $1 != last { if (last != "") print names "\t" path; last = $1; names = $2; path = $3; next }
        { if (index(" " names ",", " " $2 ",") == 0) names = names ", " $2 }
        END { if (last != "") print names "\t" path }' |
        while IFS=$'\t' read -r names file; do
            printf '\n%s\n%s: %s\n\n' "----------------------------------------------------------------------" \
                "$names" "${file#.build/checkouts/}"
            cat "$file"
        done
} >"$doc/copyright"

# MARK: - Control file and the package

shlibs="$(mktemp -d)"
mkdir "$shlibs/debian"
printf 'Source: podfresh\n\nPackage: podfresh\nArchitecture: any\n' >"$shlibs/debian/control"
depends="$(cd "$shlibs" && dpkg-shlibdeps -O -e"$binary" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')"
rm -rf "$shlibs"
[ -n "$depends" ] || fail "dpkg-shlibdeps found no dependencies"
maintainer="${PODFRESH_MAINTAINER:-$(git log -1 --format='%an <%ae>' 2>/dev/null || echo 'podfresh maintainers <podfresh@localhost>')}"

find "$root" -type d -exec chmod 0755 {} +
find "$root/usr" -type f -exec chmod 0644 {} +
chmod 0755 "$binary"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"
cat >"$root/DEBIAN/control" <<EOF
Package: podfresh
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Recommends: ca-certificates
Section: net
Priority: optional
Homepage: https://github.com/podfresh/podfresh
Description: keeps podcast subscriptions fresh
 podfresh fetches every subscribed RSS/Atom feed concurrently (conditional
 GET, gzip, per-host politeness), parses it while it downloads, merges the
 episodes into a local SQLite store, and tells you what is new: as a one-shot
 "podfresh refresh", a long-running "podfresh watch", or a cron job that stays
 silent unless something happened. It can download episodes (complete or
 absent, resumed after a crash) and run as a fleet of workers on one shared
 PostgreSQL database.
 .
 The binary carries the Swift runtime and Foundation and needs no Swift
 toolchain. Built from commit $commit.
EOF
chmod 0644 "$root/DEBIAN/control"

deb="$out/podfresh_${version}_${arch}.deb"
rm -f "$deb"
SOURCE_DATE_EPOCH="$epoch" dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >&2
echo "== $(stat -c %s "$deb") bytes; Depends: $depends" >&2
echo "$deb"
