"""What a value costs in memory, per byte of its JSON, on its way out of a Python child.

`python3 packages/code-runtime-python/scripts/measure-value-memory.py [MiB ...]` (default 1 and 8).
For each shape a program might return or pass to a host function, at each JSON size, it reports:

- `traced`: the peak of Python allocations (tracemalloc) while the runner checks and encodes a value
  the program already holds, per byte of JSON;
- `as`: the smallest address space (RLIMIT_AS, beyond what a fresh interpreter with the runner
  imported has mapped; found by bisection, 256 KiB steps, a fresh process per try) in which the
  value is built, checked and written as the `done` frame, minus the same for `return 1`, per byte
  of JSON. This is what the budget gate's multiple must cover.
- `as-call`: the same for a host call: the argument checked, encoded and framed as a `call` frame;
- `as-reply`: the same for a host call's result of that size arriving and being parsed.

The worst `as`, `as-call` and `as-reply` over the shapes is the multiple the gate needs
(docs/decisions/2026-11-30-python-value-memory.md).
"""

import datetime
import gc
import json
import os
import resource
import subprocess
import sys
import tracemalloc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'python'))

import sluice_runner  # noqa: E402
import sluice_values  # noqa: E402

MEBIBYTE = 1024 * 1024
STEP = 256 * 1024
DEPTH = 64


