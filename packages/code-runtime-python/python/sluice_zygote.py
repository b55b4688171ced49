"""The zygote: a pre-started interpreter with the runner loaded that forks one child per run.

Started by the host as `python -I -S -B sluice_zygote.py <config JSON>`. It reads commands (`fork`,
`kill`) as JSON lines on stdin and writes reports (`ready`, `exit`, `boot-error`) as JSON
lines on stdout. With `--probe` it only writes `ready` (or `boot-error`) and exits.
"""

import sys

if sys.version_info < (3, 10) or sys.implementation.name != 'cpython':
    sys.stdout.write(
        '{"v":1,"type":"boot-error","message":"CPython 3.10 or newer is needed; this is %s %s at %s."}\n'
        % (sys.implementation.name, sys.version.split()[0], sys.executable.replace('"', "'"))
    )
    sys.exit(3)

if __name__ == '__main__' and not globals().get('_RECOMPILED'):
    # Run as a script, this file was compiled as it was read, among the compiler's scratch objects; the
    # code objects and constants of the zygote (which it and every child touch on each fork) would then
    # lie spread over more pages. Compiled, marshalled and loaded again, as from a `.pyc`, they lie
    # together: about 20 fewer copy-on-write faults a run, measured. The rest of this file runs in the
    # namespace below; this frame keeps no reference to the code or its configuration.
    import marshal

    def _recompiled():
        with open(__file__, 'rb') as file:
            return marshal.dumps(compile(file.read(), __file__, 'exec', dont_inherit=True))

    exec(  # noqa: S102
        marshal.loads(_recompiled()),
        {'__name__': '__main__', '__file__': __file__, '__builtins__': __builtins__, '_RECOMPILED': True},
    )
    sys.exit(0)

# asyncio would load ssl, and with it OpenSSL's libraries and tables (2 MiB the zygote would make every
# child copy and tear down). A child has no network; it forgets this and can still import ssl itself.
sys.modules['ssl'] = None

import _signal  # noqa: E402  (pthread_sigmask without signal's enum conversions, on every fork)
import _socket  # noqa: E402
import asyncio  # noqa: E402,F401  (loaded here once, so every child starts with it)
import errno  # noqa: E402
import gc  # noqa: E402
import importlib.machinery  # noqa: E402
import json  # noqa: E402
import marshal  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import time  # noqa: E402

#: Standard-library modules model programs import most, loaded once here so that a run importing them pays
#: nothing for it (measured: `datetime` 1.5 ms a run; `decimal`, `statistics`, `dataclasses` and `uuid` 8 ms).
#: A program could import each of them anyway; none opens a file or socket or starts a thread when imported,
#: and none loads OpenSSL (`hashlib` would, and every child would copy it). Pinned by a test.
WARM_MODULES = (
    'base64', 'bisect', 'copy', 'csv', 'dataclasses', 'datetime', 'decimal', 'fractions', 'functools', 'heapq',
    'itertools', 'math', 'operator', 'pprint', 'random', 'statistics', 'string', 'textwrap', 'typing',
    'urllib.parse', 'uuid',
)  # fmt: skip


def _warm_modules():
    for name in WARM_MODULES:
        try:
            __import__(name)
        except ImportError:
            pass  # an interpreter built without one (no _decimal, say): the program imports it or learns it is missing


# Before the runner's modules and all the zygote builds, which are what a child touches most: made later,
# those lie together on fewer pages than they would among these modules, and each child copies fewer
# (about 45 copy-on-write faults a run fewer, measured). The probe does without them.
if '--probe' not in sys.argv:
    _warm_modules()


