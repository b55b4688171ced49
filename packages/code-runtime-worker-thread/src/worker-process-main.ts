import type { HostToProcess, ProcessToHost, WorkerProcessBoot } from './worker-process-frames.js';
import { WorkerSlot } from './worker-thread-slot.js';

/**
 * The worker process: the child the host spawns, with one worker thread that runs one program at
 * a time. Frames from the host arrive as JSON lines on stdin; frames to the host leave as JSON
 * lines on stdout. A worker that ended abnormally is replaced here, in the same process; a fatal
 * engine error (a heap exhausted by one large allocation) ends the process, and the host starts
 * another. Standard input closing means the host is gone: the process exits.
 */
function main(): void {
  const boot = JSON.parse(process.argv[2] ?? '') as WorkerProcessBoot;
  let slot: WorkerSlot;

  const send = (frame: ProcessToHost): void => {
    process.stdout.write(`${JSON.stringify(frame)}\n`);
  };
  const startSlot = (): void => {
    const started = new WorkerSlot(boot, send, () => {
      // A worker that never booted will not boot next time either: the host sees the exit.
      if (!started.booted) process.exit(3);
      setImmediate(startSlot);
    });
    slot = started;
  };

  const onFrame = (frame: HostToProcess): void => {
    if (frame.type === 'run') {
      if (slot.state === 'idle') slot.execute(frame.seq, frame.code, frame.bindings, frame.deterministic);
    } else if (frame.type === 'reply') slot.reply(frame.seq, frame.callId, frame.ok, frame.text);
    else if (frame.type === 'stop') slot.stop(frame.seq);
  };

  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    let newline = chunk.indexOf('\n');
    if (newline === -1) {
      pending += chunk;
      return;
    }
    let line = pending + chunk.slice(0, newline);
    for (;;) {
      onFrame(JSON.parse(line) as HostToProcess);
      const next = chunk.indexOf('\n', newline + 1);
      if (next === -1) break;
      line = chunk.slice(newline + 1, next);
      newline = next;
    }
    pending = chunk.slice(newline + 1);
  });
  process.stdin.on('end', () => process.exit(0));
  process.stdout.on('error', () => process.exit(0));
  startSlot();
}

main();