def shapes(size):
    """(name, function building a value of about `size` bytes of JSON)."""
    return [
        ('small ints [1]*n', lambda: [1] * (size // 2)),
        ('distinct ints range(n)', lambda: list(range(size // 8))),
        ('floats [0.5]*n', lambda: [0.5] * (size // 4)),
        ('tuple of ints', lambda: (1,) * (size // 2)),
        ('one-letter strings', lambda: ['a'] * (size // 4)),
        ('distinct empty lists', lambda: [[] for _ in range(size // 3)]),
        ('distinct empty dicts', lambda: [{} for _ in range(size // 3)]),
        ('one shared empty list', lambda: [[]] * (size // 3)),
        ('records {"a": 1}', lambda: [{'a': 1} for _ in range(size // 8)]),
        ('one-key dicts {"": 0}', lambda: [{'': 0} for _ in range(size // 7)]),
        ('chains {"": {"": ...}}', lambda: [_chain(30) for _ in range(size // 152)]),
        ('chains [[[...]]]', lambda: [_list_chain(30) for _ in range(size // 61)]),
        ('int keys {i: 0}', lambda: {i: 0 for i in range(size // 10)}),
        ('one long string', lambda: 'x' * size),
        ('control characters', lambda: '\x01' * (size // 6)),
        ('emoji', lambda: '\U0001f600' * (size // 4)),
        ('dates', lambda: [datetime.date(2026, 12, 1)] * (size // 13)),
        ('nested 60 deep', lambda: _nested(size)),
    ]


def _chain(depth):
    value = 0
    for _ in range(depth):
        value = {'': value}
    return value


def _list_chain(depth):
    value = []
    for _ in range(depth - 1):
        value = [value]
    return value


def _nested(size):
    value = [1] * (size // 2 - 200)
    for _ in range(60):
        value = [value]
    return value


def _limits(size):
    return {'valueBytes': size + 1024, 'hostCallBytes': size + 1024, 'logBytes': 65536, 'depth': DEPTH}


def _return(build, limits):
    value = build()
    outcome = sluice_runner._value_outcome(value, limits)
    if not outcome['ok']:
        raise SystemExit(f'not ok: {outcome}')
    line = sluice_values.encode_frame({'v': 1, 'type': 'done', **outcome})
    return len(line)


def _call(build, limits):
    value = build()
    problem, encoded, _ = sluice_values.check_and_encode_call([value], None, limits['depth'], limits['hostCallBytes'])
    if problem is not None or encoded is None:
        raise SystemExit(f'not ok: {problem}')
    frame = b'{"v":%d,"type":"call","id":%d,"namespace":"%s","name":"%s","arguments":%s}\n' % (1, 1, b'tools', b'echo', encoded)
    return len(frame)


def _reply(build, limits):
    # The reply as the host writes it arrives in the channel's inbox; sluice_channel then splits and parses it.
    inbox = bytearray(b'{"v":1,"type":"reply","id":1,"ok":true,"value":' + sluice_values.encode(build()) + b'}\n')
    line, _, rest = bytes(inbox).partition(b'\n')
    inbox = bytearray(rest)
    frame = json.loads(line)
    return len(frame)


def _fits(action, shape, size, headroom):
    """Whether a fresh interpreter (nothing freed earlier lies mapped) manages with `headroom` bytes of address space beyond what it has mapped."""
    probe = [sys.executable, '-I', '-S', os.path.abspath(__file__), '--probe', action, shape, str(size), str(headroom)]
    code = subprocess.run(probe, check=False).returncode
    if code == 2:
        raise SystemExit(f'{action} of {shape} failed for a reason other than memory')
    return code == 0


def _probe(action, shape, size, headroom):
    build = dict(shapes(size))[shape] if shape != 'return 1' else (lambda: 1)
    limits = _limits(size)
    gc.collect()
    with open('/proc/self/status') as status:
        mapped = next(int(line.split()[1]) * 1024 for line in status if line.startswith('VmSize:'))
    try:
        resource.setrlimit(resource.RLIMIT_AS, (mapped + headroom, mapped + headroom))
        ACTIONS[action](build, limits)
    except MemoryError:
        os._exit(1)
    except BaseException:  # noqa: BLE001
        os._exit(2)
    os._exit(0)


def smallest_headroom(action, shape, size, high):
    low = -STEP
    while not _fits(action, shape, size, high):
        low, high = high, high * 2
    while high - low > STEP:
        middle = (low + high) // 2 // STEP * STEP
        if _fits(action, shape, size, middle):
            high = middle
        else:
            low = middle
    return high


def traced_peak(build, limits):
    value = build()
    tracemalloc.start()
    outcome = sluice_runner._value_outcome(value, limits)
    sluice_values.encode_frame({'v': 1, 'type': 'done', **outcome})
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main(sizes):
    print(f'CPython {sys.version.split()[0]}; per byte of JSON; the value itself is counted in `as`, not in `traced`')
    for size in sizes:
        limits = _limits(size)
        base = {column: smallest_headroom(column, 'return 1', size, 4 * MEBIBYTE) for column in ACTIONS}
        print(f'\n{size / MEBIBYTE:g} MiB; `return 1` needs {base["as"] / MEBIBYTE:.2f} MiB of address space beyond a fresh `python3 -I -S` with the runner imported')
        print(f'{"shape":<26} {"json bytes":>11} {"traced":>7} {"as":>6} {"as-call":>8} {"as-reply":>9}')
        worst = {name: 0.0 for name in base}
        for name, build in shapes(size):
            json_bytes = len(sluice_values.encode(build()))
            row = {'traced': traced_peak(build, limits) / json_bytes}
            for column in ACTIONS:
                need = smallest_headroom(column, name, size, base[column] + 8 * json_bytes)
                row[column] = (need - base[column]) / json_bytes
                worst[column] = max(worst[column], row[column])
            print(
                f'{name:<26} {json_bytes:>11} {row["traced"]:>7.2f} {row["as"]:>6.2f} {row["as-call"]:>8.2f} {row["as-reply"]:>9.2f}'
            )
        print(f'{"worst":<26} {"":>11} {"":>7} {worst["as"]:>6.2f} {worst["as-call"]:>8.2f} {worst["as-reply"]:>9.2f}')


ACTIONS = {'as': _return, 'as-call': _call, 'as-reply': _reply}

if __name__ == '__main__':
    if sys.argv[1:2] == ['--probe']:
        _probe(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    main([int(float(argument) * MEBIBYTE) for argument in sys.argv[1:]] or [MEBIBYTE, 8 * MEBIBYTE])
