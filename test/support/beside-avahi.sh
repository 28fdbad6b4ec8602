#!/bin/sh
# Runs a command beside a private avahi-daemon that publishes, as on a desktop where avahi runs:
#
#   ip netns exec NS unshare -m sh beside-avahi.sh IFACE HOSTNAME COMMAND [ARG...]
#
# Only inside the test's own network namespace (IFACE is its veth) and, by unshare -m, a mount
# namespace of its own (private-avahi.sh: a fresh /run, so the system bus the command finds is
# the private one). avahi publishes on IFACE only, on the host name HOSTNAME.local. SIGTERM,
# SIGINT and SIGUSR2 are passed on to the command; its exit status is this script's; avahi and
# the bus stop with the script. SIGHUP restarts avahi-daemon (stopped, then started again, as a
# package upgrade does).
set -eu

iface=$1
avahi_host_name=$2
avahi_publish=yes
shift 2

. "$(dirname "$0")/private-avahi.sh"

"$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null || true' TERM
trap 'kill -INT "$child" 2>/dev/null || true' INT
trap 'kill -USR2 "$child" 2>/dev/null || true' USR2
trap 'kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; start_avahi' HUP
# A trapped signal ends `wait` early; wait again until the command itself has ended.
status=0
while kill -0 "$child" 2>/dev/null; do
  wait "$child" && status=0 || status=$?
done
exit "$status"
