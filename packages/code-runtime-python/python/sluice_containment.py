"""Kernel containment for one run child, from pure Python: rlimits, capabilities, Landlock, seccomp.

`apply` runs in a freshly forked child before any program code; `probe` runs once in the zygote
(in a forked child of its own) to learn which layers this machine supports and that they hold.
"""

import ctypes
import os
import resource
import struct
import sys

import sluice_seccomp

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_libc.prctl.restype = ctypes.c_int

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
_NET_BIND_TCP = 1 << 0
_NET_CONNECT_TCP = 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
_SCOPE_SIGNAL = 1 << 1

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


def landlock_abi():
    """The Landlock ABI version this kernel offers, or 0 when it has none (or it is disabled)."""
    version = _libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), _LANDLOCK_CREATE_RULESET_VERSION)
    return version if version > 0 else 0


def apply_rlimits(memory_bytes, cpu_seconds):
    """Lowers the limits (never above an inherited hard limit). Returns the address-space and CPU limits in effect."""
    wanted = (
        (resource.RLIMIT_AS, memory_bytes, memory_bytes),
        # SIGXCPU at the soft limit, SIGKILL at the hard one for a program that ignores SIGXCPU.
        (resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + 1),
        (resource.RLIMIT_FSIZE, FILE_BYTES, FILE_BYTES),
        (resource.RLIMIT_NOFILE, OPEN_FILES, OPEN_FILES),
        (resource.RLIMIT_CORE, 0, 0),
        (resource.RLIMIT_MEMLOCK, 0, 0),
    )
    for limit, soft, hard in wanted:
        _, current_hard = resource.getrlimit(limit)
        if current_hard != resource.RLIM_INFINITY:
            hard = min(hard, current_hard)
        resource.setrlimit(limit, (min(soft, hard), hard))
    address_space = resource.getrlimit(resource.RLIMIT_AS)[0]
    cpu = resource.getrlimit(resource.RLIMIT_CPU)[0]
    return {
        'addressSpaceBytes': None if address_space == resource.RLIM_INFINITY else address_space,
        'cpuSeconds': None if cpu == resource.RLIM_INFINITY else cpu,
    }


def drop_capabilities():
    """Empties the effective, permitted, inheritable and ambient capability sets, and sets no_new_privs. Raises OSError.

    With no_new_privs an exec can grant nothing back (set-user-id bits and file capabilities are
    ignored), so the bounding set needs no separate dropping.
    """
    if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), 'prctl(PR_SET_NO_NEW_PRIVS) failed')
    _libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = ctypes.create_string_buffer(struct.pack('=Ii', _CAPABILITY_VERSION_3, 0))
    data = ctypes.create_string_buffer(24)
    if _libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), 'capset failed')
    check = ctypes.create_string_buffer(24)
    if _libc.capget(header, check) != 0 or check.raw != bytes(24):
        raise OSError(0, 'capabilities remained after capset')


def read_paths():
    """What the interpreter needs to read: its import path and the system libraries."""
    paths = [entry for entry in sys.path if entry]
    paths += [os.path.join(sys.base_prefix, 'lib'), os.path.join(sys.base_exec_prefix, 'lib')]
    paths += _SYSTEM_READ_PATHS
    return [path for path in dict.fromkeys(paths) if os.path.exists(path)]


def apply_landlock(abi, readable, writable):
    """Restricts the filesystem to reading `readable` and using `writable`; no TCP (ABI 4+); scoped signals and abstract sockets (ABI 6+).

    Returns the layer names applied. Raises OSError.
    """
    handled_fs = (1 << 13) - 1
    if abi >= 2:
        handled_fs |= _FS_REFER
    if abi >= 3:
        handled_fs |= _FS_TRUNCATE
    if abi >= 5:
        handled_fs |= 1 << 15  # IOCTL_DEV
    fields = [handled_fs]
    layers = ['landlock']
    if abi >= 4:
        fields.append(_NET_BIND_TCP | _NET_CONNECT_TCP)
        layers.append('landlock-network')
    if abi >= 6:
        fields.append(_SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL)
        layers.append('landlock-scopes')
    attributes = ctypes.create_string_buffer(struct.pack(f'={len(fields)}Q', *fields))
    ruleset = _libc.syscall(
        _SYS_LANDLOCK_CREATE_RULESET, attributes, ctypes.c_size_t(8 * len(fields)), ctypes.c_uint32(0)
    )
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), 'landlock_create_ruleset failed')
    try:
        directory_write = _FS_READ_FILE | _FS_READ_DIR | _FS_WRITE_FILE | _FS_REMOVE_DIR | _FS_REMOVE_FILE
        directory_write |= _FS_MAKE_DIR | _FS_MAKE_REG | (handled_fs & (_FS_REFER | _FS_TRUNCATE))
        for path in readable:
            _add_path_rule(ruleset, path, _FS_READ_FILE | _FS_READ_DIR)
        _add_path_rule(ruleset, writable, directory_write)
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), 'prctl(PR_SET_NO_NEW_PRIVS) failed')
        if _libc.syscall(_SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), 'landlock_restrict_self failed')
    finally:
        os.close(ruleset)
    return layers


def _add_path_rule(ruleset, path, access):
    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        if not os.path.isdir(path):
            access &= _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE
        rule = ctypes.create_string_buffer(struct.pack('=Qi', access, fd))
        result = _libc.syscall(
            _SYS_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset), _LANDLOCK_RULE_PATH_BENEATH, rule, ctypes.c_uint32(0)
        )
        if result != 0:
            raise OSError(ctypes.get_errno(), f'landlock_add_rule failed for {path}')
    finally:
        os.close(fd)


def apply(layers, memory_bytes, cpu_seconds, readable, writable, seccomp_filter=None):
    """Applies rlimits, then each optional layer named in `layers` (`capabilities`, `landlock`, `seccomp`).

    Returns the names of the layers applied and the limits in effect. Raises OSError when a layer fails.
    """
    limits = apply_rlimits(memory_bytes, cpu_seconds)
    applied = ['rlimits']
    if 'capabilities' in layers:
        drop_capabilities()
        applied.append('capabilities')
    if 'landlock' in layers:
        applied += apply_landlock(landlock_abi(), readable, writable)
    if 'seccomp' in layers:
        sluice_seccomp.apply(_libc, None if seccomp_filter is None else seccomp_filter.for_pid(os.getpid()))
        applied.append('seccomp')
    return applied, limits


def set_parent_death_signal(signal_number):
    """Asks the kernel to send `signal_number` to this process when its parent dies."""
    _libc.prctl(1, signal_number, 0, 0, 0)  # PR_SET_PDEATHSIG


def set_child_subreaper():
    """Makes orphaned descendants of this process its children rather than init's."""
    _libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def close_descriptors_from(lowest):
    """Closes every file descriptor >= `lowest`, with close_range(2) where the kernel has it."""
    if _libc.syscall(436, ctypes.c_uint(lowest), ctypes.c_uint(0xFFFFFFFF), ctypes.c_uint(0)) != 0:
        os.closerange(lowest, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
