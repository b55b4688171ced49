"""`anchor: python fork floor`: what forking a CPython child and reaping it costs on this machine.

A fork-per-run provider cannot start runs faster than its interpreter can fork children and reap
them, whatever those children do. This interpreter first loads what the provider's zygote loads
(asyncio, json, re and the zygote's WARM_MODULES, read from its source), then freezes the garbage
collector as the zygote does, so that its memory, which fork copies the page tables of, is alike.
Each child exits at once (`os._exit(0)`): nothing is run, contained or written.

Reads one JSON object on stdin: {"zygote": <path of sluice_zygote.py>, "count": N, "total": M}.
Writes one JSON object on stdout: {"latencyMs": [N fork-to-reaped times], "perSecond": {"1": r1,
"2": r2, "8": r8} (children forked and reaped per second with that many alive at once, M each),
"rssMb": the resident memory forked}.
"""

import ast
import asyncio  # noqa: F401  (as the zygote: loaded before the children are forked)
import gc
import json
import os
import re  # noqa: F401
import sys
import time


def warm_modules(zygote_path):
    """The zygote's WARM_MODULES tuple, read from its source rather than repeated here."""
    with open(zygote_path, encoding='utf-8') as source:
        tree = ast.parse(source.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(target, 'id', None) == 'WARM_MODULES' for target in node.targets):
            return ast.literal_eval(node.value)
    raise SystemExit(f'no WARM_MODULES in {zygote_path}')


def fork_exit():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    return pid


def rate(alive, total):
    """Children forked and reaped per second, with up to `alive` of them at once."""
    start = time.perf_counter()
    running = 0
    for _ in range(total):
        if running == alive:
            os.wait()
            running -= 1
        fork_exit()
        running += 1
    while running > 0:
        os.wait()
        running -= 1
    return total / (time.perf_counter() - start)


def main():
    request = json.loads(sys.stdin.read())
    for name in warm_modules(request['zygote']):
        try:
            __import__(name)
        except ImportError:
            pass
    gc.collect()
    gc.freeze()
    latency = []
    for index in range(request['count'] + 10):
        start = time.perf_counter()
        os.waitpid(fork_exit(), 0)
        if index >= 10:
            latency.append((time.perf_counter() - start) * 1000)
    per_second = {str(alive): rate(alive, request['total']) for alive in (1, 2, 8)}
    with open('/proc/self/statm', encoding='ascii') as statm:
        rss_mb = int(statm.read().split()[1]) * os.sysconf('SC_PAGE_SIZE') / 2**20
    print(json.dumps({'latencyMs': latency, 'perSecond': per_second, 'rssMb': rss_mb}))


main()
