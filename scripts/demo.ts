// `npm run demo`: a model-written TypeScript program fans out over a few sample tools with
// Promise.all, run by the worker-thread provider through `ctx.codeRuntime`. It prints the logs and
// host calls as they stream, then the value, the calls and the usage.
import type { CodeRunEvent, HostFunction } from '../packages/code-runtime/dist/index.js';
import { createWorkerThreadCodeRuntime } from '../packages/code-runtime-worker-thread/dist/index.js';
import { createContext } from '../packages/context/dist/index.js';

const forecasts: Record<string, { tempC: number; sky: string }> = {
  Lisbon: { tempC: 21, sky: 'sunny' },
  Oslo: { tempC: 4, sky: 'sleet' },
  Nairobi: { tempC: 24, sky: 'clouds' },
  Osaka: { tempC: 17, sky: 'rain' },
};
const rates: Record<string, number> = { EUR: 1, NOK: 11.6, KES: 140.2, JPY: 162.4 };

const weather: HostFunction = async (input) => {
  const { city } = input as { city: string };
  await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
  const forecast = forecasts[city];
  if (forecast === undefined)
    throw new Error(`No forecast for ${city}. Known cities: ${Object.keys(forecasts).join(', ')}.`);
  return forecast;
};
const convert: HostFunction = async (input) => {
  const { amount, to } = input as { amount: number; to: string };
  await new Promise((resolve) => setTimeout(resolve, 10));
  const rate = rates[to];
  if (rate === undefined) throw new Error(`Unknown currency ${to}.`);
  return { amount: Math.round(amount * rate * 100) / 100, currency: to };
};

const program = `
interface Forecast { tempC: number; sky: string }
const trips = [
  { city: 'Lisbon', currency: 'EUR' },
  { city: 'Oslo', currency: 'NOK' },
  { city: 'Nairobi', currency: 'KES' },
  { city: 'Osaka', currency: 'JPY' },
];
console.log(\`checking \${trips.length} cities at once\`);
const rows = await Promise.all(
  trips.map(async ({ city, currency }) => {
    const [forecast, budget] = await Promise.all([
      tools.weather({ city }) as Promise<Forecast>,
      tools.convert({ amount: 150, to: currency }),
    ]);
    return { city, ...forecast, budget };
  }),
);
const warm = rows.filter((row) => row.tempC >= 15).sort((a, b) => b.tempC - a.tempC);
console.log('warm enough:', warm.map((row) => row.city));
return { best: warm[0]?.city ?? null, rows };
`;

const ctx = createContext();
ctx.provide('codeRuntime', createWorkerThreadCodeRuntime({ wallTimeMs: 5_000, cpuTimeMs: 1_000 }));
console.log(`isolation: ${ctx.codeRuntime.isolation}\n`);

const show = (event: CodeRunEvent) => {
  if (event.type === 'log') console.log(`  [${event.level}] ${event.text}`);
  else if (event.type === 'host-call-start')
    console.log(`  → ${event.namespace}.${event.name}(${JSON.stringify(event.input)})`);
  else
    console.log(
      `  ← ${event.namespace}.${event.name} ${event.ok ? 'ok' : `failed: ${event.error}`} in ${event.ms.toFixed(1)} ms`,
    );
};

console.log('streaming:');
const result = await ctx.codeRuntime.run({ program, bindings: { tools: { weather, convert } }, onEvent: show });
console.log('\nlogs:', result.logs);
if (result.ok) console.log('value:', JSON.stringify(result.value, null, 2));
else console.log('failure:', result.failure);
console.log(
  'calls:',
  result.calls.map((call) => `${call.namespace}.${call.name} ${call.ok ? 'ok' : 'failed'} ${call.ms.toFixed(1)} ms`),
);
console.log('usage:', result.usage);

const broken = await ctx.codeRuntime.run({ program: 'while (true) {}' });
console.log('\na runaway loop ends as data:', broken.ok ? broken.value : broken.failure);
await ctx.dispose();
