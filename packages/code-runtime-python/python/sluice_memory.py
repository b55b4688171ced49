"""Whether a program's failure is the address-space limit refusing memory, whatever form it took."""

import builtins
import errno

#: How deep into exception groups (asyncio.TaskGroup) the check looks.
_GROUP_DEPTH = 8
#: `BaseExceptionGroup` from CPython 3.11; nothing is one before.
_GROUP = getattr(builtins, 'BaseExceptionGroup', ())


def out_of_memory(error):
    """The exception that says the address-space limit refused an allocation, or None.

    `MemoryError`; an `OSError` with `ENOMEM` (`mmap.mmap`, and other calls that map memory); or an
    exception group holding one of them.
    """
    pending = [(error, 0)]
    while pending:
        current, depth = pending.pop()
        if isinstance(current, MemoryError):
            return current
        if isinstance(current, OSError) and current.errno == errno.ENOMEM:
            return current
        if isinstance(current, _GROUP) and depth < _GROUP_DEPTH:
            pending.extend((inner, depth + 1) for inner in current.exceptions)
    return None


def description(error):
    """`MemoryError`, or `OSError: [Errno 12] Cannot allocate memory` for the one that said it otherwise."""
    if type(error) is MemoryError:
        return 'MemoryError'
    try:
        return f'{type(error).__name__}: {error}'[:200]
    except Exception:  # noqa: BLE001  (str() of a program's exception is the program's code)
        return type(error).__name__