class _CompiledRunner:
    """Serves the runner's modules from code compiled and marshalled before any of them is imported.

    The package ships no bytecode and the zygote writes none (`-B`), so each runner module would be
    compiled from source as it is imported: the compiler's scratch objects, freed, would leave the
    runner's code objects, functions and constants spread over more pages among them, and every child
    copies the pages it touches. Compiled first and loaded from bytes afterwards, as from a `.pyc`,
    they lie together (about 35 copy-on-write faults a run fewer, measured).
    """

    def __init__(self, directory):
        self.compiled = {}
        for entry in sorted(os.listdir(directory)):
            name, extension = os.path.splitext(entry)
            if extension == '.py' and name.startswith('sluice_') and name != 'sluice_zygote':
                path = os.path.join(directory, entry)
                with open(path, 'rb') as file:
                    self.compiled[name] = (path, marshal.dumps(compile(file.read(), path, 'exec', dont_inherit=True)))
        gc.collect()

    def find_spec(self, name, path=None, target=None):
        entry = self.compiled.get(name)
        if entry is None:
            return None
        spec = importlib.machinery.ModuleSpec(name, self, origin=entry[0])
        spec.has_location = True  # `__file__` is the source's path, as for a module imported the usual way
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        _path, data = self.compiled.pop(module.__name__)
        exec(marshal.loads(data), module.__dict__)  # noqa: S102  (the runner's own modules)


_runner = _CompiledRunner(os.path.dirname(os.path.abspath(__file__)))
sys.meta_path.insert(0, _runner)
try:
    import sluice_containment  # noqa: E402
    import sluice_data  # noqa: E402
    import sluice_fork  # noqa: E402
    import sluice_probe  # noqa: E402
    import sluice_runner  # noqa: E402
finally:
    # Gone once the runner is loaded: a program cannot import from it, nor from the runner's directory
    # (Landlock need not allow it). Without -I (see zygoteFlags), Python put that directory first in the path.
    sys.meta_path.remove(_runner)
    del _runner
sys.path[:] = [entry for entry in sys.path if entry != os.path.dirname(os.path.abspath(__file__))]

PROTOCOL_VERSION = 1
_SWEEP_SECONDS = 2.0
_HELLO = b'{"v":%d,"type":"hello","token":"%s","stream":"%s"}\n'
_TOKEN = re.compile(rb'[0-9a-f]{32}')
_CONNECT_ATTEMPTS = 3
# Interrupted, not connected after an interrupted connect, or the host's backlog full for a moment.
_RETRIED = (errno.EINTR, errno.ENOTCONN, errno.EAGAIN)
# One encoder for every report and one decoder for every command: fewer Python calls on each fork.
_encode = json.JSONEncoder(separators=(',', ':')).encode
_decode = json.JSONDecoder().decode


def _report(frame):
    data = (_encode(frame) + '\n').encode('utf-8')
    try:
        while data:
            data = data[os.write(1, data) :]
    except BrokenPipeError:
        pass  # The host is gone; shutting down is what is left to do, and its closed stdin says so.


