import { describe, expect, it } from 'vitest';
import { callBinding, recordingTool } from './__fixtures__/test-support.js';
import type { ApprovalCallback, ApprovalRequest } from './approval.js';
import type { PermissionDecision } from './audit-log.js';
import { deriveBindings } from './derive-bindings.js';
import type { PolicyDefinition } from './policy-definition.js';

const askForIssues: PolicyDefinition = {
  rules: [
    { tool: 'github__create_issue', effect: 'ask', description: 'filing issues needs a human' },
    { tool: 'search', effect: 'allow' },
  ],
};

function setup(approve: ApprovalCallback | undefined, approvalTimeoutMs = 30_000) {
  const issue = recordingTool('github__create_issue');
  const events: PermissionDecision[] = [];
  const bindings = deriveBindings([issue.tool, recordingTool('search').tool], askForIssues, {
    ...(approve === undefined ? {} : { approve }),
    approvalTimeoutMs,
    onDecision: (event) => events.push(event),
  });
  return { bindings, calls: issue.calls, events };
}

describe('approval', () => {
  it('asks with the tool, the real arguments, the run and the rule, and runs the call once when allowed', async () => {
    const requests: ApprovalRequest[] = [];
    const { bindings, calls, events } = setup((request) => {
      requests.push(request);
      return { decision: 'allow' };
    });
    const input = { title: 'Crash on start', labels: ['bug'] };
    await expect(callBinding(bindings, 'github.create_issue', input, { runId: 'run-4' })).resolves.toEqual({
      echoed: input,
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      tool: 'github__create_issue',
      binding: 'github.create_issue',
      arguments: input,
      runId: 'run-4',
      rule: { index: 0, description: 'filing issues needs a human' },
    });
    expect(requests[0]!.callId).toBe(events[0]!.callId);
    expect(calls).toEqual([input]);
    expect(events[0]).toMatchObject({ decision: 'allow', effect: 'ask', approval: { outcome: 'allow' } });
  });

  it('asks again for the next call: an allow is for one call only', async () => {
    let asked = 0;
    const { bindings, calls } = setup(() => {
      asked += 1;
      return asked === 1 ? { decision: 'allow' } : { decision: 'deny', reason: 'one issue is enough' };
    });
    await callBinding(bindings, 'github.create_issue', { title: 'a' });
    await expect(callBinding(bindings, 'github.create_issue', { title: 'b' })).rejects.toThrow(
      'Permission denied: github.create_issue was not approved: one issue is enough. ' +
        'Tools available to this program: github.create_issue, tools.search.',
    );
    expect(asked).toBe(2);
    expect(calls).toEqual([{ title: 'a' }]);
  });

  it('treats no answer within the configured time as a denial', async () => {
    let signal: AbortSignal | undefined;
    const { bindings, calls, events } = setup((request) => {
      signal = request.signal;
      return new Promise(() => {});
    }, 50);
    await expect(callBinding(bindings, 'github.create_issue', { title: 'a' })).rejects.toThrow(
      /^Permission denied: github.create_issue needs approval and none came within 50 ms\./,
    );
    expect(calls).toEqual([]);
    expect(events[0]).toMatchObject({ decision: 'deny', deniedBy: 'approval', approval: { outcome: 'timeout' } });
    expect(signal?.aborted).toBe(true);
  });

  it('ignores an answer that arrives after the timeout', async () => {
    let answer: ((value: { decision: 'allow' }) => void) | undefined;
    const { bindings, calls } = setup(() => new Promise((resolve) => (answer = resolve)), 20);
    await expect(callBinding(bindings, 'github.create_issue', { title: 'late' })).rejects.toThrow(/none came within/);
    answer?.({ decision: 'allow' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls).toEqual([]);
  });

  it('treats the run ending while waiting as a denial', async () => {
    const run = new AbortController();
    const { bindings, calls, events } = setup(() => {
      setTimeout(() => run.abort(), 5);
      return new Promise(() => {});
    });
    await expect(callBinding(bindings, 'github.create_issue', { title: 'a' }, { signal: run.signal })).rejects.toThrow(
      /the run ended while waiting for it/,
    );
    expect(calls).toEqual([]);
    expect(events[0]!.approval?.outcome).toBe('aborted');
  });

  it('does not run the call when the run ended just as the approval came', async () => {
    // A signal whose abort event never reaches the approval wait, so only the check made after the
    // answer can notice that the run is over.
    const ended = { aborted: false, addEventListener: () => {}, removeEventListener: () => {} };
    const { bindings, calls } = setup(() => {
      ended.aborted = true;
      return { decision: 'allow' };
    });
    await expect(
      callBinding(bindings, 'github.create_issue', { title: 'a' }, { signal: ended as unknown as AbortSignal }),
    ).rejects.toThrow(/the run ended while waiting/);
    expect(calls).toEqual([]);
  });

  it('treats a callback that throws, rejects or answers nonsense as a denial, without showing its error', async () => {
    const answers: ApprovalCallback[] = [
      () => {
        throw new Error('approval service secret-token failed');
      },
      () => Promise.reject(new Error('approval service secret-token failed')),
      () => true as never,
      () => ({ decision: 'yes' }) as never,
    ];
    for (const approve of answers) {
      const { bindings, calls, events } = setup(approve);
      const error = await callBinding(bindings, 'github.create_issue', { title: 'a' }).catch((caught: Error) => caught);
      expect((error as Error).message).toMatch(
        /^Permission denied: github.create_issue needs approval and the approval step failed/,
      );
      expect((error as Error).message).not.toContain('secret-token');
      expect(events[0]!.approval?.outcome).toBe('error');
      expect(calls).toEqual([]);
    }
  });

  it('denies an ask when no approval callback is configured', async () => {
    const { bindings, calls, events } = setup(undefined);
    await expect(callBinding(bindings, 'github.create_issue', { title: 'a' })).rejects.toThrow(
      /needs approval and no one is available to give it/,
    );
    expect(events[0]!.approval).toEqual({ outcome: 'unavailable', ms: 0 });
    expect(calls).toEqual([]);
  });

  it('validates the input before asking anyone', async () => {
    let asked = false;
    const issue = recordingTool('github__create_issue', {
      type: 'object',
      properties: { title: { type: 'string' } },
      required: ['title'],
    });
    const bindings = deriveBindings([issue.tool], askForIssues, {
      approve: () => {
        asked = true;
        return { decision: 'allow' };
      },
    });
    await expect(callBinding(bindings, 'github.create_issue', { body: 'x' })).rejects.toThrow(/\$\.title is required/);
    expect(asked).toBe(false);
  });

  it('gives the approver a copy, so changing it cannot change what runs', async () => {
    const { bindings, calls } = setup((request) => {
      (request.arguments as { title: string }).title = 'rm -rf /';
      return { decision: 'allow' };
    });
    await callBinding(bindings, 'github.create_issue', { title: 'safe' });
    expect(calls).toEqual([{ title: 'safe' }]);
  });
});

describe('approval with a hostile callback', () => {
  const unreadable = () =>
    Object.defineProperty(new Error('x'), 'message', {
      get() {
        throw new Error('getter');
      },
    });

  it('denies, without throwing past the call, when the callback throws an error whose message getter throws', async () => {
    const { bindings, calls, events } = setup(() => {
      throw unreadable();
    });
    await expect(callBinding(bindings, 'github.create_issue', { title: 'a' })).rejects.toThrow('Permission denied');
    expect(calls).toEqual([]);
    expect(events[0]).toMatchObject({ approval: { outcome: 'error' } });
  });

  it('denies when the callback rejects with a Proxy whose every trap throws', async () => {
    const trap = () => {
      throw new Error('trap');
    };
    const proxy = new Proxy({}, { get: trap, getPrototypeOf: trap, ownKeys: trap, getOwnPropertyDescriptor: trap });
    const { bindings, events } = setup(() => Promise.reject(proxy));
    await expect(callBinding(bindings, 'github.create_issue', { title: 'a' })).rejects.toThrow('Permission denied');
    expect(events[0]).toMatchObject({ approval: { outcome: 'error' } });
  });
});
