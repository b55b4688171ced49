"""A deterministic run: a virtual clock, one seeded generator, host results in call order, and what the
run reads of its process, host and files the same in every run (sluice_determinism_process, _files).

Installed in the child by `install`, only when the run frame asks for it, before the program runs;
a plain run never touches this module's functions. The hash seed is not set here: every zygote
starts with PYTHONHASHSEED=0 (see docs/decisions/2026-12-01-python-deterministic-mode.md).
"""

import asyncio
import datetime
import heapq
import json
import math
import os
import random
import sys
import time
import warnings

import sluice_channel
import sluice_determinism_files
import sluice_determinism_process

_NS_PER_MS = 1_000_000
_NS_PER_SECOND = 1_000_000_000
#: Clocks that tell the time of day; every other clock (monotonic, boot, CPU) counts from the run's start.
#: Linux's CLOCK_REALTIME_COARSE (5) and CLOCK_REALTIME_ALARM (8) have no name in `time`.
_WALL_CLOCKS = frozenset(
    [getattr(time, name) for name in ('CLOCK_REALTIME', 'CLOCK_TAI') if hasattr(time, name)]
    + ([5, 8] if sys.platform.startswith('linux') else [])
)


class Clock:
    """Virtual nanoseconds since the run began; the wall clock is `startTime` plus them."""

    def __init__(self, start_time_ms):
        self.elapsed = 0
        self.epoch = start_time_ms * _NS_PER_MS

    def monotonic_ns(self):
        return self.elapsed

    def monotonic(self):
        return self.elapsed / _NS_PER_SECOND

    def time_ns(self):
        return self.epoch + self.elapsed

    def time(self):
        return (self.epoch + self.elapsed) / _NS_PER_SECOND

    def advance_to(self, seconds):
        """Moves to a timer's due time (monotonic seconds), never backwards."""
        self.elapsed = max(self.elapsed, math.ceil(seconds * _NS_PER_SECOND))

    def advance_ms(self, milliseconds):
        self.elapsed += milliseconds * _NS_PER_MS


def install(deterministic, loop, channel):
    """Makes this child's run deterministic for `{'seed', 'startTime'}`. Called once, before the program."""
    clock = Clock(int(deterministic['startTime']))
    generator = random._inst
    generator.seed(int(deterministic['seed']), version=2)
    _install_clock(clock)
    _install_randomness(generator)
    identity = sluice_determinism_process.Identity(int(deterministic['seed']))
    sluice_determinism_process.install(identity, clock, generator)
    sluice_determinism_files.install(identity, clock)
    _Order(loop, channel, clock).install()


def _install_clock(clock):
    real_localtime, real_gmtime, real_ctime = time.localtime, time.gmtime, time.ctime
    real_strftime, real_asctime = time.strftime, time.asctime
    real_getres, real_cpuclockid = time.clock_getres, time.pthread_getcpuclockid

    def sleep(seconds):
        if seconds < 0:
            raise ValueError('sleep length must be non-negative')
        clock.advance_to(clock.monotonic() + seconds)

    def localtime(seconds=None):
        return real_localtime(clock.time() if seconds is None else seconds)

    def gmtime(seconds=None):
        return real_gmtime(clock.time() if seconds is None else seconds)

    def ctime(seconds=None):
        return real_ctime(clock.time() if seconds is None else seconds)

    def asctime(moment=None):
        return real_asctime(real_localtime(clock.time()) if moment is None else moment)

    def strftime(form, moment=None):
        return real_strftime(form, real_localtime(clock.time()) if moment is None else moment)

    def clock_gettime_ns(clock_id):
        real_getres(clock_id)  # a clock that does not exist raises as before
        return clock.time_ns() if clock_id in _WALL_CLOCKS else clock.monotonic_ns()

    def pthread_getcpuclockid(ident):
        real_cpuclockid(ident)  # its number names the thread: every CPU clock reads the same virtual time
        return time.CLOCK_THREAD_CPUTIME_ID

    replaced = {
        'time': clock.time,
        'time_ns': clock.time_ns,
        'monotonic': clock.monotonic,
        'monotonic_ns': clock.monotonic_ns,
        'perf_counter': clock.monotonic,
        'perf_counter_ns': clock.monotonic_ns,
        'process_time': clock.monotonic,
        'process_time_ns': clock.monotonic_ns,
        'thread_time': clock.monotonic,
        'thread_time_ns': clock.monotonic_ns,
        'sleep': sleep,
        'localtime': localtime,
        'gmtime': gmtime,
        'ctime': ctime,
        'asctime': asctime,
        'strftime': strftime,
        'clock_gettime': lambda clock_id: clock_gettime_ns(clock_id) / _NS_PER_SECOND,
        'clock_gettime_ns': clock_gettime_ns,
        'pthread_getcpuclockid': pthread_getcpuclockid,
    }
    for name, function in replaced.items():
        setattr(time, name, function)
    _install_datetime(clock)


class _StandIn(type):
    """The metaclass of the stand-ins for `datetime.date` and `datetime.datetime`: `isinstance` and
    `issubclass` answer as for the real class, so a real `datetime` is still a `date`."""

    def __instancecheck__(cls, instance):
        return isinstance(instance, cls.real)

    def __subclasscheck__(cls, subclass):
        return issubclass(subclass, cls.real)


