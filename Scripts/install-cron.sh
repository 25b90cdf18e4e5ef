#!/usr/bin/env bash
# Adds (or replaces) one crontab entry that runs `podfresh refresh --quiet`, so cron mails you only when there are
# new episodes or errors. Idempotent: running it again replaces podfresh's entry and leaves every other line alone.
#
#   Scripts/install-cron.sh [--interval MINUTES] [--database PATH] [--binary PATH]   install or update, print the entry
#   Scripts/install-cron.sh --print [...]                                           print the entry only
#   Scripts/install-cron.sh --remove                                                remove podfresh's entry
set -euo pipefail
MARKER="# podfresh-refresh (managed by install-cron.sh)"
interval=30
database=""
binary="$(command -v podfresh || echo "$HOME/.local/bin/podfresh")"
mode=install
while [ $# -gt 0 ]; do
  case "$1" in
    --interval) interval="$2"; shift 2 ;;
    --database) database="$2"; shift 2 ;;
    --binary) binary="$2"; shift 2 ;;
    --print) mode=print; shift ;;
    --remove) mode=remove; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "install-cron.sh: unknown argument $1 (see --help)" >&2; exit 64 ;;
  esac
done
case "$interval" in ''|*[!0-9]*) echo "install-cron.sh: --interval takes whole minutes" >&2; exit 64 ;; esac
if [ "$interval" -lt 5 ] || [ "$interval" -gt 1440 ]; then
  echo "install-cron.sh: --interval must be between 5 and 1440 minutes" >&2; exit 64
fi
if [ "$interval" -lt 60 ]; then
  schedule="*/$interval * * * *"
elif [ $((interval % 60)) -eq 0 ] && [ $((interval / 60)) -lt 24 ]; then
  schedule="0 */$((interval / 60)) * * *"
elif [ "$interval" -eq 1440 ]; then
  schedule="0 6 * * *"
else
  echo "install-cron.sh: intervals of an hour or more must be whole hours" >&2; exit 64
fi
quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
command_line="$(quote "$binary") refresh --quiet"
[ -n "$database" ] && command_line="$command_line --database $(quote "$database")"
entry="$schedule $command_line $MARKER"

if [ "$mode" = print ]; then echo "$entry"; exit 0; fi
if ! command -v crontab >/dev/null 2>&1; then
  echo "install-cron.sh: no crontab command here; install cron (Debian: apt-get install cron) or use the systemd timer in Scripts/systemd/" >&2
  echo "the entry would be: $entry" >&2
  exit 69
fi
current="$(crontab -l 2>/dev/null || true)"
kept="$(printf '%s\n' "$current" | grep -vF "$MARKER" || true)"
if [ "$mode" = remove ]; then
  printf '%s\n' "$kept" | sed '/^$/d' | crontab -
  echo "removed podfresh's crontab entry"
  exit 0
fi
{ printf '%s\n' "$kept" | sed '/^$/d'; echo "$entry"; } | crontab -
echo "$entry"
