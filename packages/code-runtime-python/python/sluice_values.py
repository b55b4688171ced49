"""Values crossing fd 3: checked to be JSON as `json.dumps` would write it, encoded as one compact line.

Accepted as `json.dumps` users expect: dict, list, tuple (an array), str (a subclass such as a
`StrEnum` as its text), int within ±(2**53 - 1), finite float, bool, None; also, as the encoders
of Python's ecosystem write them (`json.dumps(default=...)`, pydantic, Django): `datetime`, `date`
and `time` (their `isoformat()` string), int keys (their decimal string), a set or frozenset (an
array, sorted when its items compare), a `pathlib` path (its text), a `Decimal` (its text, exactly
as written: `"12.50"`), an exception (`{"error": "<Name>: <message>"}`, as `asyncio.gather(...,
return_exceptions=True)` leaves them), and a generator or any other iterator, a `range`, a dict
view or a `deque` (an array of what it yields, read once), and numpy and pandas values (scalars,
arrays, `Series`, `DataFrame` records, `datetime64`, NaN and NaT as null: see sluice_values_data). Everything
else — bytes, functions, cycles, NaN, integers beyond 2**53 — is refused with the path and the fix.
"""

import collections.abc
import json
import math
import re
import reprlib
import sys
import types

import sluice_values_data

_DONE = object()
#: A converted value that crosses as null (NaN or NaT in numpy and pandas values).
_NULL = sluice_values_data.NULL
#: Whether the innermost check met a numpy float that is NaN, infinite or -0.0 (written as null or 0.0, see `_encoded`).
_nonfinite = [False]
#: JSON strings, kept as they are, or the non-finite numbers the encoder writes with allow_nan, made null,
#: or a negative zero (which the host refuses: JSON has none), made 0.0.
_NON_FINITE = re.compile(rb'("(?:[^"\\]|\\.)*")|-?Infinity|NaN|-0\.0(?=[,\]}]|$)')
#: The arrays, strings and objects standing for converted values (a set, a generator, a Decimal, …)
#: during one check and its encoding, by the id of the value, innermost check last: a generator
#: walked is spent, so the encoder writes what the walk read. A check within a check (a generator
#: that makes a host call) has its own.
_converted = []
#: Read into an array, as `list(...)` would, items produced as they are walked: these, and any other
#: iterator that is not a coroutine (`iter(...)`, `reversed([...])`, a file's lines, the program's own).
_STREAMED = (types.GeneratorType, map, filter, zip, enumerate, reversed, range)
#: Sized collections read into an array: dict views and deques.
_VIEWS = (type({}.keys()), type({}.values()), type({}.items()), collections.deque)


def json_problem(value, depth_limit):
    """Where `value` stops being JSON, as a sentence naming the fix, or None when it is fine."""
    _converted.append({})
    _nonfinite.append(False)
    try:
        return _walk(value, depth_limit, math.inf)[0]
    finally:
        _converted.pop()
        _nonfinite.pop()