def _install_datetime(clock):
    real_date, real_datetime = datetime.date, datetime.datetime

    class date(real_date, metaclass=_StandIn):  # noqa: N801  (its repr is `datetime.date(...)`)
        __slots__ = ()
        real = real_date

        @classmethod
        def today(cls):
            return cls.fromtimestamp(clock.time())

    class datetime_(real_datetime, metaclass=_StandIn):
        __slots__ = ()
        real = real_datetime

        @classmethod
        def now(cls, tz=None):
            return cls.fromtimestamp(clock.time(), tz)

        @classmethod
        def today(cls):
            return cls.fromtimestamp(clock.time())

        @classmethod
        def utcnow(cls):
            if sys.version_info >= (3, 12):
                warnings.warn(
                    'datetime.datetime.utcnow() is deprecated and scheduled for removal in a future version. '
                    'Use timezone-aware objects to represent datetimes in UTC: datetime.datetime.now(datetime.UTC).',
                    DeprecationWarning,
                    stacklevel=2,
                )
            return cls.fromtimestamp(clock.time(), datetime.timezone.utc).replace(tzinfo=None)

    for stand_in in (date, datetime_):
        # CPython's repr names a subclass by its bare name; the stand-ins keep the real `datetime.date(...)`.
        stand_in.__repr__ = _qualified_repr
        stand_in.__name__ = stand_in.__qualname__ = stand_in.real.__name__
        stand_in.__module__ = 'datetime'
        setattr(datetime, stand_in.real.__name__, stand_in)


def _qualified_repr(self):
    text = type(self).real.__repr__(self)
    return text if text.startswith('datetime.') else f'datetime.{text}'


def _install_randomness(generator):
    """`random`, `random.Random()` without a seed, `os.urandom`, `secrets`, `uuid.uuid4` and
    `random.SystemRandom` all draw from `generator`, the module-level one seeded from the run's seed."""
    real_seed = random.Random.seed

    def seed(self, a=None, version=2):
        real_seed(self, generator.getrandbits(128) if a is None else a, version)

    def urandom(size):
        if size < 0:
            raise ValueError('negative argument not allowed')
        return generator.randbytes(size)

    def getrandom(size, flags=0):
        return urandom(size)

    random.Random.seed = seed
    random.seed = generator.seed  # the module's own was bound to the real `seed` at import
    random._urandom = urandom
    os.urandom = urandom
    if hasattr(os, 'getrandom'):
        os.getrandom = getrandom


class _Order:
    """The event loop of a deterministic run: one step at a time, taken only when nothing is ready.

    A step delivers the reply to the oldest unanswered call (waiting for the host if it has not come),
    or, when no call is unanswered, fires the earliest timer (the oldest of those due together). The
    loop's own timer heap stays empty, so no timer becomes ready just because a turn went by.
    """

    def __init__(self, loop, channel, clock):
        self.loop = loop
        self.channel = channel
        self.clock = clock
        self.arrived = {}  # call id → its reply frame, not delivered yet
        self.timers = []  # (due, creation, handle)
        self.created = 0
        self.select = loop._selector.select

    def install(self):
        self.loop._selector.select = self._select
        self.loop.call_at = self._call_at
        # Replies are read as before (the reader callback, and while a write blocks); they wait here.
        self.channel._deliver = self._hold

    def _call_at(self, when, callback, *args, context=None):
        if when is None:
            raise TypeError('when cannot be None')
        self.loop._check_closed()
        timer = asyncio.TimerHandle(when, callback, args, self.loop, context)
        timer._scheduled = True
        self.created += 1
        heapq.heappush(self.timers, (when, self.created, timer))
        return timer

    def _hold(self):
        channel, start = self.channel, 0
        inbox = channel.inbox
        try:
            while channel.loop is not None:
                end = inbox.find(b'\n', start)
                if end == -1:
                    break
                frame = json.loads(inbox[start:end])
                start = end + 1
                waiting = channel.pending.get(frame.get('id'))
                if type(waiting) is sluice_channel.Reply:
                    # A call the program did not await blocks it until its reply: nothing else runs
                    # meanwhile, so delivering it as it comes keeps the run's order its own.
                    del channel.pending[frame.get('id')]
                    self.clock.advance_ms(1)
                    _settle(waiting, frame)
                else:
                    self.arrived[frame.get('id')] = frame
        finally:
            del inbox[:start]

    def _select(self, timeout):
        if timeout == 0:
            return self.select(0)  # something is ready: read what came, take no step
        pending = self.channel.pending
        if pending:
            first = next(iter(pending))  # ids rise with each call, and the dict keeps their order
            frame = self.arrived.pop(first, None)
            if frame is None:
                return self.select(None)  # wait for the host: the reader callback holds what comes
            future = pending.pop(first)
            self.clock.advance_ms(1)
            if not future.done():
                _settle(future, frame)
            return []
        while self.timers:
            when, _created, timer = heapq.heappop(self.timers)
            if not timer._cancelled:
                timer._scheduled = False
                self.clock.advance_to(when)
                self.loop._ready.append(timer)
                return []
        return self.select(None)  # nothing ready or set, and no call unanswered: only the wall clock ends this


def _settle(waiter, frame):
    if frame.get('ok') is True:
        waiter.set_result(frame.get('value'))
    else:
        waiter.set_exception(sluice_channel.HostCallError(str(frame.get('error'))))
