#!/bin/sh
# Resolves DNS-SD service types with avahi (Debian's avahi-daemon and avahi-browse) in rounds, for
# test/host/mdns-responder.test.ts: one round now, another each time a line arrives on stdin, all
# with the same daemon (so a later round shows what its cache learnt, e.g. a changed TXT record).
#
#   ip netns exec NS unshare -m sh avahi_rounds.sh IFACE SECONDS TYPE...
#
# Runs only inside the test's own network namespace, in a mount namespace of its own (unshare -m):
# /run is a fresh tmpfs, so the system bus and avahi's socket are private and the machine's own
# are untouched. The daemon publishes nothing and listens on IFACE only, IPv4 only.
#
# Each round prints avahi-browse's parsable lines for every resolved instance
# (`=;iface;IPv4;name;type;domain;host;address;port;"txt"...`), then `round N done` (or
# `round N incomplete` when a TYPE did not resolve within SECONDS).
set -eu

iface=$1
seconds=$2
shift 2

. "$(dirname "$0")/../support/private-avahi.sh"

round=1
while :; do
  for type in "$@"; do
    out="$work/$round.$(echo "$type" | tr -c 'a-zA-Z0-9\n' _).out"
    timeout "$seconds" avahi-browse -r -p -k "$type" > "$out" 2>> "$work/browse.log" &
  done
  deadline=$(( $(date +%s) + seconds ))
  status=done
  while :; do
    missing=0
    for type in "$@"; do
      grep -q '^=' "$work/$round.$(echo "$type" | tr -c 'a-zA-Z0-9\n' _).out" 2>/dev/null || missing=1
    done
    [ "$missing" -eq 0 ] && break
    if [ "$(date +%s)" -ge "$deadline" ]; then
      status=incomplete
      cat "$work/browse.log" "$work/avahi.log" >&2
      break
    fi
    sleep 0.2
  done
  pkill -P $$ avahi-browse 2>/dev/null || true
  for type in "$@"; do
    grep '^=' "$work/$round.$(echo "$type" | tr -c 'a-zA-Z0-9\n' _).out" 2>/dev/null || true
  done
  echo "round $round $status"
  read -r _ || break
  round=$((round + 1))
done
