# Python's plistlib as the reference codec for the oracle tests (test/support/oracle.ts).
# stdin: JSON {"op": "dumps", "format": "xml"|"binary", "values": [tagged...]}
#        or   {"op": "loads", "docs": [hex...]}
# stdout: JSON list: hex documents for dumps; tagged values or {"error": "..."} for loads.
import datetime, json, math, plistlib, sys

EPOCH = datetime.datetime(1970, 1, 1)

def from_tagged(t):
    kind, v = t["t"], t["v"]
    if kind == "str": return v
    if kind == "int": return int(v)
    if kind == "real": return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(v, v) if isinstance(v, str) else float(v)
    if kind == "bool": return bool(v)
    if kind == "date": return EPOCH + datetime.timedelta(milliseconds=v)
    if kind == "data": return bytes.fromhex(v)
    if kind == "uid": return plistlib.UID(v)
    if kind == "array": return [from_tagged(x) for x in v]
    if kind == "dict": return {k: from_tagged(x) for k, x in v}
    raise ValueError("unknown tag " + kind)

def to_tagged(x):
    if isinstance(x, bool): return {"t": "bool", "v": x}
    if isinstance(x, int): return {"t": "int", "v": str(x)}
    if isinstance(x, float):
        if math.isnan(x): return {"t": "real", "v": "nan"}
        if math.isinf(x): return {"t": "real", "v": "inf" if x > 0 else "-inf"}
        return {"t": "real", "v": x}
    if isinstance(x, str): return {"t": "str", "v": x}
    if isinstance(x, datetime.datetime):
        delta = x - EPOCH
        return {"t": "date", "v": round(delta.total_seconds() * 1000)}
    if isinstance(x, (bytes, bytearray)): return {"t": "data", "v": bytes(x).hex()}
    if isinstance(x, plistlib.UID): return {"t": "uid", "v": x.data}
    if isinstance(x, list): return {"t": "array", "v": [to_tagged(y) for y in x]}
    if isinstance(x, dict): return {"t": "dict", "v": sorted([[k, to_tagged(y)] for k, y in x.items()], key=lambda e: e[0])}
    raise ValueError("unexpected python type %r" % type(x))

def main():
    request = json.load(sys.stdin)
    out = []
    if request["op"] == "dumps":
        fmt = plistlib.FMT_BINARY if request["format"] == "binary" else plistlib.FMT_XML
        for t in request["values"]:
            out.append(plistlib.dumps(from_tagged(t), fmt=fmt, sort_keys=False).hex())
    else:
        for doc in request["docs"]:
            try:
                out.append(to_tagged(plistlib.loads(bytes.fromhex(doc))))
            except Exception as e:
                out.append({"error": "%s: %s" % (type(e).__name__, e)})
    json.dump(out, sys.stdout)

main()
