"""Values crossing fd 3: checked to be JSON as `json.dumps` would write it, encoded as one compact line.

Accepted as `json.dumps` users expect: dict, list, tuple (an array), str (a subclass such as a
`StrEnum` as its text), int within ±(2**53 - 1), finite float, bool, None; also, as
`json.dumps(default=...)` users write it, `datetime`, `date` and `time` (their `isoformat()`
string), and int keys (their decimal string). Everything else is refused with the path to it and
the fix.
"""

import collections.abc
import json
import math
import reprlib
import sys

#: The largest integer JSON numbers carry exactly on the host (2**53 - 1).
MAX_SAFE_INTEGER = 2**53 - 1

_FINE = (str, bool, type(None))
_DONE = object()


def json_problem(value, depth_limit):
    """Where `value` stops being JSON, as a sentence naming the fix, or None when it is fine."""
    return _walk(value, depth_limit)[0]


def _walk(root, depth_limit):
    """(problem, shared): the first problem, and whether any container is reached twice.

    Iterative, and it allocates per open container, not per element: the path is built from the
    open containers' current keys only when there is a problem.
    """
    frames = []  # one [items iterator, current key, id, the dict or None] per open container, outermost first
    open_ids = {}
    checked = set()
    shared = False
    value = root
    while True:
        kind = type(value)
        if kind is str or kind is bool or value is None:
            pass
        elif isinstance(value, int):
            if abs(value) > MAX_SAFE_INTEGER:
                return _at(frames, _big_integer(value)), shared
        elif kind is float or isinstance(value, float):
            if math.isnan(value) or math.isinf(value):
                return _at(frames, f'is {value!r}, which JSON cannot carry: use None or a string'), shared
        elif isinstance(value, str):
            pass  # a str subclass (a str-mixin Enum, StrEnum): json.dumps writes its text
        elif isinstance(value, (dict, list, tuple)):
            if len(frames) >= depth_limit:
                return _at(frames, f'is nested deeper than {depth_limit} levels'), shared
            key = id(value)
            if key in checked:
                shared = True
            elif key in open_ids:
                return _at(frames, f'is a cycle back to {_path(frames[: open_ids[key]])}'), shared
            else:
                open_ids[key] = len(frames)
                if isinstance(value, dict):
                    frames.append([iter(value.items()), None, key, value])
                else:
                    frames.append([enumerate(value), None, key, None])
        elif not _is_datetime(value):
            return _at(frames, _unjsonable(value)), shared
        # The next value: the next item of the innermost open container, closing finished ones.
        while frames:
            frame = frames[-1]
            item = next(frame[0], _DONE)
            if item is _DONE:
                frames.pop()
                del open_ids[frame[2]]
                checked.add(frame[2])
                continue
            name, value = item
            if frame[3] is not None and not isinstance(name, str):
                problem = _key_problem(name, frame[3])
                if problem is not None:
                    return _at(frames[:-1], problem), shared
            frame[1] = name
            break
        else:
            return None, shared


def _path(frames):
    steps = ['$']
    for frame in frames:
        key = frame[1]
        steps.append(f'[{json.dumps(key if isinstance(key, str) else str(key))}]' if frame[3] is not None else f'[{key}]')
    return ''.join(steps)


def _at(frames, problem):
    return f'{_path(frames)} {problem}'


def _key_problem(name, container):
    """None for a key `json.dumps` writes as a string without surprise (an int), else the problem."""
    if isinstance(name, int) and not isinstance(name, bool) and abs(name) <= MAX_SAFE_INTEGER:
        if str(int(name)) in container:
            return f'has both the key {int(name)} and the key "{int(name)}", which are one key in JSON: use one of them'
        return None
    if isinstance(name, int) and not isinstance(name, bool):
        return 'has an integer key beyond ±(2**53 - 1); JSON object keys are strings: use str(key)'
    shown = _shown(name)
    if isinstance(name, tuple):
        fix = 'join it into a string (",".join(map(str, key))) or return a list of [key, value] pairs'
    else:
        fix = 'use str(key)'
    return f'has the key {shown}, {_article(name)}; JSON object keys are strings: {fix}'


