"""The zygote forks a child while the host's accept backlog is full and a SIGCHLD arrives.

Run as `python3 zygote_interrupted_connect.py <runner directory> <scratch directory>`. Prints one JSON
line: the zygote's reports and whether it recorded the child. A connect() that the signal interrupts
leaves CPython with an unconnected socket it believes connected, and the fork fails with ENOTCONN.
"""

import json
import os
import signal
import socket
import sys
import time

sys.path.insert(0, sys.argv[1])
import sluice_fork  # noqa: E402
import sluice_zygote  # noqa: E402

scratch = sys.argv[2]
path = os.path.join(scratch, 'host.sock')
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
listener.listen(0)
# One connection nobody accepts fills a backlog of 0: the next connect() blocks until the acceptor starts.
filler = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
filler.connect(path)
filler.sendall(b"\n")

acceptor = os.fork()
if acceptor == 0:
    time.sleep(0.5)
    for _ in range(4):
        listener.accept()[0].recv(256)
    time.sleep(0.5)
    os._exit(0)
listener.close()

reports = []
sluice_zygote._report = reports.append
signal.signal(signal.SIGCHLD, lambda _signal, _frame: None)  # as Zygote.serve installs it
if os.fork() == 0:
    time.sleep(0.1)  # exits while the zygote waits in connect(): SIGCHLD
    os._exit(0)

zygote = sluice_zygote.Zygote.__new__(sluice_zygote.Zygote)
zygote.config = {'socket': path}
zygote.context = {'zygotePid': 0}  # the forked child sees a parent that is not this pid and leaves at once
zygote.runs = {}
zygote.forker = sluice_fork.Forker(sluice_fork.direct_fork_sound())
zygote.fork({'run': 1, 'token': 'ab' * 16, 'directory': os.path.join(scratch, 'r1')})
print(json.dumps({'reports': reports, 'forked': len(zygote.runs)}))
