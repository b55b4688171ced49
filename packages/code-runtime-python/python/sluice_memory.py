"""Whether a program's failure is the address-space limit refusing memory, whatever form it took; and
the room held back under that limit for reporting it."""

import builtins
import ctypes
import errno
import os

_libc = ctypes.CDLL(None, use_errno=True)
_mmap = _libc.mmap
_mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_mmap.restype = ctypes.c_void_p
_munmap = _libc.munmap
_munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_munmap.restype = ctypes.c_int
_MAP_FAILED = ctypes.c_void_p(-1).value
_PROT_NONE = 0
_MAP_PRIVATE_ANONYMOUS_NORESERVE = 0x02 | 0x20 | 0x4000


class AddressSpaceReserve:
    """`size` bytes of address space held back, and handed back by `release` when the program runs out.

    A mapping that is never accessible: it counts against the address-space limit and costs no
    memory. (`bytes(size)` looked the same but is zeroed by the C library whenever it reuses freed
    heap memory, which writes, and copies from the zygote, every page of it.)
    """

    def __init__(self, size):
        address = _mmap(None, size, _PROT_NONE, _MAP_PRIVATE_ANONYMOUS_NORESERVE, -1, 0)
        if address is None or address == _MAP_FAILED:
            raise MemoryError(os.strerror(ctypes.get_errno()))
        self._mapped = (address, size)

    def release(self):
        if self._mapped is not None:
            _munmap(*self._mapped)
            self._mapped = None

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