def _big_integer(value):
    digits = int(value.bit_length() * 0.30103) + 1
    return f'is an integer of about {digits} digits, beyond ±(2**53 - 1), which JSON cannot carry exactly: use str(...)'


def _is_datetime(value):
    # Only a program that imported datetime can hold one, so the check costs no import.
    module = sys.modules.get('datetime')
    return module is not None and isinstance(value, (module.date, module.time))


def _unjsonable(value):
    """What `value` is and what to write instead."""
    described = _article(value)
    if isinstance(value, collections.abc.Coroutine):
        call = not_awaited_call(value)
        return f'is {call}, which was never awaited: write `await {call}`'
    if isinstance(value, (set, frozenset)):
        fix = 'use a list: sorted(...) or list(...)'
    elif isinstance(value, (bytes, bytearray, memoryview)):
        fix = 'decode it to a string (.decode(), or base64)'
    elif type(value).__name__ == 'Decimal':
        fix = 'use float(...) or str(...)'
    elif hasattr(value, '__dataclass_fields__'):
        fix = 'use dataclasses.asdict(...)'
    elif isinstance(value, collections.abc.Iterable):
        fix = 'use list(...)'
    else:
        fix = 'use dict, list, str, number, bool or None'
    return f'is {described}, which JSON cannot carry: {fix}'


def not_awaited_call(coroutine):
    """`tools.search(...)` for a host call, `main(...)` for a coroutine of the program."""
    describe = getattr(type(coroutine), 'call_text', None)
    if describe is not None:
        return describe(coroutine)
    return f'{getattr(coroutine, "__qualname__", "coroutine")}(...)'


def _article(value):
    name = type(value).__name__
    return f'{"an" if name[:1] in "aeiouAEIOU" else "a"} {name}'


def _shown(value):
    """A short repr (reprlib's), or the type's name when even that fails."""
    try:
        return reprlib.repr(value)
    except Exception:  # noqa: BLE001  (a key's __repr__ is the program's code)
        return _article(value)


def _to_json(value):
    """`default` for json.dumps: what the walker accepted beyond plain JSON (datetimes)."""
    if _is_datetime(value):
        return value.isoformat()
    raise TypeError(f'Object of type {type(value).__name__} is not JSON serializable')


def encode(value):
    """The UTF-8 JSON text of a checked value, compact, without a newline."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(',', ':'), default=_to_json).encode('utf-8')
    except UnicodeEncodeError:
        # A lone surrogate has no UTF-8 form; \\u escapes carry it, as JavaScript strings can.
        return json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(',', ':'), default=_to_json).encode('ascii')


def check_and_encode(value, depth_limit, limit_bytes):
    """(problem, encoded, size): a JSON problem; or the encoding when it fits `limit_bytes`; or only a size over it.

    A value that shares containers (`v = [v, v]` repeated) can encode to exponentially many bytes,
    so it is encoded piece by piece and abandoned as soon as it passes the limit.
    """
    problem, shared = _walk(value, depth_limit)
    if problem is not None:
        return problem, None, 0
    if not shared:
        encoded = encode(value)
        return None, (encoded if len(encoded) <= limit_bytes else None), len(encoded)
    encoder = json.JSONEncoder(
        ensure_ascii=False, allow_nan=False, separators=(',', ':'), check_circular=False, default=_to_json
    )
    size = 0
    for chunk in encoder.iterencode(value):
        size += len(chunk.encode('utf-8', 'surrogatepass'))
        if size > limit_bytes:
            return None, None, size
    return None, encode(value), size


def install_json_hint():
    """Run once in the zygote: `json.dumps` in the program names an un-awaited call, and the fix, instead of only its type."""
    original = json.JSONEncoder.default

    def default(self, value):
        if isinstance(value, collections.abc.Coroutine):
            call = not_awaited_call(value)
            raise TypeError(f'Object of type {type(value).__name__} is not JSON serializable: {call} was never awaited; write `await {call}`')
        return original(self, value)

    json.JSONEncoder.default = default


def encode_frame(frame):
    """One frame as a line of bytes, newline included."""
    return encode(frame) + b'\n'
