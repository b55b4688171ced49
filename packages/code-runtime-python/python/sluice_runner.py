"""One run, in a child just forked from the zygote: contain the process, run one program, report, exit."""

import _signal
import _socket
import asyncio
import builtins
import gc
import inspect
import json
import os
import resource
import select
import selectors
import sys
import traceback
import types

import sluice_channel
import sluice_containment
import sluice_data
import sluice_determinism
import sluice_host_calls
import sluice_memory
import sluice_program
import sluice_sync_calls
import sluice_values

PROTOCOL_VERSION = sluice_channel.PROTOCOL_VERSION

#: The only environment a program sees; `{directory}` is its private working directory. Pinned by a test.
CHILD_ENVIRONMENT = {'HOME': '{directory}', 'LANG': 'C.UTF-8', 'TMPDIR': '{directory}'}

#: Modules a program may use without importing them, as in Anthropic's programmatic tool calling (`json.loads(await
#: tools.x())`): each is the module `import` would give it, one the zygote has already imported (itself, for asyncio,
#: or in WARM_MODULES), bound as a global only when the program's text names it. Pinned by a test.
PROGRAM_MODULES = ('asyncio', 'collections', 'datetime', 'functools', 'itertools', 'json', 'math', 're', 'statistics')

#: Exit codes for a child that could not report: the runner itself failed, or memory ran out while reporting.
EXIT_RUNNER_FAILED = 70
EXIT_OUT_OF_MEMORY = 71

#: The real one: the program's `asyncio.new_event_loop` refuses (see sluice_program._new_event_loop).
_new_event_loop = asyncio.new_event_loop
#: The real one: a deterministic run's reads the virtual clock (sluice_determinism_process); `usage` is the process's.
_getrusage = resource.getrusage
#: The lowest descriptor of the zygote loop's self-pipe: above what a child keeps (0 to 2, and the
#: channel on 3) and the socket pair it makes for its own self-pipe (the next two).
_SELF_PIPE_FLOOR = 10


def run_child(order, sockets, context):
    """Never returns. `sockets` are the control, stdout and stderr connections the zygote opened for this run."""
    try:
        _prepare_process(order, sockets, context)
        prepared = context['prepared']
        channel = prepared.channel
        loop = _event_loop(context.get('loop'))
        asyncio.set_event_loop(loop)
        layers = context['plan'].apply(order['directory'])
        limits = sluice_containment.effective_limits()
        started = {'v': PROTOCOL_VERSION, 'type': 'started', 'pid': os.getpid(), 'layers': _fixed_layers() + layers, **limits}
        effective = limits['addressSpaceBytes']
        if effective is not None and effective < context['requiredBytes']:
            started['error'] = _gate_message(effective, context['requiredBytes'])
        if 'error' in started:
            channel.send(started)
            os._exit(0)
        _prepare_program(prepared, loop)
        # What the zygote handed over is emptied as its own state was (sluice_zygote's Zygote.forget): its
        # frames under the program, and what they hold, stay reachable to a program that walks them.
        for handed in (context, order, sockets):
            handed.clear()
        del context, order, sockets
        channel.send(started)
        _warm_while_waiting(loop)
        request = channel.read_first_frame()
        _run(channel, loop, request, prepared)
    except MemoryError:
        os._exit(EXIT_OUT_OF_MEMORY)
    except BaseException:  # noqa: BLE001  (the runner reports what it can, then leaves)
        try:
            os.write(2, traceback.format_exc().encode('utf-8', 'replace'))
        finally:
            os._exit(EXIT_RUNNER_FAILED)
    os._exit(0)


def prepare_event_loop():
    """Run once in the zygote: an event loop whose Python objects every child inherits already built.

    A poll selector keeps no kernel state, so the only per-process part is the self-pipe. It is made
    at _SELF_PIPE_FLOOR or above, where each child puts a socket pair of its own (see _event_loop).
    """
    below = []  # held open while the loop is made, so its socket pair gets higher numbers
    try:
        while not below or below[-1] < _SELF_PIPE_FLOOR - 1:
            below.append(os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC))
        return asyncio.SelectorEventLoop(selectors.PollSelector())
    finally:
        for fd in below:
            os.close(fd)


