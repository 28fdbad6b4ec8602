# A private avahi-daemon for a test script, sourced after `iface` is set (`. private-avahi.sh`).
# Runs only inside the test's own network namespace and, by the caller's unshare -m, a mount
# namespace of its own: /run becomes a fresh tmpfs, so the system bus and avahi's socket are
# private and the machine's own are untouched. The daemon listens on $iface only, IPv4 only, and
# publishes nothing unless the caller set avahi_publish=yes (then it publishes what its clients
# register, on the host name $avahi_host_name). Returns once it answers on the bus (bounded:
# 10 s); its bus and daemon are stopped when the script exits.

mount --make-rprivate /
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/dbus /run/avahi-daemon
work=$(mktemp -d)
cat > "$work/avahi-daemon.conf" <<CONF
[server]
use-ipv4=yes
use-ipv6=no
allow-interfaces=$iface
enable-dbus=yes
disallow-other-stacks=no
${avahi_host_name:+host-name=$avahi_host_name}
[wide-area]
enable-wide-area=no
[publish]
disable-publishing=$([ "${avahi_publish:-no}" = yes ] && echo no || echo yes)
[reflector]
[rlimits]
CONF

bus=$(dbus-daemon --system --fork --nopidfile --print-pid)
# The private bus, for avahi and for whatever runs beside it (the test's namespaces point
# DBUS_SYSTEM_BUS_ADDRESS nowhere, so nothing reaches the machine's own bus).
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket
# start_avahi: the daemon started (again), its pid in $daemon.
start_avahi() {
  avahi-daemon -f "$work/avahi-daemon.conf" --no-drop-root --no-chroot --no-rlimits 2>> "$work/avahi.log" &
  daemon=$!
}
start_avahi
cleanup() {
  kill "$daemon" "$bus" 2>/dev/null || true
  pkill -P $$ 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

tries=0
until avahi-browse -a -t -p >/dev/null 2>&1; do
  tries=$((tries + 1))
  if [ "$tries" -ge 100 ]; then
    echo "avahi-daemon did not come up:" >&2
    cat "$work/avahi.log" >&2
    exit 1
  fi
  sleep 0.1
done
