"""A seccomp-bpf filter for one run child, assembled in pure Python (x86-64 only).

The filter denies, with EPERM: new sockets, exec, new processes (threads stay allowed), ptrace and
every other call that reaches into another process, and the system-administration calls. Calls
that name a process (kill, prlimit64, sched_setaffinity, ...) are allowed only on the child itself.
Anything from another ABI (i386 via int 0x80, x32) kills the process.
"""

import ctypes
import errno
import os
import struct

_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_SYSCALL_BIT = 0x40000000
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_RET_ALLOW = 0x7FFF0000

_LD_W_ABS = 0x20
_JMP_JEQ = 0x15
_JMP_JGE = 0x35
_JMP_JSET = 0x45
_RET_K = 0x06

_OFFSET_NR = 0
_OFFSET_ARCH = 4

_CLONE_THREAD = 0x00010000
# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME, and CLONE_PIDFD/PTRACE.
_CLONE_REFUSED_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000
_CLONE_REFUSED_FLAGS |= 0x40000000 | 0x00000080 | 0x00001000 | 0x00002000

# Refused with EPERM. Numbers from the x86-64 table (asm/unistd_64.h).
REFUSED = {
    'socket': 41, 'socketpair': 53, 'fork': 57, 'vfork': 58, 'execve': 59, 'execveat': 322,
    'ptrace': 101, 'process_vm_readv': 310, 'process_vm_writev': 311, 'pidfd_open': 434,
    'pidfd_send_signal': 424, 'pidfd_getfd': 438, 'kcmp': 312, 'process_madvise': 440,
    'process_mrelease': 448, 'migrate_pages': 256, 'move_pages': 279, 'tkill': 200,
    'io_uring_setup': 425, 'io_uring_enter': 426, 'io_uring_register': 427, 'bpf': 321,
    'perf_event_open': 298, 'userfaultfd': 323, 'mount': 165, 'umount2': 166, 'pivot_root': 155,
    'chroot': 161, 'unshare': 272, 'setns': 308, 'keyctl': 250, 'add_key': 248, 'request_key': 249,
    'init_module': 175, 'finit_module': 313, 'delete_module': 176, 'kexec_load': 246,
    'kexec_file_load': 320, 'reboot': 169, 'swapon': 167, 'swapoff': 168, 'acct': 163,
    'settimeofday': 164, 'clock_settime': 227, 'clock_adjtime': 305, 'adjtimex': 159,
    'sethostname': 170, 'setdomainname': 171, 'iopl': 172, 'ioperm': 173, 'open_by_handle_at': 304,
    'name_to_handle_at': 303, 'quotactl': 179, 'quotactl_fd': 443, 'fanotify_init': 300,
    'move_mount': 429, 'open_tree': 428, 'fsopen': 430, 'fsconfig': 431, 'fsmount': 432,
    'fspick': 433, 'mount_setattr': 442, 'lookup_dcookie': 212, 'vhangup': 153, 'syslog': 103,
    'uselib': 134, 'nfsservctl': 180,
}  # fmt: skip

# Allowed only when the argument at this index names the child itself (0 or its pid).
SELF_ONLY = {
    'kill': (62, 0), 'tgkill': (234, 0), 'rt_sigqueueinfo': (129, 0), 'rt_tgsigqueueinfo': (297, 0),
    'prlimit64': (302, 0), 'sched_setaffinity': (203, 0), 'sched_setscheduler': (144, 0),
    'sched_setparam': (142, 0), 'sched_setattr': (314, 0), 'setpriority': (141, 1),
    'ioprio_set': (251, 1),
}  # fmt: skip

_CLONE = 56
_CLONE3 = 435  # ENOSYS, so the C library falls back to clone(), whose flags the filter can read.

_PR_SET_NO_NEW_PRIVS = 38
_SYS_SECCOMP = 317
_SECCOMP_SET_MODE_FILTER = 1
# Without it the kernel turns on speculative-store-bypass mitigation for the filtered process, which
# slows CPython down by a third here; the program is alone in its address space, so there is nothing
# in-process for that mitigation to protect.
_SECCOMP_FILTER_FLAG_SPEC_ALLOW = 1 << 2


def supported():
    """Whether this machine's architecture has a filter here (x86-64 only)."""
    return os.uname().machine == 'x86_64'


class _Assembler:
    def __init__(self):
        self.code = []
        self.labels = {}

    def label(self, name):
        self.labels[name] = len(self.code)

    def emit(self, code, k=0, jt=0, jf=0):
        self.code.append((code, jt, jf, k))

    def assemble(self):
        out = bytearray()
        for index, (code, jt, jf, k) in enumerate(self.code):
            out += struct.pack('=HBBI', code, self._offset(index, jt), self._offset(index, jf), k)
        return bytes(out)

    def _offset(self, index, target):
        if isinstance(target, int):
            return target
        offset = self.labels[target] - index - 1
        if not 0 <= offset <= 255:
            raise ValueError(f'seccomp jump to {target} out of range ({offset})')
        return offset


def _arg_low(index):
    # seccomp_data.args[index], low 32 bits (little-endian); pid_t and int arguments live there.
    return 16 + 8 * index


#: How many call numbers the end of a branch of the search compares one by one (see `build`).
_LEAF = 8


