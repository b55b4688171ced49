"""What a deterministic run reads of its process and its host: ids, CPU use, load, the host's name, `uuid1`.

Installed by sluice_determinism.install on the modules programs import (`os`, `resource`, `threading`,
`socket`, `platform`, `uuid`, `logging`); the C module `posix` and ctypes still reach the real ones. Process ids
are drawn from the seed; a program that hands its own id back (`os.kill(os.getpid(), ...)`) reaches itself.
"""

import _socket
import _thread
import os
import random
import resource
import sys
import threading
import uuid

#: The host name a deterministic run sees: `os.uname().nodename`, `socket.gethostname()`, `platform.node()`.
HOST_NAME = 'sluice'

#: Functions taking a process (or group) id, and the positions of those arguments.
_TAKING_IDS = {
    'kill': (0,),
    'killpg': (0,),
    'getpgid': (0,),
    'getsid': (0,),
    'setpgid': (0, 1),
    'waitpid': (0,),
    'pidfd_open': (0,),
    'sched_getaffinity': (0,),
    'sched_setaffinity': (0,),
    'sched_getparam': (0,),
    'sched_setparam': (0,),
    'sched_getscheduler': (0,),
    'sched_setscheduler': (0,),
    'sched_rr_get_interval': (0,),
}


class Identity:
    """This process's real ids and the ones the run shows, drawn from the seed (the child leads its own
    session and process group, so its group and session ids are its pid)."""

    def __init__(self, seed):
        draw = random.Random(f'sluice-process:{seed}')
        self.real_pid, self.real_parent = os.getpid(), os.getppid()
        self.pid = draw.randrange(1000, 32768)
        self.parent = self.pid
        while self.parent == self.pid:
            self.parent = draw.randrange(1000, 32768)
        self.node = draw.getrandbits(48) | (1 << 40)  # a random node has the multicast bit set (RFC 4122)
        self._to_real = {self.pid: self.real_pid, -self.pid: -self.real_pid, self.parent: self.real_parent}

    def real(self, value):
        return self._to_real.get(value, value) if type(value) is int else value

    def shown(self, value):
        return self.pid if value == self.real_pid else value


def install(identity, clock, generator):
    """Makes this child's ids, usage, load and host name the run's. Called once, before the program."""
    _install_ids(identity)
    _install_usage(clock)
    _install_host(identity, generator)


def _install_ids(identity):
    def taking_ids(function, positions):
        def wrapper(*args, **kwargs):
            args = list(args)
            for position in positions:
                if position < len(args):
                    args[position] = identity.real(args[position])
            return function(*args, **kwargs)

        return wrapper

    real_getpgrp, real_getpriority, real_setpriority = os.getpgrp, os.getpriority, os.setpriority

    def getpriority(which, who):
        return real_getpriority(which, who if which == os.PRIO_USER else identity.real(who))

    def setpriority(which, who, priority):
        return real_setpriority(which, who if which == os.PRIO_USER else identity.real(who), priority)

    replaced = {name: taking_ids(getattr(os, name), at) for name, at in _TAKING_IDS.items() if hasattr(os, name)}
    for name in ('getpgid', 'getsid'):
        replaced[name] = _showing_ids(replaced[name], identity)
    replaced.update(
        getpid=lambda: identity.pid,
        getppid=lambda: identity.parent,
        getpgrp=_showing_ids(real_getpgrp, identity),
        getpriority=getpriority,
        setpriority=setpriority,
    )
    replace_functions(os, replaced)
    if hasattr(resource, 'prlimit'):
        real_prlimit = resource.prlimit
        resource.prlimit = lambda pid, *args: real_prlimit(identity.real(pid), *args)
    _thread.get_native_id = threading.get_native_id = _showing_ids(_thread.get_native_id, identity)
    main = threading.main_thread()
    if hasattr(main, '_native_id'):
        main._native_id = identity.pid  # inherited from the zygote, whose main thread it was


def _showing_ids(function, identity):
    def wrapper(*args, **kwargs):
        return identity.shown(function(*args, **kwargs))

    return wrapper


def _install_usage(clock):
    """CPU time is the virtual clock's (as `time.process_time`); everything else a process uses is 0."""
    real_getrusage = resource.getrusage

    def getrusage(who):
        real_getrusage(who)  # an unknown `who` raises as before
        cpu = 0.0 if who == resource.RUSAGE_CHILDREN else clock.monotonic()
        return resource.struct_rusage((cpu, 0.0) + (0,) * (resource.struct_rusage.n_sequence_fields - 2))

    def times():
        return os.times_result((clock.monotonic(), 0.0, 0.0, 0.0, clock.monotonic()))

    resource.getrusage = getrusage
    replace_functions(os, {'times': times, 'getloadavg': lambda: (0.0, 0.0, 0.0)})
    logging = sys.modules.get('logging')  # imported later, it reads the virtual clock itself
    if logging is not None:
        start = logging._startTime  # the zygote's import time; `relativeCreated` counts from it
        logging._startTime = clock.time_ns() if isinstance(start, int) else clock.time()


def _install_host(identity, generator):
    real_uname, real_uuid1 = os.uname, uuid.uuid1

    def uname():
        sysname, _node, release, version, machine = real_uname()
        return os.uname_result((sysname, HOST_NAME, release, version, machine))

    def uuid1(node=None, clock_seq=None):
        # With both given, uuid1 reads neither the machine's clock and node nor its own: the virtual clock
        # (time.time_ns) and the seeded generator instead.
        if clock_seq is None:
            clock_seq = generator.getrandbits(14)
        return real_uuid1(identity.node if node is None else node, clock_seq)

    replace_functions(os, {'uname': uname})
    _socket.gethostname = lambda: HOST_NAME  # what `socket` takes when it is imported
    if 'socket' in sys.modules:
        sys.modules['socket'].gethostname = _socket.gethostname
    if hasattr(sys.modules.get('platform'), '_uname_cache'):
        sys.modules['platform']._uname_cache = None  # filled from the real uname if anything asked before
    uuid.uuid1 = uuid1


def replace_functions(module, functions):
    """Sets `functions` on `module`, each as a static method: like the builtins they replace, they do not
    become methods when a class keeps one (CPython 3.10's pathlib does: `stat = os.stat`). A replaced
    function os lists as taking a descriptor, `dir_fd` or `follow_symlinks` is listed too, so callers that
    check (shutil.rmtree) still use it."""
    for name, function in functions.items():
        real = getattr(module, name, None)
        function = staticmethod(function)
        setattr(module, name, function)
        if module is os and real is not None:
            for supports in (os.supports_fd, os.supports_dir_fd, os.supports_follow_symlinks, os.supports_effective_ids):
                if real in supports:
                    supports.add(function)
