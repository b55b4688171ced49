import { afterAll, describe, expect, it } from 'vitest';
import { successValue, testRuntime } from './__fixtures__/test-runtime.js';
import {
  childFrameTypes,
  helloFrameType,
  hostFrameTypes,
  wireProtocolVersion,
  zygoteCommandTypes,
  zygoteReportTypes,
} from './wire-frames.js';

// Changing any of these changes what a child or a host of another version sees: update
// docs/architecture/python-wire-protocol.md and bump the protocol version with them.
describe('pinned wire protocol', () => {
  it('has these frame types in each direction', () => {
    expect(wireProtocolVersion).toBe(1);
    expect(helloFrameType).toBe('hello');
    expect([...childFrameTypes]).toEqual(['started', 'log', 'call', 'done']);
    expect([...hostFrameTypes]).toEqual(['run', 'reply']);
    expect([...zygoteCommandTypes]).toEqual(['fork', 'kill']);
    expect([...zygoteReportTypes]).toEqual(['ready', 'boot-error', 'exit']);
  });
});

describe('pinned child environment', () => {
  const runtime = testRuntime();
  afterAll(() => runtime.dispose());

  it('is exactly HOME, LANG and TMPDIR, whatever the host has', async () => {
    process.env.SLUICE_PINS_SECRET = 'must not be seen';
    try {
      const value = successValue(
        await runtime.run({ program: 'import os\nreturn {"environment": dict(os.environ), "cwd": os.getcwd()}' }),
      ) as { environment: Record<string, string>; cwd: string };
      expect(value.environment).toEqual({ HOME: value.cwd, LANG: 'C.UTF-8', TMPDIR: value.cwd });
    } finally {
      delete process.env.SLUICE_PINS_SECRET;
    }
  });
});
