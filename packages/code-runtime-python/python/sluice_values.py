"""Values crossing fd 3: checked to be lossless JSON, encoded as one compact line."""

import json
import math

#: The largest integer JSON numbers carry exactly on the host (2**53 - 1).
MAX_SAFE_INTEGER = 2**53 - 1

_SCALARS = (str, bool, type(None))


def json_problem(value, depth_limit):
    """Where `value` stops being lossless JSON, as a sentence, or None when it is fine.

    Accepted: dict with str keys, list, tuple (as an array), str, int within ±(2**53 - 1), finite
    float, bool, None. Iterative, so a deep value cannot overflow the stack.
    """
    return _walk(value, depth_limit)[0]


def _walk(value, depth_limit):
    stack = [(value, '$', 1)]
    ancestors = {}
    checked = set()
    shared = False
    while stack:
        current, path, depth = stack.pop()
        if current is _EXIT:
            del ancestors[path]
            checked.add(path)
            continue
        if isinstance(current, _SCALARS):
            continue
        if isinstance(current, int):
            if abs(current) > MAX_SAFE_INTEGER:
                return f'{path} is the integer {current}, beyond ±(2**53 - 1), which JSON cannot carry exactly', shared
            continue
        if isinstance(current, float):
            if math.isnan(current) or math.isinf(current):
                return f'{path} is {current!r}, which JSON cannot carry', shared
            continue
        if not isinstance(current, (dict, list, tuple)):
            return f'{path} is {_describe(current)}, which JSON cannot carry (use dict, list, str, number, bool, None)', shared
        if depth > depth_limit:
            return f'{path} is nested deeper than {depth_limit} levels', shared
        key = id(current)
        if key in checked:
            shared = True
            continue
        if key in ancestors:
            return f'{path} is a cycle back to {ancestors[key]}', shared
        ancestors[key] = path
        stack.append((_EXIT, key, 0))
        if isinstance(current, dict):
            children = []
            for name, child in current.items():
                if not isinstance(name, str):
                    return f'{path} has the key {name!r}, which is not a string; JSON keys are strings', shared
                children.append((child, f'{path}[{json.dumps(name)}]', depth + 1))
        else:
            children = [(child, f'{path}[{index}]', depth + 1) for index, child in enumerate(current)]
        stack.extend(reversed(children))
    return None, shared


class _Exit:
    pass


_EXIT = _Exit()


def _describe(value):
    name = type(value).__name__
    return f'{"an" if name[:1] in "aeiouAEIOU" else "a"} {name}'


def encode(value):
    """The UTF-8 JSON text of a checked value, compact, without a newline."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(',', ':')).encode('utf-8')
    except UnicodeEncodeError:
        # A lone surrogate has no UTF-8 form; \\u escapes carry it, as JavaScript strings can.
        return json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(',', ':')).encode('ascii')


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
    encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(',', ':'), check_circular=False)
    size = 0
    for chunk in encoder.iterencode(value):
        size += len(chunk.encode('utf-8', 'surrogatepass'))
        if size > limit_bytes:
            return None, None, size
    return None, encode(value), size


def encode_frame(frame):
    """One frame as a line of bytes, newline included."""
    return encode(frame) + b'\n'
