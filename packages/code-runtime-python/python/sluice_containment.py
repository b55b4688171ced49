"""Kernel containment for one run child, from pure Python: rlimits, capabilities, Landlock, seccomp.

A `Plan` is built once in the zygote: every buffer, address and number a child needs. A forked
child then applies it with little more than system calls, since every object it touches is a page
copied from the zygote (copy-on-write) and costs time. The zygote's probe applies the same plan in
a child of its own to learn which layers this machine supports and that they hold.
"""

import ctypes
import errno
import os
import resource
import struct
import sys

import sluice_seccomp

_libc = ctypes.CDLL(None, use_errno=True)
# Always seven arguments: the call number and six longs (the kernel ignores the ones a call lacks).
_syscall = _libc.syscall
_syscall.argtypes = [ctypes.c_long] * 7
_syscall.restype = ctypes.c_long

_SYS_PRCTL = 157
_SYS_CAPGET = 125
_SYS_CAPSET = 126
_SYS_CLOSE_RANGE = 436
_SYS_LANDLOCK_CREATE_RULESET = 444
_SYS_LANDLOCK_ADD_RULE = 445
_SYS_LANDLOCK_RESTRICT_SELF = 446
_LANDLOCK_CREATE_RULESET_VERSION = 1
_LANDLOCK_RULE_PATH_BENEATH = 1

_FS_EXECUTE = 1 << 0
_FS_WRITE_FILE = 1 << 1
_FS_READ_FILE = 1 << 2
_FS_READ_DIR = 1 << 3
_FS_REMOVE_DIR = 1 << 4
_FS_REMOVE_FILE = 1 << 5
_FS_MAKE_DIR = 1 << 7
_FS_MAKE_REG = 1 << 8
_FS_REFER = 1 << 13
_FS_TRUNCATE = 1 << 14
_FS_IOCTL_DEV = 1 << 15
_FILE_ACCESS = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV
_NET_BIND_TCP = 1 << 0
_NET_CONNECT_TCP = 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
_SCOPE_SIGNAL = 1 << 1

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAPABILITY_VERSION_3 = 0x20080522

# Read-only trees besides the interpreter's own import path: the C library and shared objects
# extension modules load, the loader cache, and time zones.
_SYSTEM_READ_PATHS = (
    '/lib', '/lib32', '/lib64', '/usr/lib', '/usr/lib32', '/usr/lib64', '/usr/local/lib',
    '/etc/ld.so.cache', '/usr/share/zoneinfo',
)  # fmt: skip

#: The resource limits every child gets besides address space and CPU, which are settings.
FILE_BYTES = 64 * 1024 * 1024
OPEN_FILES = 64


def _call(number, *args):
    while True:
        result = _syscall(number, *args, *(0,) * (6 - len(args)))
        if result >= 0:
            return result
        error = ctypes.get_errno()
        if error != errno.EINTR:  # a signal while the call waited: it is made again, as os.* calls are (PEP 475)
            raise OSError(error, os.strerror(error))


def landlock_abi():
    """The Landlock ABI version this kernel offers, or 0 when it has none (or it is disabled)."""
    version = _syscall(_SYS_LANDLOCK_CREATE_RULESET, 0, 0, _LANDLOCK_CREATE_RULESET_VERSION, 0, 0, 0)
    return version if version > 0 else 0


def read_paths(extra=()):
    """What the interpreter needs to read: its import path, the system libraries and `extra`, each tree once.

    Landlock rules hold for an inode and everything beneath it, so a path inside another's tree, or
    a second name for the same one (`/lib` for `/usr/lib`), would only cost each child more system
    calls: they are left out.
    """
    paths = [entry for entry in sys.path if entry]
    paths += [os.path.join(sys.base_prefix, 'lib'), os.path.join(sys.base_exec_prefix, 'lib')]
    paths += _SYSTEM_READ_PATHS
    paths += extra
    trees = []
    for path in sorted({os.path.realpath(path) for path in paths if os.path.exists(path)}, key=len):
        if not any(path.startswith(tree + os.sep) for tree in trees if os.path.isdir(tree)):
            trees.append(path)
    return trees


def set_parent_death_signal(signal_number):
    """Asks the kernel to send `signal_number` to this process when its parent dies."""
    _syscall(_SYS_PRCTL, _PR_SET_PDEATHSIG, signal_number, 0, 0, 0, 0)


def set_child_subreaper():
    """Makes orphaned descendants of this process its children rather than init's."""
    _syscall(_SYS_PRCTL, _PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0, 0)


