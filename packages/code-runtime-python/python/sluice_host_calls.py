"""Host functions as the program sees them: `tools.name(...)` is a `HostCall`, made when it is awaited.

A call the program never awaits is never made; the run reports it (see `HostCalls.never_awaited`), as
it does a coroutine of the program dropped without being awaited; and using one as a value (indexing it, iterating it, testing it, returning it, `json.dumps` of it)
fails with a message that names the call and says to `await` it.
"""

import _thread
import asyncio
import collections
import collections.abc
import sys
import warnings

import sluice_program


class HostCalls:
    """The run's host functions by namespace, and the calls made but not yet awaited."""

    def __init__(self, channel):
        self.channel = channel
        self.qualified = {}  # function name → ['namespace.name', ...]
        self.waiting = {}  # serial → (call text, line) of calls not awaited yet
        self.serial = 0
        self.main_thread = None  # the thread the program runs in (see install)

    def namespace(self, namespace, names, search=None):
        """The object bound as `namespace` in the program, with one function per granted name.

        `search` is the discovery call an unknown name's error points to (`sluice.search_tools`), if any.
        """
        return _Namespace(namespace, {name: self._function(namespace, name) for name in names}, search)

    def install(self, program_globals, bindings, builtin_names):
        """Binds each namespace, and each function name unique across namespaces as a global too.

        A bare name is never bound over a namespace, a builtin or another global; a name granted in
        several namespaces is not bound, and `name_hint` then names each.
        """
        self.qualified = {}
        self.main_thread = _thread.get_ident()
        search = 'sluice.search_tools' if 'search_tools' in bindings.get('sluice', ()) else None
        for namespace, names in bindings.items():
            program_globals[namespace] = self.namespace(namespace, names, search)
            for name in names:
                self.qualified.setdefault(name, []).append(f'{namespace}.{name}')
        for name, qualified in self.qualified.items():
            if len(qualified) == 1 and name not in program_globals and name not in builtin_names:
                namespace = qualified[0].split('.', 1)[0]
                program_globals[name] = getattr(program_globals[namespace], name)

    def name_hint(self, error):
        """Adds "did you mean tools.x" to a NameError for a name that is a host function somewhere."""
        qualified = self.qualified.get(getattr(error, 'name', None))
        if isinstance(error, NameError) and qualified and len(error.args) == 1 and isinstance(error.args[0], str):
            error.args = (f'{error.args[0]}; did you mean {" or ".join(qualified)}?',)

    def _function(self, namespace, name):
        def host_function(*args, **kwargs):
            return HostCall(self, namespace, name, args, kwargs, _program_line(sys._getframe(1)))

        host_function.__name__ = name
        host_function.__qualname__ = f'{namespace}.{name}'
        return host_function

    def never_awaited(self):
        """The `error` of a `done` frame for calls and coroutines the program never awaited, or None."""
        forgotten = list(self.waiting.values()) + _dropped
        if not forgotten:
            return None
        call, line = forgotten[0]
        where = f' on line {line}' if line is not None else ''
        count = len(forgotten)
        if count == 1:
            text = f'{call}{where} was never awaited, so it never ran'
        else:
            text = f'{count} calls were never awaited, so they never ran; the first is {call}{where}'
        message = f'RuntimeError: {text}: write `await {call}`'
        error = {'name': 'RuntimeError', 'message': message, 'stack': message}
        if line is not None:
            error['line'] = line
        return error


#: (call text, line) of the program's own coroutines collected without ever being awaited.
_dropped = []


def watch_coroutines():
    """Run once in the zygote: records the program's own coroutines collected without being awaited.

    CPython only warns about them, when they are collected; here they end the run, as a host call
    never awaited does, since what the program meant to run never ran.
    """
    original = getattr(warnings, '_warn_unawaited_coroutine', None)
    if original is None:
        return

    def collected_unawaited(coroutine):
        code = getattr(coroutine, 'cr_code', None)
        if code is None or code.co_filename != sluice_program.PROGRAM_FILE:
            original(coroutine)
            return
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename != sluice_program.PROGRAM_FILE:
            frame = frame.f_back
        _dropped.append((f'{coroutine.__qualname__}(...)', frame.f_lineno if frame is not None else None))

    warnings._warn_unawaited_coroutine = collected_unawaited


def _program_line(frame):
    return frame.f_lineno if frame.f_code.co_filename == sluice_program.PROGRAM_FILE else None


def call_now(function, /, *args, **kwargs):
    """`__sluice_sync__(function, ...)` in the program: a host call not awaited where its value is used
    is made at once, blocking; what anything else returns (a function of the program that has a tool's
    name, say) is returned as it is."""
    value = function(*args, **kwargs)
    if type(value) is HostCall and value._coroutine is None:
        return value.now()
    return value


class _Made:
    """The `_coroutine` of a call made at once (`now`): it cannot be awaited or sent again."""

    def __await__(self):
        raise RuntimeError('this host call was already made without `await`; use the value it returned')

    send = throw = __await__

    def close(self):
        pass


_MADE = _Made()