def _event_loop(template):
    """The zygote's loop, with a self-pipe of this process's own at the descriptors the loop knows.

    The zygote's self-pipe was closed with every other inherited descriptor. A new socket pair put
    at the same numbers leaves the loop's socket objects and its selector's registration as they
    were, so none of the loop's Python code runs here to rebuild them.
    """
    if template is not None:
        try:
            ends = (template._ssock, template._csock)
            pair = _socket.socketpair()
            if min(end.fileno() for end in ends) >= _SELF_PIPE_FLOOR > max(new.fileno() for new in pair):
                for new, end in zip(pair, ends):
                    new.setblocking(False)
                    os.dup2(new.fileno(), end.fileno(), inheritable=False)
                    new.close()
                return template
            for new in pair:
                new.close()
        except AttributeError:
            pass  # Another CPython's event-loop internals: build one the ordinary way.
    return _new_event_loop()


def warm_up(context):
    """Run once in the zygote: what CPython builds lazily on first use (the AST types, the event
    loop's machinery, the JSON codecs) is then built once, for every child, instead of in each."""
    loop = context['loop']
    sluice_program.compile_program('value = [1]\nreturn value\n')
    sluice_program.compile_program(_WARM_PROGRAM, _WARM_BINDINGS)
    loop.run_until_complete(_tick())
    sluice_values.encode_frame({'v': PROTOCOL_VERSION, 'type': 'log', 'text': 'é'})
    json.loads('{"v": 1, "value": [1.5, null]}')
    # Whether a value or a call is awaitable, or a coroutine, is cached per type by `abc` and asyncio, after
    # a walk of Python calls: asked here of the usual types, it is not asked anew (nor cached) in every child.
    for value in (0, 0.5, '', None, True, [], {}, (), sluice_host_calls.HostCall.__new__(sluice_host_calls.HostCall)):
        inspect.isawaitable(value)
        asyncio.iscoroutine(value)
    # Last: the loop watches fd 3 from here on, which only a child's run of it ever polls.
    context['prepared'].channel.watch(loop)


def prepare_environment():
    """Run once in the zygote: its environment becomes the children's, so a child changes only its directory."""
    os.environ.clear()
    os.environ.update({name: value.format(directory='/') for name, value in CHILD_ENVIRONMENT.items()})


def _fixed_layers():
    return ['session', 'environment', 'directory', 'descriptors']


def _gate_message(effective, required):
    return (
        f'The address-space limit this process really got is {effective} bytes (an inherited `ulimit -v` is '
        f'stricter than the memoryBytes setting), but the output budgets need at least {required} bytes. '
        'Raise the inherited limit, or lower valueBytes, hostCallBytes and logBytes.'
    )


def _prepare_process(order, sockets, context):
    os.setsid()
    sluice_containment.set_parent_death_signal(_signal.SIGKILL)
    if os.getppid() != context['zygotePid']:
        os._exit(0)  # The zygote died between fork and here; nobody would reap or kill this run.
    if 'seccomp' not in context['plan'].layers:
        # Orphans of the program's processes stay this child's; with seccomp there are none.
        sluice_containment.set_child_subreaper()
    _set_wakeup_fd(-1)
    _set_handler(_signal.SIGCHLD, _signal.SIG_DFL)
    _set_handler(_signal.SIGTERM, _signal.SIG_DFL)
    control, stdout, stderr = (sock.detach() for sock in sockets)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(stdout, 1)
    os.dup2(stderr, 2)
    os.dup2(control, 3, inheritable=False)
    sluice_containment.close_descriptors_from(4)  # 0 to 2, and the channel on 3, stay
    directory = order['directory']
    # The zygote's environment is already exactly CHILD_ENVIRONMENT (see prepare_environment); only the directory differs.
    for name, value in CHILD_ENVIRONMENT.items():
        if '{directory}' in value:
            os.environ[name] = value.format(directory=directory)
    os.umask(0o077)
    os.mkdir(directory, 0o700)
    os.chdir(directory)


