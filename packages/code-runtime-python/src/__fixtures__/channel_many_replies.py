"""Delivers many buffered replies through the child's channel and reports what the inbox went through.

Run as `python3 channel_many_replies.py <runner directory>`. Prints one JSON line.
"""

import asyncio
import json
import os
import sys

sys.path.insert(0, sys.argv[1])
import sluice_channel  # noqa: E402

count = 20_000
loop = asyncio.new_event_loop()
channel = sluice_channel.Channel(-1)
channel.loop = loop
futures = [loop.create_future() for _ in range(count)]
channel.pending = {index + 1: future for index, future in enumerate(futures)}
inbox = channel.inbox
inboxes = set()
replies = b''.join(b'{"v":1,"type":"reply","id":%d,"ok":true,"value":%d}\n' % (index + 1, index) for index in range(count))
real_loads = json.loads


def loads(line):
    inboxes.add(id(channel.inbox))
    return real_loads(line)


sluice_channel.json.loads = loads
channel.inbox += replies + b'{"v":1,"type":"reply","id":'  # and the start of one more
channel._deliver()
sluice_channel.json.loads = real_loads
print(
    json.dumps({
        'delivered': sum(1 for index, future in enumerate(futures) if future.done() and future.result() == index),
        'left': bytes(channel.inbox).decode(),
        'inboxes': len(inboxes),
        'same': channel.inbox is inbox,
    })
)
sys.stdout.flush()
os._exit(0)
