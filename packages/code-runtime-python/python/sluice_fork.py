"""How the zygote forks a child: fork(2) itself, without CPython's at-fork handlers, where that is sound.

`os.fork()` runs, in every child, what modules registered with `os.register_at_fork` and CPython's
own after-fork repairs. In the zygote those are `threading` (rebuilding its table of threads and
their locks), `logging` (its locks), `random` (a new seed) and the interpreter's locks and thread
states. In a single-threaded process that forks from its main thread, outside any import, all but
the seed rebuild what the child already holds as it should be; and being Python code run in a
fresh copy-on-write child, they cost it about 150 copied pages and most of a millisecond of CPU
per run (measured on a 2-core machine: a child that exits at once, 1.3 ms against 0.45 ms).

So where the interpreter is one whose after-fork work is exactly that (CPython 3.10 to 3.13 with
the GIL) and the zygote has one thread, `fork()` calls the C library's fork directly and the child
reseeds `random` itself; anywhere else it is `os.fork()`.
"""

import ctypes
import os
import sys

# PyDLL: the call keeps the GIL, as os.fork() does; the child starts holding it.
_libc_fork = ctypes.PyDLL(None, use_errno=True).fork
_libc_fork.argtypes = ()
_libc_fork.restype = ctypes.c_int


def direct_fork_sound():
    """Whether the C library's fork is as good as os.fork() here: a known CPython with the GIL, one thread."""
    if sys.implementation.name != 'cpython' or not (3, 10) <= sys.version_info[:2] <= (3, 13):
        return False
    if not getattr(sys, '_is_gil_enabled', lambda: True)():
        return False
    try:
        return len(os.listdir('/proc/self/task')) == 1
    except OSError:
        return False


class Forker:
    """Forks the calling process; `direct` is decided once, when the zygote is ready (see `direct_fork_sound`)."""

    def __init__(self, direct):
        self.direct = direct

    def fork(self):
        """0 in the child, its pid in the parent. Raises OSError."""
        if not self.direct:
            return os.fork()
        pid = _libc_fork()
        if pid < 0:
            error = ctypes.get_errno()
            raise OSError(error, os.strerror(error))
        if pid == 0:
            # The one after-fork handler that changes something: without it every run would draw the same numbers.
            random = sys.modules.get('random')
            if random is not None:
                random.seed()
        return pid
