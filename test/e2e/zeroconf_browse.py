#!/usr/bin/python3
"""A DNS-SD browser for the discovery end-to-end test, on python-zeroconf (Debian's python3-zeroconf).

Browses the given service types, resolves every instance it sees and prints one JSON object per
line on stdout:

  {"event": "resolved", "type": "_raop._tcp.local.", "name": "...", "instance": "...",
   "port": 7000, "server": "host.local.", "addresses": ["10.0.0.1"], "txt": [["key", "value"], ...]}
  {"event": "ready"}      every --expect type has a resolved instance
  {"event": "updated", ...same fields...}   an instance's records changed (TXT, after --watch)
  {"event": "removed", "type": "...", "name": "...", "instance": "..."}
  {"event": "server-info", "url": "http://...", "status": 200, "plist": {...}}   with --server-info TYPE
  {"event": "timeout", "missing": [...]}   --timeout passed before every type resolved

TXT pairs keep the order and spelling of the record on the wire (parsed from the raw TXT bytes).
--server-info TYPE does what a sender does next: GET /server-info from the first address and port
the TYPE instance resolved to, parsed with plistlib (integers as decimal strings, so 64-bit
feature masks survive JSON; data as hex).
Without --watch it exits after "ready"; with --watch SECONDS it goes on reporting updates and
removals for that long (or until killed). Runs only inside the test's network namespaces.
"""

import argparse
import json
import plistlib
import queue
import sys
import time
import urllib.request

from zeroconf import IPVersion, ServiceBrowser, ServiceStateChange, Zeroconf


def txt_pairs(text):
    """RFC 6763 6: a TXT record is length-prefixed strings, each key=value (or a bare key)."""
    pairs = []
    offset = 0
    while offset < len(text):
        length = text[offset]
        entry = text[offset + 1 : offset + 1 + length]
        offset += 1 + length
        if not entry:
            continue
        key, sep, value = entry.partition(b"=")
        pairs.append([key.decode("utf-8", "replace"), value.decode("utf-8", "replace") if sep else None])
    return pairs


def instance_of(name, type_):
    return name[: -len(type_) - 1] if name.endswith("." + type_) else name


def emit(record):
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def json_safe(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_safe(item) for item in value]
    return value if isinstance(value, (str, float)) else str(value)


def fetch_server_info(record):
    url = None
    try:
        url = "http://%s:%d/server-info" % (record["addresses"][0], record["port"])
        # No proxy, whatever the environment says: the receiver is on the link, nowhere else.
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(url, timeout=3) as response:
            emit({"event": "server-info", "url": url, "status": response.status,
                  "plist": json_safe(plistlib.loads(response.read()))})
    except Exception as error:  # reported, not raised: the test names what went wrong
        emit({"event": "server-info", "url": url, "error": repr(error)})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("types", nargs="+", help="service types, e.g. _raop._tcp.local.")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds to wait for every type to resolve")
    parser.add_argument("--watch", type=float, default=0.0, help="seconds to keep reporting changes after ready")
    parser.add_argument("--server-info", metavar="TYPE", help="after ready, GET /server-info from this type's instance")
    args = parser.parse_args()

    zc = Zeroconf(ip_version=IPVersion.V4Only)
    changes = queue.Queue()

    def on_change(zeroconf, service_type, name, state_change):
        # Called on the browser's thread: hand over to the main thread, which may block resolving.
        changes.put((service_type, name, state_change))

    browser = ServiceBrowser(zc, args.types, handlers=[on_change])
    resolved_types = set()
    first_resolved = {}
    ready = False
    start = time.monotonic()
    deadline = start + args.timeout
    try:
        while True:
            now = time.monotonic()
            if now >= deadline:
                if not ready:
                    emit({"event": "timeout", "missing": sorted(set(args.types) - resolved_types)})
                    return 1
                return 0
            try:
                service_type, name, state_change = changes.get(timeout=min(0.2, deadline - now))
            except queue.Empty:
                continue
            instance = instance_of(name, service_type)
            if state_change is ServiceStateChange.Removed:
                emit({"event": "removed", "type": service_type, "name": name, "instance": instance})
                continue
            info = zc.get_service_info(service_type, name, timeout=3000)
            if info is None:
                emit({"event": "unresolved", "type": service_type, "name": name, "instance": instance})
                continue
            record = {
                "event": "resolved" if state_change is ServiceStateChange.Added else "updated",
                "type": service_type,
                "name": name,
                "instance": instance,
                "port": info.port,
                "server": info.server,
                "addresses": info.parsed_addresses(),
                "txt": txt_pairs(info.text or b""),
            }
            emit(record)
            resolved_types.add(service_type)
            first_resolved.setdefault(service_type, record)
            if not ready and resolved_types >= set(args.types):
                ready = True
                if args.server_info in first_resolved:
                    fetch_server_info(first_resolved[args.server_info])
                emit({"event": "ready"})
                if args.watch <= 0:
                    return 0
                deadline = time.monotonic() + args.watch
    finally:
        browser.cancel()
        zc.close()


if __name__ == "__main__":
    sys.exit(main())
