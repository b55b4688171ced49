"""What a deterministic run reads of its files: a working directory with one name in every run, and file
times and inode numbers from the virtual clock and the run's own count.

The working directory has a random name (a private directory under the host's temp directory). A
deterministic run names it `/proc/self/fd/9`, a descriptor of it the child keeps open: the kernel resolves
that path, so every function that takes one (C extensions included) reaches the real directory, and only
the functions that answer a path (`os.getcwd`, `os.readlink`, `os.path.realpath`) need to be told.
Installed by sluice_determinism.install on the `os` module (the C module `posix` keeps the real ones:
importlib, which reads it, needs real file times).
"""

import fcntl
import os
import posixpath
import sys
import types

import sluice_determinism_process

#: The descriptor a deterministic run's working directory is named by: below the event loop's self-pipe
#: (sluice_runner._SELF_PIPE_FLOOR), so the program's own descriptors are numbered as in a plain run.
ANCHOR_FD = 9

_NS_PER_SECOND = 1_000_000_000
_NS_PER_MICROSECOND = 1_000
#: What `os.readlink` answers for a descriptor that is no file: its kind and its inode number.
_LINK_KINDS = ('socket:[', 'pipe:[', 'anon_inode:[')


class Directory:
    """The working directory's real path and the path the run shows for it, and the translation back."""

    def __init__(self, identity):
        self.real = os.getcwd()
        opened = os.open('.', getattr(os, 'O_PATH', os.O_RDONLY) | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            self.fd = fcntl.fcntl(opened, fcntl.F_DUPFD_CLOEXEC, ANCHOR_FD)
        finally:
            os.close(opened)
        self.shown = f'/proc/self/fd/{self.fd}'
        self.identity = identity
        self.exact = 0  # above 0 while os.path.realpath runs: it must see the real names to resolve them
        self._prefixes = (
            (self.real, self.shown),
            (f'/proc/{identity.real_pid}', '/proc/self'),
        )

    def show(self, path):
        """`path` as the run shows it: under the shown working directory instead of the real one."""
        if self.exact:
            return path
        text = os.fsdecode(path)
        for real, shown in self._prefixes:
            if text == real or text.startswith(real + '/'):
                text = shown + text[len(real) :]
                return os.fsencode(text) if isinstance(path, bytes) else text
        return path


class Metadata:
    """File times from the virtual clock, and device and inode numbers in the order the run first sees them.

    A file's atime, mtime and ctime read the virtual clock when it is looked at, less a microsecond per its
    inode number: so a file never looks older than the last moment the run waited for, and two files never
    share a modification time (`filecmp` would take two of one size for equal)."""

    def __init__(self, clock):
        self.clock = clock
        self.devices = {}
        self.inodes = {}

    def device(self, real):
        return self.devices.setdefault(real, len(self.devices) + 1)

    def inode(self, device, real):
        return self.inodes.setdefault((device, real), len(self.inodes) + 1)

    def status(self, real):
        inode = self.inode(real.st_dev, real.st_ino)
        ns = self.clock.time_ns() - inode * _NS_PER_MICROSECOND
        fields = list(real)
        fields[1], fields[2] = inode, self.device(real.st_dev)
        fields[7] = fields[8] = fields[9] = ns // _NS_PER_SECOND
        extra = {name: getattr(real, name) for name in _EXTRA_FIELDS if hasattr(real, name)}
        for name in ('st_atime', 'st_mtime', 'st_ctime', 'st_birthtime'):
            if name in extra:
                extra[name] = ns / _NS_PER_SECOND
                if f'{name}_ns' in extra:
                    extra[f'{name}_ns'] = ns
        return os.stat_result(fields, extra)


_EXTRA_FIELDS = (
    'st_atime', 'st_mtime', 'st_ctime', 'st_atime_ns', 'st_mtime_ns', 'st_ctime_ns', 'st_birthtime',
    'st_birthtime_ns', 'st_blksize', 'st_blocks', 'st_rdev', 'st_flags', 'st_gen',
)  # fmt: skip


def install(identity, clock):
    directory = Directory(identity)
    metadata = Metadata(clock)
    for name, value in list(os.environ.items()):
        if value == directory.real:
            os.environ[name] = directory.shown  # HOME and TMPDIR, so tempfile's names are under it too
    runtime_directory = os.path.dirname(directory.real)
    # The zygote's own command line names the runtime's private directory.
    sys.orig_argv = [argument for argument in getattr(sys, 'orig_argv', ()) if runtime_directory not in argument]
    _install_paths(directory, metadata)
    _install_status(metadata)


def _install_paths(directory, metadata):
    real_getcwd, real_getcwdb, real_readlink, real_stat = os.getcwd, os.getcwdb, os.readlink, os.stat
    real_realpath = posixpath.realpath

    def readlink(path, *, dir_fd=None):
        target = real_readlink(path, dir_fd=dir_fd)
        if directory.exact:
            return target
        text = os.fsdecode(target)
        if text.startswith(_LINK_KINDS) and text.endswith(']'):
            status = real_stat(path, dir_fd=dir_fd)
            text = f'{text[: text.index("[")]}[{metadata.inode(status.st_dev, status.st_ino)}]'
        elif text.split('/', 1)[0] == str(directory.identity.real_pid):  # /proc/self, /proc/thread-self
            text = str(directory.identity.pid) + text[len(str(directory.identity.real_pid)) :]
        else:
            return directory.show(target)
        return os.fsencode(text) if isinstance(target, bytes) else text

    def realpath(path, *args, **kwargs):
        directory.exact += 1
        try:
            resolved = real_realpath(path, *args, **kwargs)
        finally:
            directory.exact -= 1
        return directory.show(resolved)

    sluice_determinism_process.replace_functions(
        os,
        {
            'getcwd': lambda: directory.show(real_getcwd()),
            'getcwdb': lambda: directory.show(real_getcwdb()),
            'readlink': readlink,
        },
    )
    posixpath.realpath = staticmethod(realpath)


def _install_status(metadata):
    real_stat, real_lstat, real_fstat, real_scandir = os.stat, os.lstat, os.fstat, os.scandir

    def stat(path, *, dir_fd=None, follow_symlinks=True):
        return metadata.status(real_stat(path, dir_fd=dir_fd, follow_symlinks=follow_symlinks))

    def lstat(path, *, dir_fd=None):
        return metadata.status(real_lstat(path, dir_fd=dir_fd))

    def fstat(fd):
        return metadata.status(real_fstat(fd))

    def scandir(path='.'):
        return _Entries(real_scandir(path), metadata)

    sluice_determinism_process.replace_functions(os, {'stat': stat, 'lstat': lstat, 'fstat': fstat, 'scandir': scandir})
    os.DirEntry = DirEntry


class _Entries:
    """What `os.scandir` gives a deterministic run: its entries, with their stat and inode as `os.stat` tells them."""

    def __init__(self, entries, metadata):
        self._entries = entries
        self._metadata = metadata

    def __iter__(self):
        return self

    def __next__(self):
        return DirEntry(next(self._entries), self._metadata)

    def __enter__(self):
        return self

    def __exit__(self, *_exception):
        self._entries.close()

    def close(self):
        self._entries.close()


class _EntryType(type):
    """`isinstance(entry, os.DirEntry)` holds for the run's entries and the real ones (shutil asks it)."""

    def __instancecheck__(cls, instance):
        return type.__instancecheck__(cls, instance) or isinstance(instance, cls.real)


class DirEntry(metaclass=_EntryType):
    """An `os.DirEntry` whose `stat()` and `inode()` are the run's (the C type cannot be made or changed)."""

    __slots__ = ('_entry', '_metadata')
    real = os.DirEntry
    __class_getitem__ = classmethod(types.GenericAlias)  # `os.DirEntry[str]` in annotations

    def __init__(self, entry, metadata):
        self._entry = entry
        self._metadata = metadata

    name = property(lambda self: self._entry.name)
    path = property(lambda self: self._entry.path)

    def stat(self, *, follow_symlinks=True):
        return self._metadata.status(self._entry.stat(follow_symlinks=follow_symlinks))

    def inode(self):
        return self._metadata.inode(self._entry.stat(follow_symlinks=False).st_dev, self._entry.inode())

    def __getattr__(self, name):
        return getattr(self._entry, name)  # is_dir, is_file, is_symlink, is_junction

    def __fspath__(self):
        return self._entry.path

    def __repr__(self):
        return f'<DirEntry {self._entry.name!r}>'

