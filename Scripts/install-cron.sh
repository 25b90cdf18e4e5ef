#!/usr/bin/env bash
# Adds (or replaces) one crontab entry that runs `podfresh refresh --quiet`, so cron mails you only when there are
# new episodes or errors. Idempotent: running it again replaces podfresh's entry and leaves every other line of the
# crontab exactly as it was (comments and blank lines included). If the current crontab cannot be read for any
# reason other than "there is none yet", it changes nothing and exits 1.
set -euo pipefail
MARKER="# podfresh-refresh (managed by install-cron.sh)"

usage() {
  cat <<'USAGE'
Usage: install-cron.sh [--interval MINUTES] [--database PATH] [--binary PATH]   install or update; prints the entry
       install-cron.sh --print [--interval MINUTES] [--database PATH] [--binary PATH]   print the entry only
       install-cron.sh --remove                                           remove podfresh's entry

Adds one crontab entry running `podfresh refresh --quiet` (cron mails its output: new episodes and errors only).
Running it again replaces that entry; every other line of your crontab is kept as it is.

  --interval MINUTES  5-59, or whole hours up to 1440 (default 5: the schedule puts checks minutes after the times each show publishes at)
  --database PATH     the database cron should use (default: the one your shell uses now:
                      $PODFRESH_DATABASE, else $XDG_DATA_HOME/podfresh/podfresh.sqlite,
                      else ~/.local/share/podfresh/podfresh.sqlite); always written into the entry
  --binary PATH       the podfresh executable (default: podfresh on PATH, else ~/.local/bin/podfresh)

Exit status: 0 done, 1 the crontab could not be read or written (nothing was changed), 64 usage error,
69 no crontab command.
USAGE
}

fail_usage() { echo "install-cron.sh: $1 (see --help)" >&2; exit 64; }

# An absolute path: cron runs jobs in $HOME, so a path relative to here would name another file there.
absolute() {
  case "$1" in
    /*) printf '%s' "$1" ;;
    "~") printf '%s' "$HOME" ;;
    "~/"*) printf '%s' "$HOME/${1#\~/}" ;;
    *) printf '%s' "$PWD/$1" ;;
  esac
}

interval=5
database=""
binary=""
mode=install
while [ $# -gt 0 ]; do
  option="$1"
  case "$option" in
    --interval=*|--database=*|--binary=*) value="${option#*=}"; option="${option%%=*}"; shift ;;
    --interval|--database|--binary)
      [ $# -ge 2 ] || fail_usage "$option needs a value"
      value="$2"; shift 2 ;;
    --print) mode=print; shift; continue ;;
    --remove) mode=remove; shift; continue ;;
    -h|--help) usage; exit 0 ;;
    *) fail_usage "unknown argument $option" ;;
  esac
  [ -n "$value" ] || fail_usage "$option needs a value"
  case "$option" in
    --interval) interval="$value" ;;
    --database) database="$value" ;;
    --binary) binary="$value" ;;
  esac
done

case "$interval" in ''|*[!0-9]*) fail_usage "--interval takes whole minutes" ;; esac
interval=$((10#$interval))
if [ "$interval" -lt 5 ] || [ "$interval" -gt 1440 ]; then
  fail_usage "--interval must be between 5 and 1440 minutes"
fi
if [ "$interval" -lt 60 ]; then
  schedule="*/$interval * * * *"
elif [ $((interval % 60)) -eq 0 ] && [ $((interval / 60)) -lt 24 ]; then
  schedule="0 */$((interval / 60)) * * *"
elif [ "$interval" -eq 1440 ]; then
  schedule="0 6 * * *"
else
  fail_usage "intervals of an hour or more must be whole hours"
fi

# The database podfresh would use in this shell (the order of `DatabaseLocation.resolve`). cron's environment has
# neither PODFRESH_DATABASE nor XDG_DATA_HOME, so the entry always names the database explicitly.
if [ -z "$database" ]; then
  if [ -n "${PODFRESH_DATABASE:-}" ]; then
    database="$PODFRESH_DATABASE"
  elif [[ "${XDG_DATA_HOME:-}" == /* ]]; then
    database="$XDG_DATA_HOME/podfresh/podfresh.sqlite"
  else
    database="$HOME/.local/share/podfresh/podfresh.sqlite"
  fi
fi
database="$(absolute "$database")"
if [ -z "$binary" ]; then binary="$(command -v podfresh || echo "$HOME/.local/bin/podfresh")"; fi
binary="$(absolute "$binary")"

# Single-quoted for /bin/sh; `%` escaped as `\%`, because cron turns a bare `%` into a newline (and drops the
# backslash before handing the line to the shell).
quote() { local text="${1//\'/\'\\\'\'}"; printf "'%s'" "${text//%/\\%}"; }
entry="$schedule $(quote "$binary") refresh --quiet --database $(quote "$database") $MARKER"

if [ "$mode" = print ]; then echo "$entry"; exit 0; fi
if ! command -v crontab >/dev/null 2>&1; then
  echo "install-cron.sh: no crontab command here; install cron (Debian: apt-get install cron) or use the systemd timer in Scripts/systemd/" >&2
  echo "the entry would be: $entry" >&2
  exit 69
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Read the current crontab into a file (command substitution would drop trailing blank lines). "no crontab for USER"
# means there is none yet; any other failure (permissions, a broken spool, PAM) aborts before anything is written,
# because installing now would replace the user's jobs with podfresh's line alone.
if ! LC_ALL=C crontab -l >"$work/current" 2>"$work/error"; then
  if grep -qi "no crontab for" "$work/error"; then
    : >"$work/current"
  else
    echo "install-cron.sh: cannot read the current crontab, so nothing was changed:" >&2
    sed 's/^/  /' "$work/error" >&2
    exit 1
  fi
fi
grep -vF "$MARKER" "$work/current" >"$work/new" || true
# A last line without a newline would otherwise run into the entry.
if [ -s "$work/new" ] && [ -n "$(tail -c 1 "$work/new")" ]; then echo >>"$work/new"; fi
if [ "$mode" = install ]; then echo "$entry" >>"$work/new"; fi
if ! crontab - <"$work/new"; then
  echo "install-cron.sh: crontab refused the new table; your crontab is as it was" >&2
  exit 1
fi
if [ "$mode" = remove ]; then echo "removed podfresh's crontab entry"; else echo "$entry"; fi
