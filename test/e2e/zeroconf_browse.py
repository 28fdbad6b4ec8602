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

With --unicast ADDRESS it browses nothing by multicast: it asks ADDRESS:5353 directly, as a
sender's "scan this host" does (RFC 6762 5.5, 6.7), and prints per type
  {"event": "unicast-resolved", "type": ..., "instance": ..., "port": ..., "server": ...,
   "addresses": [...], "txt": [...], "source_port": ..., "ids_echoed": true,
   "questions_echoed": true, "max_ttl": 10, "cache_flush": false,
   "ptr_reply": {"size": 478, "truncated": false, "records": ["PTR _x._tcp.local.", "TXT ...", ...]}}
(ptr_reply: the reply to the PTR question alone, as one packet: what a sender that asks only
that, like pyatv's --scan-hosts, has to go on)
or {"event": "unicast-unanswered", "type": ..., "question": ..., "source_port": ...}.
The queries go from an ephemeral port (legacy unicast) or, with --from-5353 BIND_ADDRESS, from
BIND_ADDRESS:5353 with the QU bit set; records are parsed by python-zeroconf's DNSIncoming.

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

import random
import socket

from zeroconf import DNSIncoming, DNSOutgoing, DNSQuestion, IPVersion, ServiceBrowser, ServiceStateChange, Zeroconf
from zeroconf.const import _CLASS_IN, _FLAGS_QR_QUERY, _TYPE_A, _TYPE_PTR, _TYPE_SRV, _TYPE_TXT, _TYPES

# How many times a unicast question is asked before it counts as unanswered (two seconds each).
ASK_ATTEMPTS = 3


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


class UnicastAsker:
    """Direct queries to one address; each reply parsed by python-zeroconf."""

    def __init__(self, address, bind_5353):
        self.address = address
        self.qu = bind_5353 is not None
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        if bind_5353 is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.sock.bind((bind_5353, 5353))
        self.sock.settimeout(2.0)
        self.source_port = self.sock.getsockname()[1] if bind_5353 is not None else None
        self.ids_echoed = True
        self.sent_ids = []
        self.questions_echoed = True
        self.max_ttl = 0
        self.cache_flush = False
        # The last reply as it came: its size in bytes, its TC bit, and every record it held
        # (answers and additionals) as "TYPE name", for checking what one packet carries.
        self.last_size = 0
        self.last_truncated = False
        self.last_records = []

    def ask(self, name, type_):
        # As a DNS client does, the question goes again when no answer came: a responder on a
        # busy machine (the test suite beside it) may take longer than one wait.
        for _ in range(ASK_ATTEMPTS):
            records = self.ask_once(name, type_)
            if records is not None:
                return records
        return None

    def ask_once(self, name, type_):
        query_id = random.randint(1, 0xFFFF)
        earlier_ids = set(self.sent_ids)
        self.sent_ids.append(query_id)
        out = DNSOutgoing(_FLAGS_QR_QUERY, multicast=False, id_=query_id)
        question = DNSQuestion(name, type_, _CLASS_IN)
        question.unicast = self.qu
        out.add_question(question)
        for packet in out.packets():
            self.sock.sendto(packet, (self.address, 5353))
        if self.source_port is None:
            self.source_port = self.sock.getsockname()[1]
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            try:
                data, source = self.sock.recvfrom(9000)
            except socket.timeout:
                break
            message = DNSIncoming(data, source)
            if not message.is_response():
                continue
            if not self.qu and message.id in earlier_ids:
                # A late answer to a question asked before this one went again.
                continue
            if not self.qu:
                # RFC 6762 6.7: a legacy reply repeats the query's ID and question.
                self.ids_echoed = self.ids_echoed and message.id == query_id
                self.questions_echoed = self.questions_echoed and any(q.name.lower() == name.lower() and q.type == type_ for q in message.questions)
            records = message.answers() if callable(message.answers) else message.answers
            self.last_size = len(data)
            self.last_truncated = message.truncated
            self.last_records = [_TYPES.get(r.type, str(r.type)).upper() + " " + r.name for r in records]
            for record in records:
                self.max_ttl = max(self.max_ttl, record.ttl)
                self.cache_flush = self.cache_flush or record.unique
            return records
        return None


def unicast_resolve(args):
    asker = UnicastAsker(args.unicast, args.from_5353)
    status = 0
    for type_ in args.types:
        ptrs = asker.ask(type_, _TYPE_PTR)
        ptr_reply = {"size": asker.last_size, "truncated": asker.last_truncated, "records": asker.last_records}
        instances = [r.alias for r in ptrs or [] if r.type == _TYPE_PTR and r.name.lower() == type_.lower()]
        if not instances:
            emit({"event": "unicast-unanswered", "type": type_, "question": "PTR " + type_, "source_port": asker.source_port})
            status = 1
            continue
        for name in instances:
            srv = [r for r in asker.ask(name, _TYPE_SRV) or [] if r.type == _TYPE_SRV]
            txt = [r for r in asker.ask(name, _TYPE_TXT) or [] if r.type == _TYPE_TXT]
            if not srv or not txt:
                emit({"event": "unicast-unanswered", "type": type_, "question": ("SRV " if not srv else "TXT ") + name, "source_port": asker.source_port})
                status = 1
                continue
            server = srv[0].server
            a = [r for r in asker.ask(server, _TYPE_A) or [] if r.type == _TYPE_A]
            emit({
                "event": "unicast-resolved",
                "type": type_,
                "name": name,
                "instance": instance_of(name, type_),
                "port": srv[0].port,
                "server": server,
                "addresses": [socket.inet_ntoa(r.address) for r in a],
                "txt": txt_pairs(txt[0].text),
                "source_port": asker.source_port,
                "ids_echoed": asker.ids_echoed,
                "questions_echoed": asker.questions_echoed,
                "max_ttl": asker.max_ttl,
                "cache_flush": asker.cache_flush,
                "ptr_reply": ptr_reply,
            })
    return status


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("types", nargs="+", help="service types, e.g. _raop._tcp.local.")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds to wait for every type to resolve")
    parser.add_argument("--watch", type=float, default=0.0, help="seconds to keep reporting changes after ready")
    parser.add_argument("--server-info", metavar="TYPE", help="after ready, GET /server-info from this type's instance")
    parser.add_argument("--unicast", metavar="ADDRESS", help="ask ADDRESS:5353 directly instead of browsing")
    parser.add_argument("--from-5353", metavar="BIND_ADDRESS", help="with --unicast: ask from BIND_ADDRESS:5353 with QU questions")
    args = parser.parse_args()
    if args.unicast:
        return unicast_resolve(args)

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