class Prepared:
    """What every run needs that does not depend on its program, built once in the zygote.

    Each child inherits its own copy (copy-on-write): the channel object for fd 3, the log streams,
    the program's builtins and module, and the modules patched for programs cost a child only the
    pages it then writes.
    """

    def __init__(self):
        self.channel = sluice_channel.Channel(3)
        self.budget = sluice_channel.LogBudget(0)
        self.stdout = sluice_channel.log_stream(self.channel, 'stdout', self.budget)
        self.stderr = sluice_channel.log_stream(self.channel, 'stderr', self.budget)
        self.builtins = _program_builtins()
        # The program is the module `__main__`: `import __main__`, pickling and dataclasses find its globals.
        self.module = types.ModuleType('__main__')
        self.host_calls = sluice_host_calls.HostCalls(self.channel)
        self.figure_limits = (0, 0)  # matplotlib figures sent a run: count and base64 bytes (set by the zygote)
        sluice_program.patch_asyncio()
        sluice_values.install_json_hint()
        sluice_host_calls.watch_coroutines()
        sys.argv = [sluice_program.PROGRAM_FILE]  # not the zygote's (its config): a script's argparse sees no arguments
        # Listed here: a child walking the names of every loaded module would copy the pages they are on.
        self.runner_modules = [name for name in sys.modules if name.startswith('sluice_')]


async def _tick():
    await asyncio.sleep(0)


def _prepare_program(prepared, loop):
    sys.modules['builtins'] = prepared.builtins
    if 'ssl' in sys.modules and sys.modules['ssl'] is None:
        del sys.modules['ssl']  # kept out of the zygote only; see sluice_zygote
    # `import sluice_runner` in the program finds nothing; the runner keeps the modules it uses.
    for name in prepared.runner_modules:
        sys.modules.pop(name, None)
    # Made now, while the child waits: `socket()` is an audited event, and after the program nothing
    # audited may happen before `done` is sent (a program's audit hook would run inside the runner).
    prepared.ends = {fd: _socket_of(fd) for fd in (1, 2, 3)}
    prepared.descriptor_writes = sluice_channel.DescriptorWrites(os.write, {1: prepared.stdout.buffer, 2: prepared.stderr.buffer})


def _warm_while_waiting(loop):
    """While the child waits for its program, copies the pages a run writes first (copy-on-write from the zygote).

    One turn of the event loop, a compile, a value checked and a reply read: the run's own compile then
    takes about half as long. Each step is taken only while the run has not arrived, so a child handed
    its program at once (every spare taken, as under full load) spends no CPU rehearsing it. The loop's
    watch on fd 3 reads nothing before the channel is attached, so a run that arrives meanwhile waits.
    """
    arrived = select.poll()
    arrived.register(3, select.POLLIN)
    # A child the host forked for a run that waits gets it within a moment of `started`; only a spare
    # that nobody has claimed yet goes on waiting, and it has the time to rehearse.
    if arrived.poll(_CLAIM_WAIT_MS):
        return
    for step in _WARM_STEPS:
        step(loop)
        if arrived.poll(0):
            return


def _warm_loop(loop):
    loop.run_until_complete(_tick())


def _warm_compile(_loop):
    sluice_program.compile_program(_WARM_PROGRAM, _WARM_BINDINGS)


def _warm_values(_loop):
    sluice_values.check_and_encode({'n': [1, 'a', 1.5, None, True]}, 64, 1 << 20)
    json.loads(b'{"v":1,"type":"reply","id":1,"ok":true,"value":{"x":1}}')


_WARM_STEPS = (_warm_loop, _warm_compile, _warm_values)
#: How long a child that has sent `started` waits for a run before it rehearses one.
_CLAIM_WAIT_MS = 2

#: A program of the usual shape, compiled by each child before its own (see _warm_while_waiting).
_WARM_PROGRAM = 'items = await tools.get({"q": [1]})\nfor item in items:\n    print(f"{item}")\nreturn {"n": len(items) + 1}\n'
_WARM_BINDINGS = {'tools': ['get']}


