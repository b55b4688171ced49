"""Runs the child's seccomp filter program on every x86-64 call number, in a small classic-BPF interpreter.

Run as `python3 seccomp_verdicts.py <runner directory>`. Prints one JSON line: the calls whose verdict
differs from the filter's stated rules (none expected), how many verdicts were checked, and the most
instructions any call took to decide.
"""

import errno
import json
import struct
import sys

sys.path.insert(0, sys.argv[1])
import sluice_seccomp  # noqa: E402

PID = 4242
ALLOW = 'allow'
PERM = 'EPERM'
NOSYS = 'ENOSYS'
KILL = 'kill'
_RETURNS = {0x7FFF0000: ALLOW, 0x00050000 | errno.EPERM: PERM, 0x00050000 | errno.ENOSYS: NOSYS, 0x80000000: KILL}


def run(code, arch, number, args):
    """(verdict, instructions executed) for one call, as the kernel would decide it."""
    data = struct.pack('=iI Q 6Q', number, arch, 0, *[arg & 0xFFFFFFFFFFFFFFFF for arg in args])
    accumulator, index, steps = 0, 0, 0
    while True:
        operation, jump_true, jump_false, k = struct.unpack_from('=HBBI', code, index * 8)
        steps += 1
        if operation == 0x20:  # ld w abs
            (accumulator,) = struct.unpack_from('=I', data, k)
            index += 1
        elif operation in (0x15, 0x35, 0x45):  # jeq, jge, jset
            taken = {0x15: accumulator == k, 0x35: accumulator >= k, 0x45: accumulator & k != 0}[operation]
            index += 1 + (jump_true if taken else jump_false)
        elif operation == 0x06:  # ret k
            return _RETURNS[k], steps
        else:
            raise ValueError(f'unexpected instruction {operation:#x}')


def expected(number, args):
    """The filter's rules, as its module states them."""
    if number in sluice_seccomp.REFUSED.values():
        return PERM
    if number == sluice_seccomp._CLONE3:
        return NOSYS
    if number == sluice_seccomp._CLONE:
        flags = args[0] & 0xFFFFFFFF
        if flags & sluice_seccomp._CLONE_REFUSED_FLAGS or not flags & sluice_seccomp._CLONE_THREAD:
            return PERM
        return ALLOW
    for name, (special, index) in sluice_seccomp.SELF_ONLY.items():
        if number == special:
            target = args[index] & 0xFFFFFFFF
            own = {0, PID} | ({(-PID) & 0xFFFFFFFF} if name == 'kill' else set())
            return ALLOW if target in own else PERM
    return ALLOW


code = sluice_seccomp.build(PID)
argument_sets = [
    [0] * 6,
    [PID] * 6,
    [-PID] * 6,
    [1] * 6,
    [0x00010000 | 0x00000100] * 6,  # CLONE_THREAD | CLONE_VM
    [0x00010000 | 0x10000000] * 6,  # CLONE_THREAD | CLONE_NEWUSER
    [0x01200011] * 6,  # what fork() passes to clone
]
wrong, checked, most = [], 0, 0
for number in range(512):
    for args in argument_sets:
        verdict, steps = run(code, sluice_seccomp._AUDIT_ARCH_X86_64, number, args)
        checked += 1
        most = max(most, steps)
        if verdict != expected(number, args):
            wrong.append([number, args[0], verdict])
for number in (0, 59, sluice_seccomp._X32_SYSCALL_BIT | 1):
    arch = sluice_seccomp._AUDIT_ARCH_X86_64 if number & sluice_seccomp._X32_SYSCALL_BIT else 0x40000003  # i386
    verdict, _steps = run(code, arch, number, [0] * 6)
    checked += 1
    if verdict != KILL:
        wrong.append([number, arch, verdict])
print(json.dumps({'wrong': wrong, 'checked': checked, 'mostInstructions': most}))