class Zygote:
    def __init__(self, config, ready, extra_paths=()):
        self.config = config
        readable = sluice_containment.read_paths([*extra_paths, *config.get('readPaths', ())])
        self.context = {
            'plan': sluice_containment.Plan(ready['layers'], config['memoryBytes'], config['cpuSeconds'], readable),
            'requiredBytes': config['requiredBytes'],
            'zygotePid': os.getpid(),
            'loop': sluice_runner.prepare_event_loop(),
            'prepared': sluice_runner.Prepared(),
        }
        self.context['prepared'].figure_limits = (config.get('figureLimit', 8), config.get('figureBytes', 0))
        self.runs = {}  # pid -> (run number, working directory), for children not yet reaped
        self.commands = bytearray()  # what the host sent that is not yet a whole line
        self.children_file = f'/proc/self/task/{os.getpid()}/children'
        # Under the seccomp filter a child cannot fork, so there is never a stray to sweep.
        self.may_fork = 'seccomp' not in ready['layers']
        self.forker = sluice_fork.Forker(sluice_fork.direct_fork_sound())

    def serve(self):
        wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.set_wakeup_fd(wake_write, warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda _signal, _frame: None)
        poller = select.poll()
        poller.register(0, select.POLLIN)
        poller.register(wake_read, select.POLLIN)
        while True:
            for fd, _events in poller.poll():
                if fd == wake_read:
                    while True:
                        try:
                            if not os.read(wake_read, 4096):
                                break
                        except BlockingIOError:
                            break
                    self.reap()
                    continue
                data = os.read(0, 65536)
                if not data:
                    return  # the host closed stdin: main() shuts down
                self.commands += data
                # No bytes of the command buffer stay in this frame's locals across a fork: a child could
                # find the tokens of the forks after its own there (see forget).
                del data
                while b'\n' in self.commands:
                    line, _, rest = bytes(self.commands).partition(b'\n')
                    self.commands = bytearray(rest)
                    order = _decode(line.decode())
                    del line, rest
                    self.command(order)

    def command(self, frame):
        if frame['type'] == 'fork':
            self.fork(frame)
        elif frame['type'] == 'kill':
            for pid, (run, _directory) in list(self.runs.items()):
                if run == frame['run']:
                    _kill(pid)

    def fork(self, order):
        # A run that ends meanwhile (SIGCHLD) must not interrupt a connect(): interrupted while the host's
        # backlog is full, CPython takes the unconnected socket for a connected one and the first send fails
        # with ENOTCONN. The signal stays pending until the child is forked; then the wake-up pipe reaps as usual.
        previous = _signal.pthread_sigmask(_signal.SIG_BLOCK, (_signal.SIGCHLD,))
        try:
            started = self._start(order)
        finally:
            _signal.pthread_sigmask(_signal.SIG_SETMASK, previous)  # in the zygote, and in the child alike
        if started is None:
            return
        pid, sockets = started
        if pid == 0:
            sluice_runner.run_child(order, sockets, self.forget())
        for connection in sockets:
            connection.close()
        self.runs[pid] = (order['run'], order['directory'])

    def forget(self):
        """In a child: empties the zygote's state, and returns the context the runner needs (it empties that).

        The frames under the child's program are this object's, `main`'s and the module's, and a program
        can walk them: the configuration (the host's socket, also `main`'s), the table of runs, and the
        command buffer with fork orders for later children (their tokens) are emptied, not only dropped;
        so is the module's namespace, which the child never runs again.
        """
        context = self.__dict__.pop('context')
        for value in self.__dict__.values():
            if isinstance(value, (dict, list, bytearray)):
                value.clear()
        self.__dict__.clear()
        globals().clear()  # last: no name of this module is looked up after it
        return context

    def _start(self, order):
        """Connects the child's three streams and forks it: (pid, sockets), or None once the failure is reported."""
        sockets = []
        try:
            token = order['token'].encode()
            if not _TOKEN.fullmatch(token):
                raise OSError(0, 'malformed token')
            for stream in ('control', 'stdout', 'stderr'):
                sockets.append(_connect(self.config['socket'], _HELLO % (PROTOCOL_VERSION, token, stream.encode())))
            return self.forker.fork(), sockets
        except OSError as error:
            for connection in sockets:
                connection.close()
            _report({'v': PROTOCOL_VERSION, 'type': 'exit', 'run': order['run'], 'error': f'could not start: {error}'})
            return None

    def reap(self):
        while True:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            entry = self.runs.pop(pid, None)
            if entry is None:
                continue  # a stray from an earlier sweep
            run, directory = entry
            if self.may_fork:
                _kill_group(pid)  # whatever is left of its process group; the pid itself may be reused now
                self.sweep()
            _remove(directory)
            report = {'v': PROTOCOL_VERSION, 'type': 'exit', 'run': run, 'code': None, 'signal': None}
            if os.WIFSIGNALED(status):
                report['signal'] = os.WTERMSIG(status)
            else:
                report['code'] = os.WEXITSTATUS(status)
            report['cpuMs'] = round((usage.ru_utime + usage.ru_stime) * 1000, 3)
            report['maxRssBytes'] = usage.ru_maxrss * 1024
            _report(report)

    def sweep(self):
        """Kills every child of the zygote that is not a live run: descendants of ended runs, reparented here."""
        deadline = time.monotonic() + _SWEEP_SECONDS
        killed = set()
        while time.monotonic() < deadline:
            strays = [pid for pid in self.children() if pid not in self.runs]
            if not strays:
                return
            for pid in strays:
                if pid not in killed:
                    _kill(pid)
                    killed.add(pid)
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
            time.sleep(0.0005)

    def children(self):
        try:
            with open(self.children_file) as listing:
                return [int(pid) for pid in listing.read().split()]
        except FileNotFoundError:
            return _children_by_scan(os.getpid())

    def shutdown(self):
        """The host closed stdin or died: kill every run and wait for them, so nothing outlives the zygote."""
        for pid in list(self.runs):
            _kill(pid)
        deadline = time.monotonic() + _SWEEP_SECONDS
        while self.runs and time.monotonic() < deadline:
            self.reap()
            time.sleep(0.001)
        self.sweep()


