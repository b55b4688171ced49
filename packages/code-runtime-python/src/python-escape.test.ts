import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { python, successValue, testRuntime } from './__fixtures__/test-runtime.js';

// Every attack runs twice: against the runtime as shipped, and against one without the optional
// layers (Landlock, seccomp, dropped capabilities). The second run shows the test would catch the
// attack if the layers were missing.
const contained = testRuntime();
const uncontained = testRuntime({}, { disabledLayers: ['landlock', 'seccomp', 'capabilities'] });
const scratch = mkdtempSync(join(tmpdir(), 'sluice-escape-'));
let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  await Promise.all([contained.dispose(), uncontained.dispose()]);
  await new Promise((resolve) => server.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

function target(name: string): string {
  return join(scratch, name);
}

describe('containment of a hostile program', () => {
  it('refuses reading /etc/passwd and writing outside the working directory (Landlock)', async () => {
    const program = (file: string) =>
      python(
        'outcome = {}',
        'try:',
        '    outcome["read"] = len(open("/etc/passwd").read()) > 0',
        'except OSError as error:',
        '    outcome["read"] = type(error).__name__',
        'try:',
        `    open(${JSON.stringify(file)}, "w").write("escaped")`,
        '    outcome["write"] = True',
        'except OSError as error:',
        '    outcome["write"] = type(error).__name__',
        'open("inside.txt", "w").write("mine")',
        'outcome["inside"] = open("inside.txt").read()',
        'return outcome',
      );
    const defended = successValue(await contained.run({ program: program(target('landlock-defended')) }));
    expect(defended).toEqual({ read: 'PermissionError', write: 'PermissionError', inside: 'mine' });
    expect(existsSync(target('landlock-defended'))).toBe(false);
    const open = successValue(await uncontained.run({ program: program(target('landlock-open')) }));
    expect(open).toEqual({ read: true, write: true, inside: 'mine' });
  });

  it('refuses subprocess, os.system and sockets (seccomp, Landlock)', async () => {
    const program = (file: string) =>
      python(
        'import os, socket, subprocess',
        'outcome = {}',
        'attempts = {',
        `    "subprocess": lambda: subprocess.run(["/bin/sh", "-c", "echo escaped > ${file}"]).returncode,`,
        `    "system": lambda: os.system("echo escaped > ${file}"),`,
        `    "connect": lambda: socket.create_connection(("127.0.0.1", ${port}), timeout=5).close(),`,
        '}',
        'for name, attempt in attempts.items():',
        '    try:',
        '        result = attempt()',
        '        outcome[name] = "ran" if result in (None, 0) else f"status {result}"',
        '    except OSError as error:',
        '        outcome[name] = type(error).__name__',
        'return outcome',
      );
    const before = connections;
    const defended = successValue(await contained.run({ program: program(target('process-defended')) })) as Record<
      string,
      string
    >;
    expect(defended.subprocess).toBe('PermissionError');
    expect(defended.system).not.toBe('ran');
    expect(defended.connect).toBe('PermissionError');
    expect(existsSync(target('process-defended'))).toBe(false);
    expect(connections).toBe(before);
    const open = successValue(await uncontained.run({ program: program(target('process-open')) }));
    expect(open).toEqual({ subprocess: 'ran', system: 'ran', connect: 'ran' });
    expect(existsSync(target('process-open'))).toBe(true);
    expect(connections).toBe(before + 1);
  });

  it('leaves an object.__subclasses__() walk to os.system with nothing to run', async () => {
    const program = (file: string) =>
      python(
        'def subclasses(root):',
        '    seen, stack = set(), [root]',
        '    while stack:',
        '        for cls in type.__subclasses__(stack.pop()):',
        '            if cls not in seen:',
        '                seen.add(cls)',
        '                stack.append(cls)',
        '    return seen',
        'system = None',
        'for cls in subclasses(object):',
        '    init = cls.__dict__.get("__init__")',
        '    found = getattr(init, "__globals__", {}).get("system")',
        '    if callable(found):',
        '        system = found',
        '        break',
        `return {"reached": system is not None, "status": system("echo escaped > ${file}") if system else None}`,
      );
    const defended = successValue(await contained.run({ program: program(target('walk-defended')) })) as {
      reached: boolean;
      status: number;
    };
    expect(defended.reached).toBe(true);
    expect(defended.status).not.toBe(0);
    expect(existsSync(target('walk-defended'))).toBe(false);
    successValue(await uncontained.run({ program: program(target('walk-open')) }));
    expect(existsSync(target('walk-open'))).toBe(true);
  });

  it('refuses ctypes calls on other processes and raw socket syscalls (Landlock scopes, seccomp)', async () => {
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const program = python(
        'import ctypes, os',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'libc.syscall.restype = ctypes.c_long',
        'def outcome(result):',
        '    return "allowed" if result >= 0 else os.strerror(ctypes.get_errno())',
        `signal = outcome(libc.kill(${process.pid}, 0))`,
        `trace = outcome(libc.ptrace(16, ${sleeper.pid}, None, None))`,
        'raw_socket = outcome(libc.syscall(41, 2, 1, 0))',
        'return {"signal": signal, "ptrace": trace, "socket": raw_socket}',
      );
      const denied = 'Operation not permitted';
      expect(successValue(await contained.run({ program }))).toEqual({
        signal: denied,
        ptrace: denied,
        socket: denied,
      });
      expect(successValue(await uncontained.run({ program }))).toEqual({
        signal: 'allowed',
        ptrace: 'allowed',
        socket: 'allowed',
      });
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('cannot read /proc of the host or of another run', async () => {
    const program = (pid: number) =>
      python(
        'import os',
        'outcome = {}',
        `for name in ("environ", "cmdline", "status"):`,
        '    try:',
        `        open(f"/proc/${pid}/{name}", "rb").read()`,
        '        outcome[name] = "read"',
        '    except OSError as error:',
        '        outcome[name] = type(error).__name__',
        'try:',
        '    os.listdir("/proc")',
        '    outcome["list"] = "read"',
        'except OSError as error:',
        '    outcome["list"] = type(error).__name__',
        'return outcome',
      );
    const refused = { environ: 'PermissionError', cmdline: 'PermissionError', status: 'PermissionError' };
    expect(successValue(await contained.run({ program: program(process.pid) }))).toEqual({
      ...refused,
      list: 'PermissionError',
    });
    expect(successValue(await uncontained.run({ program: program(process.pid) }))).toEqual({
      environ: 'read',
      cmdline: 'read',
      status: 'read',
      list: 'read',
    });
  });

  it('cannot signal or read another run that is alive at the same time', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let announce!: (pid: number) => void;
    const announced = new Promise<number>((resolve) => {
      announce = resolve;
    });
    const first = contained.run({
      program: python('import os', 'await tools.announce(os.getpid())', 'await tools.wait()', 'return "first"'),
      bindings: {
        tools: {
          announce: (pid) => {
            announce(pid as number);
            return null;
          },
          wait: () => released.then(() => null),
        },
      },
    });
    const pid = await announced;
    const probe = python(
      'import os',
      'outcome = {}',
      'try:',
      `    os.kill(${pid}, 0)`,
      '    outcome["signal"] = "allowed"',
      'except OSError as error:',
      '    outcome["signal"] = type(error).__name__',
      'try:',
      `    open("/proc/${pid}/cmdline", "rb").read()`,
      '    outcome["read"] = "read"',
      'except OSError as error:',
      '    outcome["read"] = type(error).__name__',
      'return outcome',
    );
    expect(successValue(await contained.run({ program: probe }))).toEqual({
      signal: 'PermissionError',
      read: 'PermissionError',
    });
    release();
    expect(successValue(await first)).toBe('first');
  });
});