def close_descriptors_from(lowest):
    """Closes every file descriptor >= `lowest`, with close_range(2) where the kernel has it."""
    if _syscall(_SYS_CLOSE_RANGE, lowest, 0xFFFFFFFF, 0, 0, 0, 0) != 0:
        os.closerange(lowest, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


class Plan:
    """The containment of every child of one zygote: rlimits, then the optional `layers` in order."""

    def __init__(self, layers, memory_bytes, cpu_seconds, readable, abi=None):
        self.layers = tuple(layers)
        self.rlimits = []
        for limit, soft, hard in (
            (resource.RLIMIT_AS, memory_bytes, memory_bytes),
            # SIGXCPU at the soft limit, SIGKILL at the hard one for a program that ignores SIGXCPU.
            (resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + 1),
            (resource.RLIMIT_FSIZE, FILE_BYTES, FILE_BYTES),
            (resource.RLIMIT_NOFILE, OPEN_FILES, OPEN_FILES),
            (resource.RLIMIT_CORE, 0, 0),
            (resource.RLIMIT_MEMLOCK, 0, 0),
        ):
            # Never above what the zygote was given (an inherited `ulimit`), which children share.
            current = resource.getrlimit(limit)[1]
            hard = hard if current == resource.RLIM_INFINITY else min(hard, current)
            self.rlimits.append((limit, (min(soft, hard), hard)))
        self._cap_header = ctypes.create_string_buffer(struct.pack('=Ii', _CAPABILITY_VERSION_3, 0))
        self._cap_data = ctypes.create_string_buffer(24)
        self._cap_check = ctypes.create_string_buffer(24)
        self._addresses = [ctypes.addressof(buffer) for buffer in (self._cap_header, self._cap_data, self._cap_check)]
        self.landlock_layers = ()
        if 'landlock' in self.layers:
            self._plan_landlock(landlock_abi() if abi is None else abi, readable)
        self.seccomp = sluice_seccomp.Filter() if 'seccomp' in self.layers else None

    def _plan_landlock(self, abi, readable):
        handled = (1 << 13) - 1
        handled |= (_FS_REFER if abi >= 2 else 0) | (_FS_TRUNCATE if abi >= 3 else 0) | (_FS_IOCTL_DEV if abi >= 5 else 0)
        fields, layers = [handled], ['landlock']
        if abi >= 4:
            fields.append(_NET_BIND_TCP | _NET_CONNECT_TCP)
            layers.append('landlock-network')
        if abi >= 6:
            fields.append(_SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL)
            layers.append('landlock-scopes')
        self.landlock_layers = tuple(layers)
        self._ruleset = ctypes.create_string_buffer(struct.pack(f'={len(fields)}Q', *fields))
        self._ruleset_size = 8 * len(fields)
        read = _FS_READ_FILE | _FS_READ_DIR
        self._read_rules = [(path, read if os.path.isdir(path) else read & _FILE_ACCESS) for path in readable]
        write = read | _FS_WRITE_FILE | _FS_REMOVE_DIR | _FS_REMOVE_FILE | _FS_MAKE_DIR | _FS_MAKE_REG
        self._write_access = write | (handled & (_FS_REFER | _FS_TRUNCATE))
        self._rule = ctypes.create_string_buffer(12)

    def apply(self, writable, only=None):
        """Applies the plan in the calling process; `only` limits it to one layer (the probe). Returns the layers applied."""
        applied = []
        if only in (None, 'rlimits'):
            for limit, values in self.rlimits:
                resource.setrlimit(limit, values)
            applied.append('rlimits')
        if 'capabilities' in self.layers and only in (None, 'capabilities'):
            self._drop_capabilities()
            applied.append('capabilities')
        if 'landlock' in self.layers and only in (None, 'landlock'):
            self._restrict_filesystem(writable)
            applied += self.landlock_layers
        if 'seccomp' in self.layers and only in (None, 'seccomp'):
            self.seccomp.install(os.getpid())
            applied.append('seccomp')
        return applied

    def _drop_capabilities(self):
        # With no_new_privs an exec grants nothing back, so the bounding set needs no dropping.
        header, data, check = self._addresses
        _call(_SYS_PRCTL, _PR_SET_NO_NEW_PRIVS, 1)
        _syscall(_SYS_PRCTL, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0, 0)
        _call(_SYS_CAPSET, header, data)
        _call(_SYS_CAPGET, header, check)
        if self._cap_check.raw != bytes(24):
            raise OSError(0, 'capabilities remained after capset')

    def _restrict_filesystem(self, writable):
        ruleset = _call(_SYS_LANDLOCK_CREATE_RULESET, ctypes.addressof(self._ruleset), self._ruleset_size, 0)
        try:
            for path, access in [*self._read_rules, (writable, self._write_access)]:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                try:
                    struct.pack_into('=Qi', self._rule, 0, access, fd)
                    _call(_SYS_LANDLOCK_ADD_RULE, ruleset, _LANDLOCK_RULE_PATH_BENEATH, ctypes.addressof(self._rule), 0)
                finally:
                    os.close(fd)
            _call(_SYS_PRCTL, _PR_SET_NO_NEW_PRIVS, 1)
            _call(_SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0)
        finally:
            os.close(ruleset)


def effective_limits():
    """The address-space and CPU limits this process really has (None for unlimited)."""
    address_space = resource.getrlimit(resource.RLIMIT_AS)[0]
    cpu = resource.getrlimit(resource.RLIMIT_CPU)[0]
    return {
        'addressSpaceBytes': None if address_space == resource.RLIM_INFINITY else address_space,
        'cpuSeconds': None if cpu == resource.RLIM_INFINITY else cpu,
    }
