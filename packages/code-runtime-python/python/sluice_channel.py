"""The child's end of fd 3: JSON-lines frames to and from the host, host calls by id, and log streams."""

import _thread
import codecs
import errno
import io
import json
import os
import select

import sluice_values

PROTOCOL_VERSION = 1
_READ_BYTES = 65536
_CALL = b'{"v":%d,"type":"call","id":%d,"namespace":"%s","name":"%s","input":%s}\n'
# `arguments` is [positional arguments, keywords or null].
_POSITIONAL_CALL = b'{"v":%d,"type":"call","id":%d,"namespace":"%s","name":"%s","arguments":%s}\n'
_LOG_CHARS = 8192
#: The real `os.write`: the program's writes to fds 1 and 2 are routed (see DescriptorWrites), the channel's never.
_os_write = os.write
#: The real `os.fstat`: a deterministic run's numbers inodes in its own order (sluice_determinism_files).
_os_fstat = os.fstat


class HostCallError(Exception):
    """A host call failed: it was refused, over a budget, or the host function raised. `str()` is the reason."""


class ChannelClosed(Exception):
    """The host closed fd 3."""


class Channel:
    """Frames over one file descriptor. Writes block until the host reads, but keep reading replies meanwhile."""

    def __init__(self, fd):
        self.fd = fd
        self.loop = None
        self.inbox = bytearray()
        self.pending = {}
        self.last_id = 0
        self.closed = False
        self.sealed = False
        self.limits = {}
        self._watched = None  # the loop that calls _on_readable, once there is one (see watch)
        # One frame at a time: a lock across threads, and a queue for a frame sent from inside the
        # sending of another in the same thread (a signal handler that prints while a print is half sent).
        self._lock = _thread.allocate_lock()
        self._sender = None
        self._queued = []

    def read_first_frame(self):
        """Blocks until the host's first frame (`run`) has arrived, and returns it."""
        while b'\n' not in self.inbox:
            chunk = os.read(self.fd, _READ_BYTES)
            if not chunk:
                raise ChannelClosed('the host closed fd 3 before sending the program')
            self.inbox += chunk
        line, _, rest = bytes(self.inbox).partition(b'\n')
        self.inbox = bytearray(rest)
        return json.loads(line)

    def watch(self, loop):
        """Run once in the zygote: `loop` calls back when fd 3 is readable, in every child that runs it.

        The registration is the selector's Python state (a poll selector keeps none in the kernel),
        so a child inherits it made; nothing is read until the channel is attached.
        """
        loop.add_reader(self.fd, self._on_readable)
        self._watched = loop

    def attach(self, loop, limits):
        """Starts delivering replies through `loop`'s reader callbacks."""
        self.loop = loop
        self.limits = limits
        os.set_blocking(self.fd, False)
        if self._watched is not loop:
            loop.add_reader(self.fd, self._on_readable)
            self._watched = loop
        self._deliver()

    def send(self, frame):
        self.send_bytes(sluice_values.encode_frame(frame))

    def seal(self):
        """From now on only `send_final` writes: output of the program's threads is dropped, not sent after `done`."""
        self.sealed = True

    def send_final(self, line):
        """Writes the last frame (`done`), after `seal`, once any frame being sent is complete."""
        self._send(line)

    def send_bytes(self, line):
        """Writes one encoded frame, newline included; a frame sent while another is being sent follows it whole."""
        if self.sealed:
            raise ChannelClosed('the run has ended')
        self._send(line)

    def _send(self, line):
        me = _thread.get_ident()
        if self._sender == me:
            self._queued.append(line)
            return
        with self._lock:
            self._sender = me
            try:
                self._write(line)
                while self._queued:
                    self._write(self._queued.pop(0))
            finally:
                self._queued.clear()
                self._sender = None

    def _write(self, line):
        data = memoryview(line)
        while data:
            if self.closed:
                raise ChannelClosed('the host closed fd 3')
            try:
                written = _os_write(self.fd, data)
                data = data[written:]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError) as error:
                self.closed = True
                raise ChannelClosed('the host closed fd 3') from error
            # The host reads only while its replies drain, so read them while waiting to write.
            readable, _, _ = select.select([self.fd], [self.fd], [])
            if readable:
                self._on_readable()

    async def call(self, namespace, name, value, positional=None):
        """Sends one host call and waits for its reply. Raises HostCallError when the call fails.

        `positional`, a list, is the program's positional arguments; `value` is then its keywords or None.
        """
        future = self.loop.create_future()
        self._send_call(namespace, name, value, positional, future)
        return await future

    def call_now(self, namespace, name, value, positional=None):
        """A host call the program did not await, made at once: sends it and blocks until its reply.

        Replies to other calls that come meanwhile are delivered as usual (their tasks run once the
        program next yields to its loop). Nothing here stops the clock: the wall-time budget and the
        host's kill reach a child blocked on fd 3 as they reach any other.
        """
        reply = Reply()
        call_id = self._send_call(namespace, name, value, positional, reply)
        try:
            while not reply.done():
                select.select([self.fd], [], [])
                self._on_readable()
        finally:
            if self.pending.get(call_id) is reply:
                del self.pending[call_id]  # left by an exception (a signal handler's): a late reply is then ignored
        return reply.result()

    def _send_call(self, namespace, name, value, positional, waiter):
        """Checks and sends one `call` frame, with `waiter` (a future, or a Reply) pending on its id."""
        limit = self.limits['hostCallBytes']
        if positional is None:
            problem, encoded, size = sluice_values.check_and_encode(value, self.limits['depth'], limit)
        else:
            problem, encoded, size = sluice_values.check_and_encode_call(positional, value, self.limits['depth'], limit)
        if problem is not None:
            raise HostCallError(f"{namespace}.{name}: the call's argument is not JSON: {problem}.")
        if encoded is None:
            raise HostCallError(
                f"{namespace}.{name}: the call's argument is {size} or more bytes of JSON; the limit is {limit} bytes per call."
            )
        self.last_id += 1
        call_id = self.last_id
        self.pending[call_id] = waiter
        # The argument is encoded once, above; namespace and name are identifiers, which need no escaping.
        frame = (_CALL if positional is None else _POSITIONAL_CALL) % (
            PROTOCOL_VERSION,
            call_id,
            namespace.encode(),
            name.encode(),
            encoded,
        )
        try:
            self.send_bytes(frame)
        except ChannelClosed as error:
            self.pending.pop(call_id, None)
            raise HostCallError('the host ended the run') from error
        return call_id

    def _on_readable(self):
        if self.loop is None:
            return  # not attached: the run frame is read by read_first_frame, and nothing comes before it
        while not self.closed:
            try:
                chunk = os.read(self.fd, _READ_BYTES)
            except BlockingIOError:
                break
            except OSError:
                chunk = b''
            if not chunk:
                self._close()
                break
            self.inbox += chunk
        self._deliver()

    def _deliver(self):
        # One pass over what has arrived, then one cut of the inbox: copying the rest per reply is
        # quadratic when thousands of replies are buffered.
        inbox, start = self.inbox, 0
        try:
            while self.loop is not None:
                end = inbox.find(b'\n', start)
                if end == -1:
                    break
                frame = json.loads(inbox[start:end])
                start = end + 1
                future = self.pending.pop(frame.get('id'), None)
                if future is None or future.done():
                    continue
                if frame.get('ok') is True:
                    future.set_result(frame.get('value'))
                else:
                    future.set_exception(HostCallError(str(frame.get('error'))))
        finally:
            del inbox[:start]

    def _close(self):
        self.closed = True
        if self.loop is not None:
            self.loop.remove_reader(self.fd)
        for future in self.pending.values():
            if not future.done():
                future.set_exception(HostCallError('the host ended the run'))
        self.pending.clear()


