"""The child's end of fd 3: JSON-lines frames to and from the host, host calls by id, and log streams."""

import codecs
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
        self.limits = {}

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

    def attach(self, loop, limits):
        """Starts delivering replies through `loop`'s reader callbacks."""
        self.loop = loop
        self.limits = limits
        os.set_blocking(self.fd, False)
        loop.add_reader(self.fd, self._on_readable)
        self._deliver()

    def send(self, frame):
        self.send_bytes(sluice_values.encode_frame(frame))

    def send_bytes(self, line):
        """Writes one encoded frame, newline included."""
        data = memoryview(line)
        while data:
            if self.closed:
                raise ChannelClosed('the host closed fd 3')
            try:
                written = os.write(self.fd, data)
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
        limit = self.limits['hostCallBytes']
        sent = value if positional is None else [positional, value]
        problem, encoded, size = sluice_values.check_and_encode(sent, self.limits['depth'], limit)
        if problem is not None:
            raise HostCallError(f"{namespace}.{name}: the call's argument is not JSON: {problem}.")
        if encoded is None:
            raise HostCallError(
                f"{namespace}.{name}: the call's argument is {size} or more bytes of JSON; the limit is {limit} bytes per call."
            )
        self.last_id += 1
        call_id = self.last_id
        future = self.loop.create_future()
        self.pending[call_id] = future
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
        return await future

    def _on_readable(self):
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
        while self.loop is not None and b'\n' in self.inbox:
            line, _, rest = bytes(self.inbox).partition(b'\n')
            self.inbox = bytearray(rest)
            frame = json.loads(line)
            future = self.pending.pop(frame.get('id'), None)
            if future is None or future.done():
                continue
            if frame.get('ok') is True:
                future.set_result(frame.get('value'))
            else:
                future.set_exception(HostCallError(str(frame.get('error'))))

    def _close(self):
        self.closed = True
        if self.loop is not None:
            self.loop.remove_reader(self.fd)
        for future in self.pending.values():
            if not future.done():
                future.set_exception(HostCallError('the host ended the run'))
        self.pending.clear()


class _LogSink(io.RawIOBase):
    """Bytes written to a log stream become `log` frames, up to a little past the log budget."""

    def __init__(self, channel, stream, budget):
        self.channel = channel
        self.stream = stream
        self.decoder = codecs.getincrementaldecoder('utf-8')('replace')
        self.budget = budget

    def writable(self):
        return True

    def write(self, data):
        size = len(data)
        if self.budget.spent > self.budget.limit or self.channel.closed:
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
    raw = _LogSink(channel, stream, budget)
    return io.TextIOWrapper(
        io.BufferedWriter(raw, 8192), encoding='utf-8', errors='backslashreplace', line_buffering=True
    )