def build(pid):
    """The filter program for the process `pid`, as bytes of struct sock_filter.

    The call number is looked up in a balanced search over the numbers the filter treats specially
    (80 of them): every call is decided within 17 instructions, where a list checked in order took up
    to 88. The kernel runs the filter on every system call, and when it is installed runs it once per
    call number to find the ones it always allows; both get cheaper (installing it, by about a quarter).
    """
    program = _Assembler()
    program.emit(_LD_W_ABS, _OFFSET_ARCH)
    program.emit(_JMP_JEQ, _AUDIT_ARCH_X86_64, 0, 'kill')
    program.emit(_LD_W_ABS, _OFFSET_NR)
    program.emit(_JMP_JGE, _X32_SYSCALL_BIT, 'kill', 0)
    special = [(number, 'refuse') for number in REFUSED.values()]
    special += [(_CLONE3, 'no-such-call'), (_CLONE, 'clone')]
    special += [(number, f'self-{name}') for name, (number, _index) in SELF_ONLY.items()]
    _search(program, sorted(special))
    # Classic BPF jumps only forward, so the checks come next and the shared returns last.
    program.label('clone')
    program.emit(_LD_W_ABS, _arg_low(0))
    program.emit(_JMP_JSET, _CLONE_REFUSED_FLAGS, 'refuse', 0)
    program.emit(_JMP_JSET, _CLONE_THREAD, 'allow', 'refuse')
    for name, (_number, index) in SELF_ONLY.items():
        program.label(f'self-{name}')
        program.emit(_LD_W_ABS, _arg_low(index))
        program.emit(_JMP_JEQ, 0, 'allow', 0)
        if name == 'kill':
            program.emit(_JMP_JEQ, pid, 'allow', 0)
            # kill(-pgid): the child leads its own process group, so -pid is its own group.
            program.emit(_JMP_JEQ, (-pid) & 0xFFFFFFFF, 'allow', 'refuse')
        else:
            program.emit(_JMP_JEQ, pid, 'allow', 'refuse')
    program.label('allow')
    program.emit(_RET_K, _RET_ALLOW)
    program.label('refuse')
    program.emit(_RET_K, _RET_ERRNO | errno.EPERM)
    program.label('no-such-call')
    program.emit(_RET_K, _RET_ERRNO | errno.ENOSYS)
    program.label('kill')
    program.emit(_RET_K, _RET_KILL_PROCESS)
    return program.assemble()


def _search(program, entries):
    """Emits a search of the sorted (number, label) `entries` for the call number in the accumulator.

    A branch splits at its middle number (>= goes right); its end compares up to _LEAF numbers and
    allows any other call. Walked with a stack, left branch first, as the program is laid out.
    """
    pending = [('', entries)]
    while pending:
        name, branch = pending.pop()
        if name:
            program.label(name)
        if len(branch) <= _LEAF:
            for number, target in branch:
                program.emit(_JMP_JEQ, number, target, 0)
            program.emit(_RET_K, _RET_ALLOW)
            continue
        middle = len(branch) // 2
        right = f'search-{branch[middle][0]}'
        program.emit(_JMP_JGE, branch[middle][0], right, 0)
        pending.append((right, branch[middle:]))
        pending.append(('', branch[:middle]))


class _SockFprog(ctypes.Structure):
    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]


class Filter:
    """The filter, assembled once (in the zygote) with a placeholder for the child's pid.

    A child writes its pid into the program's buffer and installs it: the pid is all that differs.
    """

    _PLACEHOLDER = 0x7FFFFFF0

    def __init__(self):
        code = build(self._PLACEHOLDER)
        self._buffer = ctypes.create_string_buffer(code, len(code))
        self._program = _SockFprog(len(code) // 8, ctypes.addressof(self._buffer))
        self._program_address = ctypes.addressof(self._program)
        self._pid_offsets = []
        self._negative_pid_offsets = []
        negative = (-self._PLACEHOLDER) & 0xFFFFFFFF
        for offset in range(4, len(code), 8):
            (k,) = struct.unpack_from('=I', code, offset)
            if k == self._PLACEHOLDER:
                self._pid_offsets.append(offset)
            elif k == negative:
                self._negative_pid_offsets.append(offset)

    def code_for(self, pid):
        """The filter program for `pid`, as bytes."""
        self._patch(pid)
        return self._buffer.raw

    def install(self, pid):
        """Sets no_new_privs and installs the filter for the calling process, whose pid is `pid`. Raises OSError."""
        self._patch(pid)
        _install(self._program_address)

    def _patch(self, pid):
        for offset in self._pid_offsets:
            struct.pack_into('=I', self._buffer, offset, pid)
        for offset in self._negative_pid_offsets:
            struct.pack_into('=I', self._buffer, offset, (-pid) & 0xFFFFFFFF)


_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.argtypes = [ctypes.c_long] * 7
_syscall.restype = ctypes.c_long
_SYS_PRCTL = 157


def _install(program_address):
    if _syscall(_SYS_PRCTL, _PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), 'prctl(PR_SET_NO_NEW_PRIVS) failed')
    flags = _SECCOMP_FILTER_FLAG_SPEC_ALLOW
    if _syscall(_SYS_SECCOMP, _SECCOMP_SET_MODE_FILTER, flags, program_address, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), 'seccomp(SECCOMP_SET_MODE_FILTER) failed')