class Reply:
    """What `call_now` waits on: settled, as a future would be, when its reply is delivered or the channel closes."""

    __slots__ = ('_value', '_error', '_done')

    def __init__(self):
        self._value = self._error = None
        self._done = False

    def done(self):
        return self._done

    def set_result(self, value):
        self._value, self._done = value, True

    def set_exception(self, error):
        self._error, self._done = error, True

    def result(self):
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return self._value


class _LogSink(io.BufferedIOBase):
    """Bytes written to a log stream become `log` frames, up to a little past the log budget.

    The text stream writes straight to it, with no C-level buffer in between: a signal handler
    that prints while a print is being sent then nests (its frame follows whole) instead of
    meeting the buffer's lock ("reentrant call").
    """

    def __init__(self, channel, stream, budget, fd):
        self.channel = channel
        self.stream = stream
        self.decoder = codecs.getincrementaldecoder('utf-8')('replace')
        self.budget = budget
        self.fd = fd

    def writable(self):
        return True

    def fileno(self):
        return self.fd

    def spent(self):
        """Whether nothing more will be sent: the log budget is spent, or the channel closed or sealed."""
        return self.budget.spent > self.budget.limit or self.channel.closed or self.channel.sealed

    def write(self, data):
        size = len(data)
        if self.spent():
            return size  # The host keeps only its budget; past it, output is dropped here rather than sent.
        text = self.decoder.decode(bytes(data))
        # Pieces of at most _LOG_CHARS characters keep every frame far below the host's line limit;
        # characters undercount bytes, so what is sent always reaches past the host's budget.
        for start in range(0, len(text), _LOG_CHARS):
            if self.budget.spent > self.budget.limit:
                break
            piece = text[start : start + _LOG_CHARS]
            self.budget.spent += len(piece)
            try:
                self.channel.send({'v': PROTOCOL_VERSION, 'type': 'log', 'stream': self.stream, 'text': piece})
            except ChannelClosed:
                break
        return size


class LogBudget:
    """Bytes sent as logs so far, shared by stdout and stderr; `limit` is a little past the host's budget."""

    def __init__(self, limit):
        self.limit = limit
        self.spent = 0


def log_stream(channel, stream, budget):
    """A text stream for `sys.stdout`/`sys.stderr`: line-buffered, UTF-8, sent as `log` frames."""
    sink = _LogSink(channel, stream, budget, 1 if stream == 'stdout' else 2)
    return io.TextIOWrapper(sink, encoding='utf-8', errors='backslashreplace', line_buffering=True)


class DescriptorWrites:
    """`os.write` to fds 1 and 2 as the program sees it: into the same log streams as `print`, so the
    host gets both in the order written. Writes to any other descriptor, or to 1 or 2 once the
    program has put something else there (`os.dup2`), are the real `os.write`."""

    def __init__(self, write, sinks):
        self._write = write
        self._sinks = {fd: (sink, _identity(fd)) for fd, sink in sinks.items()}

    def __call__(self, fd, data, /):
        routed = self._sinks.get(fd) if type(fd) is int else None
        if routed is None or _identity(fd) != routed[1]:
            return self._write(fd, data)
        sink = routed[0]
        if sink.spent():
            # As before the routing: past the log budget the host has closed fds 1 and 2, and writes fail.
            raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))
        return sink.write(memoryview(data).cast('B'))


def _identity(fd):
    try:
        status = _os_fstat(fd)
    except OSError:
        return None
    return (status.st_dev, status.st_ino)
