"""A stand-in zygote that answers every fork, one at a time, a fixed delay after the last answer.

Run as `python3 zygote_slow_answers.py '{"delay": SECONDS}'`: writes a `ready` report, then
answers each `fork` command with an `exit` report saying the child could not start. With a delay of 0
it never answers a fork at all (a stuck zygote). Stands in for a real zygote under a burst on a
loaded machine, where forks are answered slowly but steadily.
"""

import json
import sys
import time

delay = float(json.loads(sys.argv[1])['delay'])
ready = {
    'v': 1, 'type': 'ready', 'pid': 1, 'executable': sys.executable, 'version': sys.version.split()[0],
    'euid': 0, 'layers': [], 'problems': {}, 'landlockAbi': 0, 'addressSpaceBytes': None, 'cpuSeconds': None,
}  # fmt: skip
sys.stdout.write(json.dumps(ready) + '\n')
sys.stdout.flush()
for line in sys.stdin:
    order = json.loads(line)
    if order['type'] != 'fork' or delay == 0:
        continue
    time.sleep(delay)
    sys.stdout.write(json.dumps({'v': 1, 'type': 'exit', 'run': order['run'], 'error': 'could not start: slow'}) + '\n')
    sys.stdout.flush()
