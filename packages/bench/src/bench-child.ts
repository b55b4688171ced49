// Runs one suite in this process and prints its rows as one JSON line prefixed `ROWS `.
import type { BenchSuite } from './bench-harness.js';

const [modulePath, scaleText] = process.argv.slice(2);
const { suite } = (await import(new URL(modulePath!, import.meta.url).href)) as { suite: BenchSuite };
const rows = await suite.measure(Number(scaleText ?? '1'));
process.stdout.write(`ROWS ${JSON.stringify(rows)}\n`);
process.exit(0);