def _walk(root, depth_limit, limit_bytes, label='$', outer=0):
    """(problem, low, high): the first problem, and bounds on the size of the JSON `encode` writes.

    Iterative, holding one frame per open container and nothing per element (the path is built
    only for a problem), and it stops once `low` passes `limit_bytes`: a value that reaches the same
    container many times (`v = [v, v]` repeated) is walked only that far, however large its JSON.
    Strings are counted exactly, numbers within bounds: an int by its bits, a float as 3 to 24 bytes.
    `outer` levels of nesting enclose `root` where it is sent (a call's arguments list).
    """
    frames = []  # one [items iterator, current key, id, the dict or None, streamed] per open container, outermost first
    open_ids = {}
    converted = _converted[-1]
    low = high = 0
    value = root
    while True:
        kind = type(value)
        if kind is str:
            size = _string_bytes(value, limit_bytes - low)
            low += size
            high += size
        elif kind is bool:
            low += 5 - value  # true, false
            high += 5 - value
        elif value is None:
            low += 4
            high += 4
        elif isinstance(value, int):
            bits = int.bit_length(value)  # int's own: a subclass cannot override it
            if bits > _SAFE_BITS:
                return _at(frames, _big_integer(bits), label), low, high
            digits = (max(bits, 1) - 1) * 1233 // 4096 + 1 + (value < 0)  # 1233 / 4096 < log10(2)
            low += digits
            high += digits + 1
        elif kind is float or isinstance(value, float):
            if math.isnan(value) or math.isinf(value):
                if kind is float or not _is_numpy(value):
                    return _at(frames, f'is {float.__repr__(value)}, which JSON cannot carry: use None or a string', label), low, high
                # numpy's float64 is a float: the encoder writes it as NaN or Infinity, which `encode` turns into null.
                _nonfinite[-1] = True
                low += 4
                high += 4
            elif value == 0.0 and kind is not float and math.copysign(1.0, value) < 0 and _is_numpy(value):
                _nonfinite[-1] = True  # numpy's -0.0 (a rounded small negative) crosses as 0.0
            low += 3  # 1.0
            high += 24  # -1.2345678901234567e-308
        elif isinstance(value, str):
            # A str subclass (a str-mixin Enum, StrEnum): json.dumps writes its text.
            size = _string_bytes(str.__str__(value), limit_bytes - low)
            low += size
            high += size
        elif isinstance(value, (dict, list, tuple)) or _is_streamed(value):
            if len(frames) + outer >= depth_limit:
                return _at(frames, f'is nested deeper than {depth_limit} levels', label), low, high
            key = id(value)
            if key in open_ids:
                return _at(frames, f'is a cycle back to {_path(frames[: open_ids[key]], label)}', label), low, high
            streamed = not isinstance(value, (dict, list, tuple))
            if streamed and key in converted:
                value = converted[key]  # reached again, spent: what it was read into the first time
                continue
            open_ids[key] = len(frames)
            if streamed:
                # Read as walked, so an endless one stops at the budget; its commas are counted item by item.
                items = converted[key] = []
                low += 2
                high += 2
                frames.append([enumerate(_read_into(value, items)), None, key, None, True])
            else:
                low += 2 + max(len(value) - 1, 0)  # brackets and commas
                high += 2 + max(len(value) - 1, 0)
                if isinstance(value, dict):
                    frames.append([iter(value.items()), None, key, value, False])
                else:
                    frames.append([enumerate(value), None, key, None, False])
        elif _is_datetime(value):
            if _is_missing_time(value):
                converted[id(value)] = _NULL
                low += 4
                high += 4
            else:
                size = len(value.isoformat()) + 2
                low += size
                high += size
        else:
            known = converted.get(id(value))
            if known is not None:
                value = None if known is _NULL else known  # reached again: what it was read into the first time
                continue
            count = _item_count(value)
            if count is not None:
                # Each item is at least one byte and a comma: a collection too large for the budget is not copied.
                least = 2 * count + 1
                if low + least > limit_bytes:
                    return None, low + least, high + least
            replacement = _replacement(value)
            if replacement is None:
                return _at(frames, _unjsonable(value), label), low, high
            converted[id(value)] = replacement
            if replacement is _NULL:
                replacement = None
            value = replacement
            continue
        if low > limit_bytes:
            return None, low, high
        # The next value: the next item of the innermost open container, closing finished ones.
        while frames:
            frame = frames[-1]
            try:
                item = next(frame[0], _DONE)
            except Exception as error:  # noqa: BLE001  (a generator's own code raised while it was read)
                return _at(frames[:-1], f'is an iterator that raised {_error_text(error)} while it was read', label), low, high
            if item is _DONE:
                frames.pop()
                del open_ids[frame[2]]
                continue
            name, value = item
            if frame[4] and name:
                low += 1  # the comma before a streamed item
                high += 1
            if frame[3] is not None:
                if type(name) is str or isinstance(name, str):
                    size = _string_bytes(str.__str__(name), limit_bytes - low) + 1  # the colon
                else:
                    problem = _key_problem(name, frame[3])
                    if problem is not None:
                        return _at(frames[:-1], problem, label), low, high
                    size = (max(int.bit_length(name), 1) - 1) * 1233 // 4096 + 4 + (name < 0)
                low += size
                high += size + 1
            frame[1] = name
            break
        else:
            return None, low, high


def _is_streamed(value):
    if isinstance(value, _STREAMED):
        return True
    return isinstance(value, collections.abc.Iterator) and not isinstance(value, collections.abc.Coroutine)


def _read_into(source, items):
    """Yields what `source` yields, keeping each item in `items` (what the encoder then writes)."""
    for item in source:
        items.append(item)
        yield item


def _item_count(value):
    """How many items a collection about to be copied holds (a set, a view, an array, a frame), else None."""
    if isinstance(value, (set, frozenset) + _VIEWS):
        return len(value)
    if _is_numpy(value):
        size = getattr(value, 'size', None)
        return size if isinstance(size, int) else None
    return None


