"""python zeroconf's DNSIncoming as an independent reader of our DNS replies.

stdin: a JSON list of messages in hex. stdout: a JSON list, one object per message, with what
zeroconf read: header, questions and every record (answers and additionals alike) with the
fields its record classes expose. `valid` is false when zeroconf could not parse the message.
"""

import json
import sys

from zeroconf import DNSAddress, DNSIncoming, DNSPointer, DNSService, DNSText


def read(message: bytes) -> dict:
    incoming = DNSIncoming(message)
    records = []
    for record in incoming.answers:
        entry = {'name': record.name, 'type': record.type, 'class': record.class_, 'unique': record.unique, 'ttl': record.ttl}
        if isinstance(record, DNSPointer):
            entry['alias'] = record.alias
        if isinstance(record, DNSService):
            entry.update(server=record.server, port=record.port, priority=record.priority, weight=record.weight)
        if isinstance(record, DNSText):
            entry['text'] = record.text.hex()
        if isinstance(record, DNSAddress):
            entry['address'] = '.'.join(str(byte) for byte in record.address)
        records.append(entry)
    return {
        'valid': incoming.valid,
        'id': incoming.id,
        'flags': incoming.flags,
        'questions': [[question.name, question.type, question.class_] for question in incoming.questions],
        'answers': incoming.num_answers,
        'additionals': incoming.num_additionals,
        'records': records,
    }


json.dump([read(bytes.fromhex(text)) for text in json.load(sys.stdin)], sys.stdout)
