# By hand (hosts/moddable/README.md "The Linux port's sockets"): one app in mcsim in its own
# network namespace (vpsock, only lo), its own Xvfb display (:150), a private /tmp, HOME and
# XDG_CONFIG_HOME (two simulators would share /tmp/modpreferences.json and ~/.config's mc.so);
# then measure.mjs (or $MEASURE) and the pairing probe (unless $NOPROBE) from inside it.
#   sh run.sh <mc.so under $WORK> <label>     WORK=/tmp/sock (a folder of /tmp) holds the photos
#   and gets mcsim-<label>.log, measure-<label>.log, probe-<label>.log. MCAST=1 gives lo multicast
#   (the namespace's only interface) for the mDNS check; ASOUNDRC, the simulator's .asoundrc (the
#   audio capture). Hold /tmp/mcsim.lock around it.
set -e
export MODDABLE="${MODDABLE:-/tmp/moddable}" SO="$1" LABEL="$2" WORK="${WORK:-/tmp/sock}"
export DIR="$(cd "$(dirname "$0")" && pwd)"
/work/shared/tools/netguard >/dev/null
ip netns del vpsock 2>/dev/null || true
ip netns add vpsock && ip -n vpsock link set lo up
if [ -n "$MCAST" ]; then ip -n vpsock link set lo multicast on && ip -n vpsock route add 224.0.0.0/4 dev lo; fi
ip netns exec vpsock unshare -m --propagation private sh -c '
  P=$(mktemp -d); R=${WORK#/tmp/}; mkdir -p $P/$R $P/moddable $P/home
  mount --bind $WORK $P/$R; mount --bind "$MODDABLE" $P/moddable; mount --rbind $P /tmp
  cd /tmp/home
  [ -z "$ASOUNDRC" ] || printf "%s\n" "$ASOUNDRC" > .asoundrc
  export HOME=$PWD XDG_CONFIG_HOME=$PWD DISPLAY=:150
  Xvfb :150 -screen 0 1280x900x24 -nolisten tcp & x=$!; sleep 2
  LOG=$WORK/mcsim-$LABEL.log
  stdbuf -oL -eL /tmp/moddable/build/bin/lin/release/mcsim /tmp/moddable/build/simulators "$SO" > $LOG 2>&1 & m=$!
  for i in $(seq 80); do grep -q "listening on port" $LOG && break; sleep 0.5; done
  cd "$DIR/../../../.."
  ${MEASURE:-node $DIR/measure.mjs} > $WORK/measure-$LABEL.log 2>&1 || true
  [ -n "$NOPROBE" ] || node --import tsx test/kernels/mcsim-pairing.ts 7000 1048576 3939 > $WORK/probe-$LABEL.log 2>&1 || true
  kill $m; kill $x'
ip netns del vpsock