def _replacement(value):
    """What a value JSON cannot carry as it is crosses as (a list, a string, a dict or _NULL), or None."""
    if _is_numpy(value):
        return sluice_values_data.replacement(value)
    if isinstance(value, (set, frozenset)):
        try:
            return sorted(value)
        except Exception:  # noqa: BLE001  (items that do not compare keep the set's order)
            return list(value)
    if isinstance(value, _VIEWS):
        return list(value)
    if isinstance(value, BaseException):
        return {'error': _error_text(value)}
    module = sys.modules.get('decimal')  # only a program that imported it can hold one
    if module is not None and isinstance(value, module.Decimal):
        return module.Decimal.__str__(value)
    module = sys.modules.get('pathlib')
    if module is not None and isinstance(value, module.PurePath):
        return module.PurePath.__str__(value)
    return None


def _error_text(error):
    """`Name: message`, as a traceback's last line writes an exception (`Name` when it has no message)."""
    try:
        text = str(error)
    except Exception:  # noqa: BLE001  (a __str__ that fails)
        text = '<exception str() failed>'
    name = type(error).__name__
    return f'{name}: {text}' if text else name


#: Integers of at most this many bits are within ±(2**53 - 1).
_SAFE_BITS = 53
#: Characters of a string measured at once: the measuring never holds more than a few times this.
_PIECE_CHARS = 65536


def _string_bytes(text, room):
    """The bytes `encode` writes for `text`, quotes included; only more than `room` once it passes it."""
    if text.isascii() and text.isprintable():
        return len(text) + 2 + text.count('"') + text.count('\\')
    size = 2
    for start in range(0, len(text), _PIECE_CHARS):
        piece = json.encoder.encode_basestring(text[start : start + _PIECE_CHARS])
        size += len(piece.encode('utf-8', 'surrogatepass')) - 2
        if size > room:
            break
    return size


def _path(frames, label='$'):
    steps = [label]
    for frame in frames:
        key = frame[1]
        steps.append(f'[{json.dumps(key if isinstance(key, str) else str(key))}]' if frame[3] is not None else f'[{key}]')
    return ''.join(steps)


def _at(frames, problem, label='$'):
    return f'{_path(frames, label)} {problem}'


def _key_problem(name, container):
    """None for a key `json.dumps` writes as a string without surprise (an int), else the problem."""
    if isinstance(name, int) and not isinstance(name, bool) and int.bit_length(name) <= _SAFE_BITS:
        if int.__repr__(name) in container:
            return f'has both the key {int.__repr__(name)} and the key "{int.__repr__(name)}", which are one key in JSON: use one of them'
        return None
    if isinstance(name, int) and not isinstance(name, bool):
        return f'has an integer key {_integer_size(int.bit_length(name))}, beyond ±(2**53 - 1); JSON object keys are strings: use str(key)'
    shown = _shown(name)
    if isinstance(name, tuple):
        fix = 'join it into a string (",".join(map(str, key))) or return a list of [key, value] pairs'
    else:
        fix = 'use str(key)'
    return f'has the key {shown}, {_article(name)}; JSON object keys are strings: {fix}'


def _big_integer(bits):
    return f'is an integer {_integer_size(bits)}, beyond ±(2**53 - 1), which JSON cannot carry exactly: use str(...)'


def _integer_size(bits):
    """`of 16845 bits (5071 digits)`: its size, never its digits (printing 5 000 of them is what sys.set_int_max_str_digits guards)."""
    # Between 2**(bits - 1) and 2**bits - 1, which has as many digits as 2**bits (never a power of ten).
    low = int((bits - 1) * math.log10(2)) + 1
    high = int(bits * math.log10(2)) + 1
    digits = f'{low} digits' if low == high else f'{low} or {high} digits'
    return f'of {bits} bits ({digits})'


def _is_numpy(value):
    """Whether `value` is numpy's or pandas' (only a program that imported them can hold one, so no import)."""
    return 'numpy' in sys.modules and type(value).__module__.partition('.')[0] in ('numpy', 'pandas')


def _is_missing_time(value):
    """pandas' NaT, a datetime that is no time: null."""
    pandas = sys.modules.get('pandas')
    return pandas is not None and value is pandas.NaT


def _is_datetime(value):
    # Only a program that imported datetime can hold one, so the check costs no import.
    module = sys.modules.get('datetime')
    return module is not None and isinstance(value, (module.date, module.time))


