#!/bin/sh
# Writes OUTDIR/GitCommit.swift naming the commit of the git checkout PACKAGEDIR (see GitCommitStamp.swift):
#   stamp.sh PACKAGEDIR OUTDIR
# Outside a git checkout (a tarball), or when git is missing, the commit is nil and --version says "unknown".
package="$1"
out="$2"
mkdir -p "$out"
commit=nil
# Only the package's own checkout: a tarball unpacked inside another repository must not take that one's commit.
top="$(git -C "$package" rev-parse --show-toplevel 2>/dev/null)"
if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(cd "$package" && pwd -P)" ]; then
    if hash="$(git -C "$package" rev-parse --short=12 HEAD 2>/dev/null)"; then
        git -C "$package" diff --quiet HEAD -- 2>/dev/null || hash="$hash-dirty"
        commit="\"$hash\""
    fi
fi
text="// Written by Plugins/GitCommitStamp/stamp.sh before each build. See GitCommitStamp.swift.
enum GitCheckout {
    static let commit: String? = $commit
}"
file="$out/GitCommit.swift"
if [ ! -f "$file" ] || [ "$(cat "$file")" != "$text" ]; then
    printf '%s\n' "$text" >"$file.tmp" && mv "$file.tmp" "$file"
fi