def _connect(path, hello):
    """One connection to the host, its hello line sent. A connect that did not really connect is tried again:
    nothing was sent on it, so the host never saw it."""
    for attempt in range(_CONNECT_ATTEMPTS):
        connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)  # the C type: socket.socket adds Python calls
        try:
            connection.connect(path)
            connection.sendall(hello)
            return connection
        except OSError as error:
            connection.close()
            if error.errno not in _RETRIED or attempt == _CONNECT_ATTEMPTS - 1:
                raise
        except BaseException:
            connection.close()
            raise
    raise AssertionError('unreachable')


def _remove(directory):
    try:
        os.rmdir(directory)
    except FileNotFoundError:
        pass
    except OSError:
        import shutil  # noqa: PLC0415  (rarely needed, and it would load compression modules into every child)

        shutil.rmtree(directory, ignore_errors=True)


def _kill_group(pid):
    try:
        os.kill(-pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill(pid):
    for target in (-pid, pid):
        try:
            os.kill(target, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _children_by_scan(parent):
    children = []
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                with open(f'/proc/{entry}/stat') as stat:
                    fields = stat.read().rpartition(')')[2].split()
                if int(fields[1]) == parent:
                    children.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return children


def boot(config):
    """The `ready` report: what this interpreter is, which layers hold, and the budget gate's verdict."""
    disabled = config.get('disabledLayers', [])
    probe = sluice_probe.probe(config['memoryBytes'], config['cpuSeconds'], config['directory'], disabled)
    effective = probe['addressSpaceBytes']
    if effective is not None and effective < config['requiredBytes']:
        return {'v': PROTOCOL_VERSION, 'type': 'boot-error', 'message': sluice_runner._gate_message(effective, config['requiredBytes'])}
    return {
        'v': PROTOCOL_VERSION,
        'type': 'ready',
        'pid': os.getpid(),
        'executable': sys.executable,
        'version': sys.version.split()[0],
        'euid': os.geteuid(),
        **probe,
    }


def main():
    config = json.loads(sys.argv[1])
    ready = boot(config)
    if ready['type'] != 'ready' or '--probe' in sys.argv:
        _report(ready)
        return
    # If the host dies, SIGTERM (raised here as SystemExit) still lets the zygote kill its children
    # and remove the private directory, as closing stdin would.
    signal.signal(signal.SIGTERM, _terminate)
    sluice_containment.set_parent_death_signal(signal.SIGTERM)
    sluice_containment.set_child_subreaper()
    extra_paths, problem = sluice_data.preload(config.get('preloadModules', ()), config.get('numericThreads', 1))
    problem = problem or _preload_gate(config)
    if problem is not None:
        _report({'v': PROTOCOL_VERSION, 'type': 'boot-error', 'message': problem})
        return
    zygote = Zygote(config, ready, extra_paths)
    sluice_runner.warm_up(zygote.context)
    sluice_runner.prepare_environment()
    gc.collect()
    gc.freeze()
    _report(ready)
    try:
        zygote.serve()
    except SystemExit:
        pass
    finally:
        # Both may come when the host dies (stdin at its end, and SIGTERM); the second must not cut this short.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        zygote.shutdown()
        _remove(config['directory'])


def _preload_gate(config):
    """With modules preloaded, a child starts with more mapped than the budget gate's baseline: a sentence when too much."""
    if not config.get('preloadModules'):
        return None
    with open('/proc/self/status') as status:
        mapped = next((int(line.split()[1]) * 1024 for line in status if line.startswith('VmSize:')), 0)
    needed = mapped + config['requiredBytes'] - _BASELINE_BYTES
    if config['memoryBytes'] >= needed:
        return None
    return (
        f'With preloadModules imported the zygote has {mapped} bytes of address space mapped, which every child starts '
        f'with; the output budgets need {config["requiredBytes"] - _BASELINE_BYTES} bytes more, so memoryBytes must be at '
        f'least {needed} (it is {config["memoryBytes"]}). Raise memoryBytes or preload fewer modules.'
    )


#: The interpreter's share of the budget gate (interpreterBaselineBytes in python-settings.ts).
_BASELINE_BYTES = 64 * 1024 * 1024


def _terminate(_signal, _frame):
    raise SystemExit(0)


if __name__ == '__main__':
    main()