def _run(channel, loop, request, prepared):
    limits = request['limits']
    if request.get('deterministic') is not None:
        sluice_determinism.install(request['deterministic'], loop, channel)  # before attach: replies wait from the first
    sluice_data.reseed(request.get('deterministic'))
    channel.attach(loop, limits)
    prepared.budget.limit = limits['logBytes'] + 4096
    sys.stdout, sys.stderr = prepared.stdout, prepared.stderr
    sys.__stdout__, sys.__stderr__ = prepared.stdout, prepared.stderr
    # `os.write(1, ...)` joins `print` in one ordered stream of log frames (see DescriptorWrites).
    os.write = prepared.descriptor_writes
    # Head-room for reporting, freed when the program runs out of memory: address space only.
    reserve = sluice_memory.AddressSpaceReserve(256 * 1024)
    try:
        program = sluice_program.compile_program(request['program'], request['bindings'])
    except Exception as error:  # noqa: BLE001  (a NUL byte or a lone surrogate fails as ValueError or UnicodeError)
        _finish(channel, {'ok': False, 'error': {'kind': 'exception', **sluice_program.describe_error(error)}}, prepared)
        return
    sys.modules['__main__'] = prepared.module
    program_globals = prepared.module.__dict__
    program_globals.update({'__builtins__': sys.modules['builtins'], 'asyncio': asyncio})
    host_calls = prepared.host_calls
    host_calls.install(program_globals, request['bindings'], sys.modules['builtins'].__dict__)
    granted = host_calls.qualified.get('final_answer')
    if granted is not None and len(granted) == 1 and 'final_answer' not in program_globals:
        # Over the builtin: the host's tool of that name is the one the model was shown.
        namespace = granted[0].split('.', 1)[0]
        program_globals['final_answer'] = getattr(program_globals[namespace], 'final_answer')
    # After the tools, so a namespace or bare tool name of the same name is what the declarations show;
    # only the modules the source names, since binding one writes to its object (a page a child copies).
    source = request['program']
    for name in PROGRAM_MODULES:
        if name in source and name not in program_globals:
            module = sys.modules.get(name)
            if module is not None:
                program_globals[name] = module
    failure = None
    has_value = value = checked = None
    figure_limits = prepared.figure_limits
    try:
        try:
            has_value, value = sluice_program.execute(program, program_globals, loop)
        finally:
            _quiesce()
        figures = sluice_data.collect_figures(*figure_limits)
        if figures is not None:
            # Figures shown or left open travel in the value, where code mode finds images (see README, "Data analysis").
            value = {'figures': figures, 'value': value} if has_value else {'figures': figures}
            has_value = True
        if has_value:
            # Reading the value can run the program's code (a generator's body, an exception's __str__, a
            # set's comparisons): with nothing it armed left to interrupt it, and anything that code arms
            # stopped again below. What comes back is a tuple of bytes and numbers.
            checked = sluice_values.check_and_encode(value, limits['depth'], limits['valueBytes'])
    except BaseException as error:  # noqa: BLE001  (SystemExit and KeyboardInterrupt are program errors too)
        failure = error
    # Again: a handler that raised on the way into the first one is the program's error, not the runner's.
    _quiesce()
    refused = sluice_memory.out_of_memory(failure)
    if refused is not None:
        reserve.release()
        traceback.clear_frames(failure.__traceback__)
        failure.__traceback__ = None
        failure = None
        gc.collect()
        outcome = {'ok': False, 'error': {'kind': 'memory', 'name': type(refused).__name__, 'message': sluice_memory.description(refused)}}
        refused = None
    elif failure is not None:
        try:
            host_calls.name_hint(failure)
            outcome = {'ok': False, 'error': {'kind': 'exception', **sluice_program.describe_error(failure)}}
        except MemoryError:
            outcome = {'ok': False, 'error': {'kind': 'memory', 'name': 'MemoryError', 'message': 'MemoryError'}}
    else:
        outcome = _value_outcome(checked) if has_value else {'ok': True}
        never_awaited = host_calls.never_awaited()
        if outcome['ok'] and never_awaited is not None:
            outcome = {'ok': False, 'error': {'kind': 'exception', **never_awaited}}
    _finish(channel, outcome, prepared)


