#!/usr/bin/env bash
# Tests install-cron.sh against a fake `crontab` that keeps the table in a file and answers like cron's own
# (`no crontab for USER` on stderr, exit 1, when there is none). FAKE_CRONTAB_BROKEN=1 makes `crontab -l` fail for
# another reason. Prints "N passed, N failed".
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
cat > "$work/bin/crontab" <<FAKE
#!/usr/bin/env bash
table="$work/table"
if [ "\${1:-}" = "-l" ]; then
  if [ -n "\${FAKE_CRONTAB_BROKEN:-}" ]; then echo "crontab: cannot open your crontab: Permission denied" >&2; exit 1; fi
  if [ -f "\$table" ]; then cat "\$table"; else echo "no crontab for \$(id -un)" >&2; exit 1; fi
elif [ "\${1:-}" = "-" ]; then cat > "\$table"; else exit 2; fi
FAKE
chmod +x "$work/bin/crontab"
export PATH="$work/bin:$PATH"
# The user's own settings must not leak into the entries checked below.
unset PODFRESH_DATABASE XDG_DATA_HOME
passed=0; failed=0
check() { if eval "$2"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $1"; fi; }
install() { "$here/install-cron.sh" "$@" >/dev/null 2>"$work/stderr"; }

# MARK: - Installing, replacing, removing

echo "0 3 * * * /usr/bin/backup   # someone else's job" > "$work/table"
install --interval 30 --database "/data/my db.sqlite" --binary /opt/podfresh
install --interval 30 --database "/data/my db.sqlite" --binary /opt/podfresh
check "installing twice leaves one entry" '[ "$(grep -c podfresh-refresh "$work/table")" -eq 1 ]'
check "other jobs are kept" 'grep -q "/usr/bin/backup" "$work/table"'
check "the entry runs refresh --quiet every 30 minutes" 'grep -qF "*/30 * * * * '"'"'/opt/podfresh'"'"' refresh --quiet --database '"'"'/data/my db.sqlite'"'"'" "$work/table"'
install --interval 120 --binary /opt/podfresh --database /data/p.sqlite
check "a new interval replaces the entry" '[ "$(grep -c podfresh-refresh "$work/table")" -eq 1 ] && grep -qF "0 */2 * * *" "$work/table"'
check "--print prints without installing" '[ "$("$here/install-cron.sh" --print --interval 15 --binary /x | grep -c "^\*/15 ")" -eq 1 ] && ! grep -q "\*/15" "$work/table"'
check "a bad interval is a usage error" '! "$here/install-cron.sh" --interval 2 >/dev/null 2>&1'
install --remove
check "--remove removes only podfresh's entry" '! grep -q podfresh-refresh "$work/table" && grep -q "/usr/bin/backup" "$work/table"'

# MARK: - A crontab that cannot be read is never replaced

printf 'MAILTO=me@example.org\n0 3 * * * /usr/bin/backup\n' > "$work/table"
cp "$work/table" "$work/before"
FAKE_CRONTAB_BROKEN=1 install --interval 30 --binary /opt/podfresh; status=$?
check "an unreadable crontab aborts the install" '[ "$status" -ne 0 ] && cmp -s "$work/table" "$work/before"'
check "the abort says why and that nothing changed" 'grep -q "Permission denied" "$work/stderr" && grep -q "nothing was changed" "$work/stderr"'
FAKE_CRONTAB_BROKEN=1 install --remove; status=$?
check "an unreadable crontab aborts --remove too" '[ "$status" -ne 0 ] && cmp -s "$work/table" "$work/before"'
rm -f "$work/table"
install --interval 30 --binary /opt/podfresh --database /data/p.sqlite
check "no crontab yet: the new table holds just the entry" '[ "$(wc -l < "$work/table")" -eq 1 ] && grep -q podfresh-refresh "$work/table"'

# MARK: - The rest of the crontab stays byte for byte

printf '# my jobs\nMAILTO=me@example.org\n\n0 3 * * * /usr/bin/backup\n\n\n# end\n\n' > "$work/table"
cp "$work/table" "$work/before"
install --interval 30 --binary /opt/podfresh --database /data/p.sqlite
check "blank lines and comments are kept" '[ "$(grep -v podfresh-refresh "$work/table")" = "$(cat "$work/before")" ] && [ "$(grep -c "^$" "$work/table")" -eq 4 ]'
install --remove
check "--remove gives back the crontab as it was" 'cmp -s "$work/table" "$work/before"'

# MARK: - Arguments

"$here/install-cron.sh" --help > "$work/help" 2>&1; status=$?
check "--help prints usage, not the script's code" '[ "$status" -eq 0 ] && grep -q "^Usage:" "$work/help" && ! grep -qE "set -euo|MARKER=|^#" "$work/help"'
for option in --interval --database --binary; do
  "$here/install-cron.sh" "$option" > /dev/null 2> "$work/stderr"; status=$?
  check "$option without a value is a usage error that says so" '[ "$status" -eq 64 ] && grep -q -- "$option needs a value" "$work/stderr" && ! grep -q "unbound variable" "$work/stderr"'
done
check "--interval=15 works too" '"$here/install-cron.sh" --print --interval=15 --binary /x --database /d | grep -q "^\*/15 "'

# MARK: - The entry names the database the user's shell would use

entry() { "$here/install-cron.sh" --print --binary /opt/podfresh "$@"; }
check "PODFRESH_DATABASE is written into the entry" '[[ "$(PODFRESH_DATABASE=/srv/pods.sqlite entry)" == *"--database '"'"'/srv/pods.sqlite'"'"'"* ]]'
check "XDG_DATA_HOME is written into the entry" '[[ "$(XDG_DATA_HOME=/xdg entry)" == *"--database '"'"'/xdg/podfresh/podfresh.sqlite'"'"'"* ]]'
check "PODFRESH_DATABASE wins over XDG_DATA_HOME" '[[ "$(XDG_DATA_HOME=/xdg PODFRESH_DATABASE=/srv/p.sqlite entry)" == *"'"'"'/srv/p.sqlite'"'"'"* ]]'
check "a relative XDG_DATA_HOME is ignored, as podfresh does" '[[ "$(HOME=/home/u XDG_DATA_HOME=rel entry)" == *"'"'"'/home/u/.local/share/podfresh/podfresh.sqlite'"'"'"* ]]'
check "without either, the default database is named" '[[ "$(HOME=/home/u entry)" == *"--database '"'"'/home/u/.local/share/podfresh/podfresh.sqlite'"'"'"* ]]'
check "a relative database path is made absolute (cron runs in HOME)" '[[ "$(cd /tmp && PODFRESH_DATABASE=p.sqlite entry)" == *"'"'"'/tmp/p.sqlite'"'"'"* ]] && [[ "$(cd /tmp && entry --database d/p.sqlite)" == *"'"'"'/tmp/d/p.sqlite'"'"'"* ]]'
check "--database wins over the environment" '[[ "$(PODFRESH_DATABASE=/srv/p.sqlite entry --database /a.sqlite)" == *"--database '"'"'/a.sqlite'"'"'"* ]]'
check "a quote in a path stays one argument" '[[ "$(entry --database "/data/it'"'"'s.sqlite")" == *"'"'"'/data/it'"'"'\'"'"''"'"'s.sqlite'"'"'"* ]]'
check "a percent sign is escaped for cron" '[[ "$(entry --database "/data/100%.sqlite")" == *"'"'"'/data/100\\%.sqlite'"'"'"* ]]'

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
