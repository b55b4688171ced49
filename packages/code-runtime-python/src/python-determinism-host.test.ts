import { realpathSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import type { HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { python, successValue, testRuntime } from './__fixtures__/test-runtime.js';

// Two runtimes, as a replay after a crash gets: another zygote (another parent pid, another private
// directory), another child, later on the real clock.
const first = testRuntime({ wallTimeMs: 20_000 });
const second = testRuntime({ wallTimeMs: 20_000 });
afterAll(() => Promise.all([first.dispose(), second.dispose()]));

const startTime = 1_700_000_000_000;
const deterministic = { seed: 7, startTime };
const echo: HostFunction = (input) => input;

// Every value a program can read of its process, its clocks and its files, one label each.
const program = python(
  'import logging, os, pathlib, platform, resource, socket, sys, tempfile, threading, time, uuid',
  'seen = {}',
  'def read(label, function):',
  '    try:',
  '        seen[label] = repr(function())',
  '    except Exception as error:',
  '        seen[label] = f"{type(error).__name__}: {error}"',
  'def clocks(tag):',
  '    for name in ("CLOCK_REALTIME", "CLOCK_MONOTONIC", "CLOCK_MONOTONIC_RAW", "CLOCK_PROCESS_CPUTIME_ID",',
  '                 "CLOCK_THREAD_CPUTIME_ID", "CLOCK_BOOTTIME", "CLOCK_TAI"):',
  '        if hasattr(time, name):',
  '            read(f"{tag} clock_gettime {name}", lambda: time.clock_gettime(getattr(time, name)))',
  '            read(f"{tag} clock_gettime_ns {name}", lambda: time.clock_gettime_ns(getattr(time, name)))',
  '    read(f"{tag} clock_gettime 5 (coarse)", lambda: time.clock_gettime(5))',
  '    read(f"{tag} pthread_getcpuclockid", lambda: time.pthread_getcpuclockid(threading.get_ident()))',
  '    read(f"{tag} os.times", os.times)',
  '    read(f"{tag} getrusage self", lambda: resource.getrusage(resource.RUSAGE_SELF))',
  '    read(f"{tag} getrusage thread", lambda: resource.getrusage(resource.RUSAGE_THREAD))',
  '    for name in ("time", "monotonic", "perf_counter", "process_time", "thread_time"):',
  '        read(f"{tag} time.{name}", getattr(time, name))',
  'clocks("before")',
  'read("getpid", os.getpid)',
  'read("getppid", os.getppid)',
  'read("getpgrp", os.getpgrp)',
  'read("getpgid", lambda: os.getpgid(0))',
  'read("getsid", lambda: os.getsid(0))',
  'read("native id", threading.get_native_id)',
  'read("main thread native id", lambda: threading.main_thread().native_id)',
  'read("readlink /proc/self", lambda: os.readlink("/proc/self"))',
  'read("getcwd", os.getcwd)',
  'read("getcwdb", os.getcwdb)',
  'read("HOME TMPDIR", lambda: (os.environ["HOME"], os.environ["TMPDIR"]))',
  'read("expanduser", lambda: os.path.expanduser("~"))',
  'read("abspath", lambda: os.path.abspath("data.txt"))',
  'read("realpath", lambda: os.path.realpath("."))',
  'read("Path.cwd", pathlib.Path.cwd)',
  'read("Path.resolve", lambda: pathlib.Path("data.txt").resolve())',
  'read("readlink /proc/self/cwd", lambda: os.readlink("/proc/self/cwd"))',
  'read("orig_argv", lambda: sys.orig_argv)',
  'read("stat .", lambda: os.stat("."))',
  'pathlib.Path("data.txt").write_text("one")',
  'os.mkdir("sub")',
  'read("stat file", lambda: os.stat("data.txt"))',
  'read("lstat file", lambda: os.lstat("data.txt"))',
  'read("getmtime", lambda: os.path.getmtime("data.txt"))',
  'read("Path.stat", lambda: pathlib.Path("data.txt").stat())',
  'with open("data.txt") as opened:',
  '    read("fstat", lambda: os.fstat(opened.fileno()))',
  'read("fstat stdout", lambda: os.fstat(1))',
  'with os.scandir(".") as entries:',
  '    read("scandir", lambda: sorted((entry.name, entry.inode(), entry.stat()) for entry in entries))',
  'read("mkdtemp", tempfile.mkdtemp)',
  'read("NamedTemporaryFile", lambda: tempfile.NamedTemporaryFile(delete=False).name)',
  'read("gettempdir", tempfile.gettempdir)',
  'read("uuid1", uuid.uuid1)',
  'read("uuid4", uuid.uuid4)',
  'read("logging", lambda: logging.makeLogRecord({}).relativeCreated)',
  'read("hash", lambda: hash("sluice"))',
  'await tools.echo({"step": 1})',
  'time.sleep(0.25)',
  'pathlib.Path("data.txt").write_text("two")',
  'read("stat file after", lambda: os.stat("data.txt"))',
  'read("stat . after", lambda: os.stat("."))',
  'clocks("after")',
  'return {"seen": seen, "host": [os.uname().nodename, socket.gethostname(), platform.node()], "load": os.getloadavg()}',
);

interface Seen {
  readonly seen: Record<string, string>;
  readonly host: string[];
  readonly load: number[];
}

async function readWith(runtime: typeof first, options: { deterministic?: typeof deterministic } = {}): Promise<Seen> {
  const result = await runtime.run({ program, bindings: { tools: { echo } }, ...options });
  return successValue(result) as unknown as Seen;
}

describe('python deterministic runs: what the program reads of its process, host and files', () => {
  it('reads the same clocks, process ids, directory names and file metadata in a replay on another runtime', async () => {
    const original = await readWith(first, { deterministic });
    const replay = await readWith(second, { deterministic });
    const differing = Object.keys(original.seen).filter((label) => original.seen[label] !== replay.seen[label]);
    expect(differing.map((label) => `${label}: ${original.seen[label]} | ${replay.seen[label]}`)).toEqual([]);
    expect(Object.keys(replay.seen)).toEqual(Object.keys(original.seen));
  }, 60_000);

  it('names the host and its load as no machine in particular', async () => {
    const { host, load } = await readWith(first, { deterministic });
    expect(host).toEqual(['sluice', 'sluice', 'sluice']);
    expect(load).toEqual([0, 0, 0]);
  }, 60_000);

  it('keeps the paths it shows usable: files, temporary directories, sqlite, chdir, its own pid', async () => {
    const result = await first.run({
      deterministic,
      program: python(
        'import filecmp, glob, os, pathlib, shutil, sqlite3, tempfile',
        'here = os.getcwd()',
        'with open(os.path.join(here, "a.txt"), "w") as file:',
        '    file.write("one")',
        'pathlib.Path("b.txt").write_text("two")',
        'with tempfile.TemporaryDirectory() as scratch:',
        '    pathlib.Path(scratch, "c.txt").write_text("three")',
        '    copied = shutil.copytree(scratch, "copy")',
        'database = sqlite3.connect(os.path.join(here, "db.sqlite"))',
        'database.execute("create table t (x)")',
        'database.close()',
        'os.mkdir("sub")',
        'os.chdir("sub")',
        'inside = [os.getcwd(), os.path.abspath("d.txt"), pathlib.Path("../a.txt").resolve().read_text()]',
        'os.chdir(here)',
        'walked = sorted(os.path.relpath(os.path.join(root, name)) for root, _dirs, names in os.walk(here) for name in names)',
        'os.kill(os.getpid(), 0)',
        'return {"here": here, "inside": inside, "walked": walked, "glob": sorted(glob.glob(os.path.join(here, "*.txt"))),',
        '        "link": [os.readlink("/proc/self/cwd"), os.path.realpath("/proc/self/cwd/a.txt", strict=True)],',
        '        "same": filecmp.cmp("a.txt", "b.txt"), "group": os.getpgid(os.getpid()) == os.getpid(),',
        '        "entry": all(isinstance(entry, os.DirEntry) for entry in os.scandir(here)),',
        '        "copied": os.path.exists(copied), "removed": not os.path.exists(scratch)}',
      ),
    });
    expect(successValue(result)).toEqual({
      here: '/proc/self/fd/9',
      inside: ['/proc/self/fd/9/sub', '/proc/self/fd/9/sub/d.txt', 'one'],
      walked: ['a.txt', 'b.txt', 'copy/c.txt', 'db.sqlite'],
      glob: ['/proc/self/fd/9/a.txt', '/proc/self/fd/9/b.txt'],
      link: ['/proc/self/fd/9', '/proc/self/fd/9/a.txt'],
      same: false,
      group: true,
      entry: true,
      copied: true,
      removed: true,
    });
  }, 60_000);

  it('leaves an ordinary run its real clocks, ids, directory and host', async () => {
    const seeded = await readWith(first, { deterministic });
    const plain = await readWith(first);
    const { seen } = plain;
    const directory = JSON.parse(seen.getcwd?.replaceAll("'", '"') ?? 'null') as string;
    expect(directory.startsWith(`${realpathSync(tmpdir())}/sluice-python-`)).toBe(true);
    expect(seen['HOME TMPDIR']).toBe(`('${directory}', '${directory}')`);
    expect(seen.getpid).not.toBe(seeded.seen.getpid);
    expect(seen['native id']).toBe(seen.getpid);
    // The machine's clock, not the virtual one at 2023-11-14: within ten minutes of the test's.
    const wall = Number(seen['before clock_gettime CLOCK_REALTIME']);
    expect(Math.abs(wall * 1000 - Date.now())).toBeLessThan(600_000);
    const modified = Number(/st_mtime=(\d+)/.exec(seen['stat file'] ?? '')?.[1]);
    expect(Math.abs(modified - wall)).toBeLessThan(600);
    expect(seen['before pthread_getcpuclockid']).not.toBe('3');
    expect(plain.host).toEqual([hostname(), hostname(), hostname()]);
  }, 60_000);
});