def _quiesce():
    """The program has ended: nothing it armed may run from here on, inside the runner or after `done`.

    Its interval timers and alarm stop; its signal handlers become a no-op (SIGXCPU goes back to
    the default, so the CPU budget still ends the process); its trace and profile functions, the
    signal wake-up descriptor, automatic garbage collection and `gc.callbacks` are dropped. Its
    tasks never run again: the event loop is not run after this. A handler that was already due
    may still run once here; whatever it raises is dropped.
    """
    for _attempt in range(8):
        try:
            for timer in _TIMERS:
                _setitimer(timer, 0)
            _alarm(0)
            _set_wakeup_fd(-1)
            for number in _HANDLED_SIGNALS:
                handler = _get_handler(number)
                if handler is not None and handler is not _ignore and callable(handler):
                    _set_handler(number, _signal.SIG_DFL if number == _signal.SIGXCPU else _ignore)
            # Both are audited events: called only when there is something to drop.
            if sys.gettrace() is not None:
                sys.settrace(None)
            if sys.getprofile() is not None:
                sys.setprofile(None)
            gc.disable()
            gc.callbacks.clear()
            return
        except BaseException:  # noqa: BLE001, S112  (a handler that was due ran and raised: go round again)
            continue


def _ignore(_number, _frame):
    """The handler of every signal the program handled, once it has ended."""


_TIMERS = (_signal.ITIMER_REAL, _signal.ITIMER_VIRTUAL, _signal.ITIMER_PROF)
_HANDLED_SIGNALS = sorted(_signal.valid_signals() - {_signal.SIGKILL, _signal.SIGSTOP})
# The C functions, bound once: `signal.signal` and `signal.getsignal` convert numbers and handlers
# through enum, a dozen Python calls a signal (each a page a child copies); and what the program
# assigns to the `signal` module's names cannot change how the runner stops what it armed.
_set_handler, _get_handler = _signal.signal, _signal.getsignal
_setitimer, _alarm, _set_wakeup_fd = _signal.setitimer, _signal.alarm, _signal.set_wakeup_fd


def _socket_of(fd):
    try:
        return _socket.socket(fileno=fd)  # the C type: socket.socket adds only Python calls
    except OSError:
        return None


def _program_builtins():
    """A copy of the builtins module for the program, also what `import builtins` gives it.

    What the program does to its builtins (`builtins.len = ...`) then changes only its own code,
    not the runner and asyncio underneath it, which keep the real ones.
    """
    module = types.ModuleType('builtins', builtins.__doc__)
    module.__dict__.update(builtins.__dict__)
    module.HostCallError = sluice_channel.HostCallError
    setattr(module, sluice_sync_calls.SYNC, sluice_host_calls.call_now)
    sluice_program.install(module)
    return module


def _value_outcome(checked):
    """The `done` outcome for a value `check_and_encode` has checked: its encoding, which `_finish` sends as it is."""
    problem, encoded, size = checked
    if problem is not None:
        return {'ok': False, 'error': {'kind': 'invalid-output', 'message': problem}}
    if encoded is None:
        message = f'{size} or more bytes of JSON'
        return {'ok': False, 'error': {'kind': 'output-limit', 'message': message}}
    return {'ok': True, 'value': encoded}


def _finish(channel, outcome, prepared):
    for stream in (prepared.stdout, prepared.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001, S110
            pass
    usage = _getrusage(resource.RUSAGE_SELF)
    outcome['usage'] = {
        'cpuMs': round((usage.ru_utime + usage.ru_stime) * 1000, 3),
        'peakMemoryBytes': usage.ru_maxrss * 1024,
    }
    # The frame is bytes before anything else happens: nothing that runs from here on can change it.
    # Sealed, the channel drops what the program's threads still print instead of sending it after `done`.
    # The value is already JSON (see _value_outcome): it goes in as those bytes, not encoded again.
    value = outcome.pop('value', None)
    done = sluice_values.encode_frame({'v': PROTOCOL_VERSION, 'type': 'done', **outcome})
    if value is not None:
        done = done[:-2] + b',"value":' + value + b'}\n'
    channel.seal()
    # End of output first, then the result, then end of frames: the host finishes the run once it
    # has all three, without waiting for this process to be torn down.
    _shut_down(prepared, 1)
    _shut_down(prepared, 2)
    try:
        channel.send_final(done)
    except sluice_channel.ChannelClosed:
        pass
    _shut_down(prepared, 3)
    os._exit(0)


def _shut_down(prepared, fd):
    connection = prepared.ends.get(fd)
    if connection is None:
        return
    try:
        connection.shutdown(_socket.SHUT_WR)
    except OSError:
        pass
