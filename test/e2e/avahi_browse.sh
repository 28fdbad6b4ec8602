#!/bin/sh
# Browses DNS-SD service types with avahi (Debian's avahi-daemon and avahi-browse), a browser
# nobody here wrote, for the default-start end-to-end test.
#
#   ip netns exec NS unshare -m sh avahi_browse.sh IFACE SECONDS TYPE...
#
# Runs only inside the test's own network namespace (IFACE is its veth) and, by unshare -m, in a
# mount namespace of its own: /run is a fresh tmpfs there, so the system bus and avahi's socket
# are private and the machine's own /run/dbus and avahi (if any) are untouched. The daemon
# publishes nothing (disable-publishing), listens on IFACE only, IPv4 only.
#
# Prints avahi-browse's parsable lines (`=;iface;IPv4;name;type;domain;host;address;port;"txt"...`
# for each resolved instance) for every TYPE, then exits after SECONDS (or once each TYPE has
# resolved). Exit status 0 when every TYPE resolved, 1 otherwise; what went wrong on stderr.
set -eu

iface=$1
seconds=$2
shift 2

. "$(dirname "$0")/../support/private-avahi.sh"

status=0
for type in "$@"; do
  out="$work/$(echo "$type" | tr -c 'a-zA-Z0-9\n' _).out"
  # -r resolves each instance, -p parsable, -k no type-name lookups; it runs until killed.
  timeout "$seconds" avahi-browse -r -p -k "$type" > "$out" 2>> "$work/browse.log" &
done
deadline=$(( $(date +%s) + seconds ))
while :; do
  missing=0
  for type in "$@"; do
    out="$work/$(echo "$type" | tr -c 'a-zA-Z0-9\n' _).out"
    grep -q '^=' "$out" 2>/dev/null || missing=1
  done
  [ "$missing" -eq 0 ] && break
  if [ "$(date +%s)" -ge "$deadline" ]; then
    status=1
    break
  fi
  sleep 0.2
done
for type in "$@"; do
  out="$work/$(echo "$type" | tr -c 'a-zA-Z0-9\n' _).out"
  if grep '^=' "$out" 2>/dev/null; then :; else
    echo "avahi-browse resolved no $type" >&2
    status=1
  fi
done
[ "$status" -eq 0 ] || { cat "$work/browse.log" "$work/avahi.log" >&2; }
exit "$status"