class HostCall(collections.abc.Coroutine):
    """One call of a host function: awaited (or gathered, or made a task) it is sent to the host."""

    __slots__ = ('_calls', '_namespace', '_name', '_args', '_kwargs', '_serial', '_coroutine')

    def __init__(self, calls, namespace, name, args, kwargs, line):
        calls.serial += 1
        calls.waiting[calls.serial] = (f'{namespace}.{name}(...)', line)
        self._calls, self._namespace, self._name = calls, namespace, name
        self._args, self._kwargs, self._serial, self._coroutine = args, kwargs, calls.serial, None

    def call_text(self):
        return f'{self._namespace}.{self._name}(...)'

    def _arguments(self):
        """(input, positional) for the call frame, taken once: a call is sent at most once."""
        self._calls.waiting.pop(self._serial, None)
        args, kwargs = self._args, self._kwargs
        self._args = self._kwargs = None
        if not args or (len(args) == 1 and (isinstance(args[0], dict) or args[0] is None) and not kwargs):
            return (args[0] if args else (kwargs if kwargs else None)), None
        # Positional: the host maps the arguments to the tool's properties (see HostCallContext.positional).
        return (kwargs if kwargs else None), list(args)

    def _start(self):
        if self._coroutine is None:
            channel = self._calls.channel
            if asyncio._get_running_loop() is not channel.loop:
                self._calls.waiting.pop(self._serial, None)
                raise RuntimeError(
                    f'{self._namespace}.{self._name}() runs in the program\'s own event loop: await it in the program '
                    '(or use asyncio.run), not in an event loop of its own'
                )
            value, positional = self._arguments()
            self._coroutine = channel.call(self._namespace, self._name, value, positional)
        return self._coroutine

    def now(self):
        """Makes the call at once and returns its result, blocking the program until the host answers.

        What a call the program did not await becomes where its value is used (see sluice_sync_calls).
        """
        if self._coroutine is not None:
            raise RuntimeError(f'{self.call_text()} was already awaited')
        if _thread.get_ident() != self._calls.main_thread:
            self._calls.waiting.pop(self._serial, None)
            raise RuntimeError(f'{self.call_text()} without `await` is made only in the program\'s main thread')
        self._coroutine = _MADE
        value, positional = self._arguments()
        return self._calls.channel.call_now(self._namespace, self._name, value, positional)

    def __await__(self):
        return self._start().__await__()

    def send(self, value):
        return self._start().send(value)

    def throw(self, *error):
        return self._start().throw(*error)

    def close(self):
        if self._coroutine is None:
            self._calls.waiting.pop(self._serial, None)  # Closed on purpose: not a forgotten await.
        else:
            self._coroutine.close()

    def _not_awaited(self, what):
        call = self.call_text()
        return TypeError(f'{call} was not awaited, so it {what}: write `await {call}`')

    def __getattr__(self, name):
        raise AttributeError(f'{self.call_text()} was not awaited, so it has no attribute {name!r}: write `(await {self.call_text()}).{name}`')

    def __getitem__(self, key):
        raise self._not_awaited('cannot be indexed')

    def __iter__(self):
        raise self._not_awaited('cannot be iterated')

    def __len__(self):
        raise self._not_awaited('has no length')

    def __bool__(self):
        raise self._not_awaited('is neither true nor false')

    def __contains__(self, item):
        raise self._not_awaited('cannot be searched')

    def __repr__(self):
        state = '' if self._coroutine is not None else ', not awaited'
        return f'<host call {self.call_text()}{state}>'


#: Up to this many functions, an unknown name's error lists a namespace's functions; past it, the closest.
MAX_LISTED = 12


def closest_names(wanted, names, limit=5):
    """Up to `limit` of `names` closest to `wanted`, best first: by the Dice coefficient of their
    character pairs (case and `_` ignored, so `getUser` is close to `get_user`), ties by name; a name
    sharing under a third of its pairs is not close. Linear in the names' lengths, unlike an edit distance.
    """

    def pairs(text):
        text = text.replace('_', '').lower()
        return collections.Counter(text[index:index + 2] for index in range(len(text) - 1))

    target = pairs(wanted)
    scored = []
    for name in names:
        other = pairs(name)
        total = sum(target.values()) + sum(other.values())
        score = 2 * sum((target & other).values()) / total if total else 0.0
        if score >= 0.34:
            scored.append((-score, name))
    return [name for _, name in sorted(scored)[:limit]]


class _Namespace:
    """One binding namespace: an attribute per granted host function."""

    def __init__(self, namespace, functions, search=None):
        object.__setattr__(self, '_namespace', namespace)
        object.__setattr__(self, '_functions', functions)
        object.__setattr__(self, '_search', search)

    def __getattr__(self, name):
        functions = object.__getattribute__(self, '_functions')
        if name in functions:
            return functions[name]
        namespace = object.__getattribute__(self, '_namespace')
        if len(functions) <= MAX_LISTED:
            raise AttributeError(f'{namespace} has no function {name!r}; available: {", ".join(sorted(functions)) or "none"}')
        closest = closest_names(name, functions)
        search = object.__getattribute__(self, '_search')
        how = f'; find others with `await {search}("words", namespace="{namespace}")`' if search else ''
        shown = f'; closest: {", ".join(closest)}' if closest else ''
        raise AttributeError(f'{namespace} has no function {name!r}{shown}; it has {len(functions)} functions{how}')

    def __dir__(self):
        return sorted(object.__getattribute__(self, '_functions'))

    def __repr__(self):
        namespace = object.__getattribute__(self, '_namespace')
        return f'<host functions {namespace}: {", ".join(sorted(object.__getattribute__(self, "_functions")))}>'
