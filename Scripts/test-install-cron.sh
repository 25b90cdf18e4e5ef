#!/usr/bin/env bash
# Tests install-cron.sh against a fake `crontab` that keeps the table in a file. Prints "N passed, N failed".
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
cat > "$work/bin/crontab" <<FAKE
#!/usr/bin/env bash
table="$work/table"
if [ "\${1:-}" = "-l" ]; then [ -f "\$table" ] && cat "\$table" || exit 1; elif [ "\${1:-}" = "-" ]; then cat > "\$table"; else exit 2; fi
FAKE
chmod +x "$work/bin/crontab"
export PATH="$work/bin:$PATH"
passed=0; failed=0
check() { if eval "$2"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $1"; fi; }

echo "0 3 * * * /usr/bin/backup   # someone else's job" > "$work/table"
"$here/install-cron.sh" --interval 30 --database "/data/my db.sqlite" --binary /opt/podfresh >/dev/null
"$here/install-cron.sh" --interval 30 --database "/data/my db.sqlite" --binary /opt/podfresh >/dev/null
check "installing twice leaves one entry" '[ "$(grep -c podfresh-refresh "$work/table")" -eq 1 ]'
check "other jobs are kept" 'grep -q "/usr/bin/backup" "$work/table"'
check "the entry runs refresh --quiet every 30 minutes" 'grep -qF "*/30 * * * * '"'"'/opt/podfresh'"'"' refresh --quiet --database '"'"'/data/my db.sqlite'"'"'" "$work/table"'
"$here/install-cron.sh" --interval 120 --binary /opt/podfresh >/dev/null
check "a new interval replaces the entry" '[ "$(grep -c podfresh-refresh "$work/table")" -eq 1 ] && grep -qF "0 */2 * * *" "$work/table"'
check "--print prints without installing" '[ "$("$here/install-cron.sh" --print --interval 15 --binary /x | grep -c "^\*/15 ")" -eq 1 ] && ! grep -q "\*/15" "$work/table"'
check "a bad interval is a usage error" '! "$here/install-cron.sh" --interval 2 >/dev/null 2>&1'
"$here/install-cron.sh" --remove >/dev/null
check "--remove removes only podfresh's entry" '! grep -q podfresh-refresh "$work/table" && grep -q "/usr/bin/backup" "$work/table"'
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
