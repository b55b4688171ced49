// `npx tsx packages/code-runtime-python/scripts/measure-run-cost.ts [package directory] [runs] [callers] [--unawaited | --modules]`
// prints what one run costs at N callers, by process: the host's CPU (`process.cpuUsage()`), the
// zygote's own CPU and page faults, and its reaped children's (`/proc/<zygote>/stat`). CPU moves
// with the machine's load and fault counts do not. To compare two trees, copy each one's `dist` and
// `python` (with no `__pycache__`, as installed) and a link to this package's `node_modules` into
// a directory, and run the script on the directories in turn, interleaved.
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const options = process.argv.slice(2);
const [directory = resolve(import.meta.dirname, '..'), runs = '1000', callers = '8'] = options.filter(
  (option) => !option.startsWith('--'),
);
const { createPythonCodeRuntime } = (await import(
  pathToFileURL(resolve(directory, 'dist/index.js')).href
)) as typeof import('../dist/index.js');

/** Fields of /proc/<pid>/stat, in clock ticks and faults. */
function processStat(pid: number) {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = text
    .slice(text.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  const field = (number: number) => fields[number - 3] ?? Number.NaN;
  return {
    minflt: field(10),
    cminflt: field(11),
    utime: field(14),
    stime: field(15),
    cutime: field(16),
    cstime: field(17),
  };
}

function zygotePid(): number {
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    for (const pid of readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8').split(/\s+/)) {
      if (pid !== '' && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sluice_zygote')) return Number(pid);
    }
  }
  throw new Error('no zygote found');
}

const runtime = createPythonCodeRuntime();
// `--unawaited`: the call without `await`, made at once where its value is used; `--modules`: `json` used unimported.
const programs: Record<string, string> = {
  awaited: 'r = await tools.echo({"x": 1})\nprint(r["x"])\nreturn r["x"] + 1',
  unawaited: 'r = tools.echo({"x": 1})\nprint(r["x"])\nreturn r["x"] + 1',
  modules: 'r = await tools.echo({"x": 1})\nprint(json.dumps(r))\nreturn r["x"] + 1',
};
const program = programs[options.find((option) => option.startsWith('--'))?.slice(2) ?? 'awaited'];
if (program === undefined) throw new Error(`unknown option; one of --${Object.keys(programs).join(', --')}`);
const bindings = { tools: { echo: async (input: unknown) => input as null } };
async function burst(count: number): Promise<void> {
  let started = 0;
  const caller = async () => {
    for (; started < count; started += 1) {
      const result = await runtime.run({ program, bindings });
      if (!result.ok) throw new Error(JSON.stringify(result.failure));
    }
  };
  await Promise.all(Array.from({ length: Number(callers) }, caller));
}

try {
  await burst(200);
  await new Promise((done) => setTimeout(done, 300));
  const zygote = zygotePid();
  const ticksMs = 10; // USER_HZ is 100 on Linux
  const hostBefore = process.cpuUsage();
  const before = processStat(zygote);
  const startedAt = performance.now();
  await burst(Number(runs));
  const seconds = (performance.now() - startedAt) / 1000;
  await new Promise((done) => setTimeout(done, 300)); // the last children reaped
  const host = process.cpuUsage(hostBefore);
  const after = processStat(zygote);
  const per = (value: number) => (value / Number(runs)).toFixed(3);
  console.log(
    JSON.stringify({
      runsPerSecond: Math.round(Number(runs) / seconds),
      hostMs: { user: per(host.user / 1000), system: per(host.system / 1000) },
      zygoteMs: {
        user: per((after.utime - before.utime) * ticksMs),
        system: per((after.stime - before.stime) * ticksMs),
      },
      childMs: {
        user: per((after.cutime - before.cutime) * ticksMs),
        system: per((after.cstime - before.cstime) * ticksMs),
      },
      faults: { zygote: per(after.minflt - before.minflt), child: per(after.cminflt - before.cminflt) },
      load: readFileSync('/proc/loadavg', 'utf8').split(' ')[0],
    }),
  );
} finally {
  await runtime.dispose();
}