def _unjsonable(value):
    """What `value` is and what to write instead."""
    if _is_numpy(value):
        problem = sluice_values_data.problem(value)
        if problem is not None:
            return problem
    described = _article(value)
    if isinstance(value, collections.abc.Coroutine):
        call = not_awaited_call(value)
        return f'is {call}, which was never awaited: write `await {call}`'
    if isinstance(value, (bytes, bytearray, memoryview)):
        fix = 'decode it to a string (.decode(), or base64)'
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
    """`default` for json.dumps: what the walker accepted beyond plain JSON (converted values, datetimes)."""
    if _converted:
        known = _converted[-1].get(id(value))
        if known is _NULL:
            return None
        if known is not None:
            return known
    if _is_datetime(value):
        return value.isoformat()
    raise TypeError(f'Object of type {type(value).__name__} is not JSON serializable')


def _json_writer(ensure_ascii):
    """`json.dumps(value, ensure_ascii=..., allow_nan=False, separators=(',', ':'), default=_to_json)` as one function.

    Made once, in the zygote: `json.dumps` with these options builds a `JSONEncoder` on every call,
    half a dozen Python calls (each a page a child copies) before the C encoder runs. Values are
    checked for cycles by `_walk` first, and frames are built acyclic, so no circular check.
    """
    make = json.encoder.c_make_encoder
    if make is None:  # an interpreter without the _json accelerator
        return lambda value: json.dumps(value, ensure_ascii=ensure_ascii, allow_nan=True, separators=(',', ':'), default=_to_json)
    escape = json.encoder.c_encode_basestring_ascii if ensure_ascii else json.encoder.c_encode_basestring
    # allow_nan: the walk has refused Python's own NaN and infinities; numpy's become null in `_encoded`.
    write = make(None, _to_json, escape, None, ':', ',', False, False, True)
    return lambda value: escape(value) if type(value) is str else ''.join(write(value, 0))


def encode(value):
    """The UTF-8 JSON text of a checked value, compact, without a newline."""
    try:
        return _write_utf8(value).encode('utf-8')
    except UnicodeEncodeError:
        # A lone surrogate has no UTF-8 form; \\u escapes carry it, as JavaScript strings can.
        return _write_ascii(value).encode('ascii')


def check_and_encode(value, depth_limit, limit_bytes):
    """(problem, encoded, size): a JSON problem; or the encoding when it fits `limit_bytes`; or only a size over it.

    The memory it needs beyond the value is a small multiple of the JSON it writes, whatever the
    value's shape: the walk holds nothing per element and stops once the JSON certainly passes the
    limit, so a value that reaches the same container many times (`v = [v, v]` repeated) is never
    written out in full. Measured in docs/decisions/2026-11-30-python-value-memory.md.
    """
    _converted.append({})
    _nonfinite.append(False)
    try:
        problem, low, high = _walk(value, depth_limit, limit_bytes)
        return _encoded(problem, low, high, value, limit_bytes)
    finally:
        _converted.pop()
        _nonfinite.pop()


def check_and_encode_call(positional, keywords, depth_limit, limit_bytes):
    """`check_and_encode` of a host call's `[positional, keywords]`, a problem named as the program wrote it (`args[0]`)."""
    _converted.append({})
    _nonfinite.append(False)
    try:
        problem, low, high = _walk(positional, depth_limit, limit_bytes, 'args', 1)
        if problem is None and low <= limit_bytes:
            problem, more_low, more_high = _walk(keywords, depth_limit, limit_bytes - low, '$', 1)
            low, high = low + more_low + 3, high + more_high + 3
        return _encoded(problem, low, high, [positional, keywords], limit_bytes)
    finally:
        _converted.pop()
        _nonfinite.pop()


def _encoded(problem, low, high, value, limit_bytes):
    if problem is not None:
        return problem, None, 0
    if low > limit_bytes:
        return None, None, low
    if high > limit_bytes:
        # Numbers near the limit: measure piece by piece before writing it out whole.
        encoder = json.JSONEncoder(
            ensure_ascii=False, allow_nan=True, separators=(',', ':'), check_circular=False, default=_to_json
        )
        size = 0
        for chunk in encoder.iterencode(value):
            size += len(chunk.encode('utf-8', 'surrogatepass'))
            if size > limit_bytes:
                return None, None, size
    encoded = encode(value)
    if _nonfinite[-1]:
        encoded = _NON_FINITE.sub(_finite, encoded)
    return None, (encoded if len(encoded) <= limit_bytes else None), len(encoded)


_write_utf8, _write_ascii = _json_writer(False), _json_writer(True)


def _finite(match):
    """A string as it is; a number the walk let through from numpy as JSON has it: NaN and infinities null, -0.0 as 0.0."""
    text = match.group(0)
    if match.group(1) is not None:
        return text
    return b'0.0' if text == b'-0.0' else b'null'


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
