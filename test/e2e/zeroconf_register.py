#!/usr/bin/python3
"""Publishes one DNS-SD service with python-zeroconf (Debian's python3-zeroconf), for the
discovery-beside-avahi test: another host on the link that already has the receiver's name.

  zeroconf_register.py INSTANCE_FQDN TYPE ADDRESS PORT

Prints "registered" once probed and announced, answers for the service until SIGTERM, then says
goodbye. Runs only inside the test's network namespaces.
"""

import signal
import socket
import sys
import threading

from zeroconf import IPVersion, ServiceInfo, Zeroconf


def main():
    name, type_, address, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    zc = Zeroconf(ip_version=IPVersion.V4Only)
    info = ServiceInfo(type_, name, addresses=[socket.inet_aton(address)], port=port,
                       properties={"squatter": "1"}, server="squatter.local.")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    zc.register_service(info, allow_name_change=False)
    print("registered", flush=True)
    stop.wait()
    zc.unregister_service(info)
    zc.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
