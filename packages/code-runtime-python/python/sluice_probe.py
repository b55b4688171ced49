"""Learns which containment layers this machine supports, by applying them in a forked child and checking each one holds."""

import json
import os
import select
import signal
import socket
import threading

import sluice_containment
import sluice_seccomp

#: Optional layers, in the order a child applies them.
OPTIONAL_LAYERS = ('capabilities', 'landlock', 'seccomp')


def _candidates(disabled):
    problems = {}
    layers = ['capabilities']
    if sluice_containment.landlock_abi() > 0:
        layers.append('landlock')
    else:
        problems['landlock'] = 'the kernel offers no Landlock (Linux 5.13+ with Landlock enabled is needed)'
    if sluice_seccomp.supported():
        layers.append('seccomp')
    else:
        problems['seccomp'] = f'no seccomp filter is written for the {os.uname().machine} architecture (x86-64 only)'
    for layer in disabled:
        if layer in layers:
            layers.remove(layer)
            problems[layer] = 'disabled by the runtime'
    return layers, problems


def probe(memory_bytes, cpu_seconds, base_directory, disabled=()):
    """Returns {'layers': [...], 'problems': {layer: reason}, 'landlockAbi': n, 'addressSpaceBytes': n|None, 'cpuSeconds': n|None}."""
    layers, problems = _candidates(disabled)
    report = {}
    readable = sluice_containment.read_paths()
    for _attempt in range(len(OPTIONAL_LAYERS) + 1):
        plan = sluice_containment.Plan(layers, memory_bytes, cpu_seconds, readable)
        report = _probe_once(plan, base_directory)
        crashed = report.get('crashed')
        if crashed is None or not layers:
            break
        # A crash while checking is blamed on the last layer applied, which is then probed without.
        layer = crashed['layer'] if crashed['layer'] in layers else layers[-1]
        layers.remove(layer)
        problems[layer] = crashed['reason']
    for layer, reason in report.get('failed', {}).items():
        if layer in layers:
            layers.remove(layer)
        problems[layer] = reason
    applied = [layer for layer in report.get('applied', []) if layer.split('-')[0] not in problems]
    return {
        'layers': applied,
        'problems': problems,
        'landlockAbi': sluice_containment.landlock_abi(),
        'addressSpaceBytes': report.get('limits', {}).get('addressSpaceBytes'),
        'cpuSeconds': report.get('limits', {}).get('cpuSeconds'),
    }


def _probe_once(plan, base_directory):
    directory = os.path.join(base_directory, f'probe-{os.getpid()}')
    os.makedirs(directory, mode=0o700, exist_ok=True)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            _probe_child(write_end, plan, directory)
        finally:
            os._exit(0)
    os.close(write_end)
    output = bytearray()
    try:
        while True:
            ready, _, _ = select.select([read_end], [], [], 10.0)
            if not ready:
                os.kill(pid, signal.SIGKILL)
                break
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            output += chunk
    finally:
        os.close(read_end)
        _, status = os.waitpid(pid, 0)
        _remove(directory)
    return _parse(output.decode('utf-8', 'replace'), status)


def _remove(directory):
    try:
        os.rmdir(directory)
    except FileNotFoundError:
        pass
    except OSError:
        import shutil  # noqa: PLC0415  (kept out of the zygote, see sluice_zygote._remove)

        shutil.rmtree(directory, ignore_errors=True)


def _parse(output, status):
    report = {'applied': [], 'failed': {}}
    stage = None
    for line in output.splitlines():
        kind, _, rest = line.partition(' ')
        if kind == 'stage':
            stage = rest
        elif kind == 'applied':
            report['applied'] = json.loads(rest)
        elif kind == 'limits':
            report['limits'] = json.loads(rest)
        elif kind == 'fail':
            layer, _, reason = rest.partition(' ')
            report['failed'][layer] = reason
        elif kind == 'done':
            stage = None
    if stage is not None:
        how = f'signal {-os.waitstatus_to_exitcode(status)}' if os.WIFSIGNALED(status) else 'an exit'
        report['crashed'] = {'layer': stage, 'reason': f'applying it ended the probe process ({how})'}
    return report


def _probe_child(fd, plan, directory):
    def say(text):
        os.write(fd, (text + '\n').encode())

    applied = plan.apply(directory, only='rlimits')
    say('limits ' + json.dumps(sluice_containment.effective_limits()))
    for layer in plan.layers:
        say(f'stage {layer}')
        try:
            applied += plan.apply(directory, only=layer)
        except OSError as error:
            say(f'fail {layer} {error}')
    say('stage checks')
    for layer, problem in _check(applied):
        say(f'fail {layer} {problem}')
    say('applied ' + json.dumps(applied))
    say('done')


def _expect_refused(action):
    try:
        result = action()
    except PermissionError:
        return None
    except OSError as error:
        return f'expected a refusal, got {error}'
    if isinstance(result, int) and result == 0:
        os._exit(0)  # a fork that should have been refused; the child leaves at once
    return 'the call was allowed'


def _check(applied):
    problems = []
    if 'landlock' in applied:
        problem = _expect_refused(lambda: os.listdir('/'))
        if problem:
            problems.append(('landlock', f'listing / after Landlock: {problem}'))
    if 'landlock-scopes' in applied:
        problem = _expect_refused(lambda: os.kill(os.getppid(), 0))
        if problem:
            problems.append(('landlock', f'signalling the zygote after Landlock: {problem}'))
    if 'seccomp' in applied:
        for name, action in (('socket', lambda: socket.socket(socket.AF_UNIX)), ('fork', os.fork)):
            problem = _expect_refused(action)
            if problem:
                problems.append(('seccomp', f'{name} after seccomp: {problem}'))
    try:
        import colorsys  # noqa: F401  (a lazy standard-library import must still work)

        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
    except Exception as error:  # noqa: BLE001
        for layer in ('landlock', 'seccomp'):
            if layer in applied:
                problems.append((layer, f'the interpreter broke under containment: {error!r}'))
    return problems
