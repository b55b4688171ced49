/** The day the demo pretends it is, so its data and output are the same on every run. */
export const demoToday = '2026-11-30';

/** One issue in the demo tracker. */
export interface DemoIssue {
  readonly id: string;
  readonly project: 'WEB' | 'API' | 'PAY';
  readonly title: string;
  state: 'open' | 'closed';
  readonly labels: readonly string[];
  readonly assignee: string | null;
  readonly priority: 'low' | 'medium' | 'high';
  readonly createdAt: string;
  updatedAt: string;
  readonly comments: string[];
}

/** One day of a city's forecast. */
export interface DemoForecastDay {
  readonly date: string;
  readonly high: number;
  readonly low: number;
  /** Chance of rain, 0 to 1. */
  readonly rain: number;
  readonly summary: string;
}

const people = ['ana', 'bo', 'chidi', 'dev', 'eun', null] as const;
const labelSets = [
  ['bug'],
  ['bug', 'regression'],
  ['feature'],
  ['bug', 'ux'],
  ['chore'],
  ['wontfix'],
  ['feature', 'ux'],
];
const subjects = [
  'Login fails after password reset',
  'Checkout total ignores coupon',
  'Dark mode contrast on settings page',
  'Rate limiter counts retries twice',
  'Webhook retries never back off',
  'CSV export drops the last row',
  'Search returns archived projects',
  'Invoice PDF shows the wrong currency',
  'Timezone shift in weekly digest',
  'Avatar upload accepts 0-byte files',
  'Slow query on the activity feed',
  'Refund button double-submits',
  'Broken link in the onboarding email',
  'API returns 500 on empty filters',
];

/** The cities of the demo's offices. */
export const demoCities = ['Lagos', 'Lima', 'Oslo', 'Porto', 'Pune', 'Denver', 'Hanoi', 'Tromsø'] as const;

// Typical early-December daytime highs, so the forecasts look like the places.
const typicalHigh: Record<string, number> = {
  Lagos: 31,
  Lima: 23,
  Oslo: 1,
  Porto: 14,
  Pune: 29,
  Denver: 7,
  Hanoi: 22,
  Tromsø: -3,
};

/** A fresh copy of the demo tracker's issues: 42 across three projects, made by a seeded generator. */
export function demoIssues(): DemoIssue[] {
  const random = seeded(20261130);
  const issues: DemoIssue[] = [];
  for (const project of ['WEB', 'API', 'PAY'] as const) {
    for (let number = 1; number <= 14; number += 1) {
      const created = daysBefore(demoToday, 10 + Math.floor(random() * 200));
      const updated = daysBefore(demoToday, Math.floor(random() * 150));
      issues.push({
        id: `${project}-${number}`,
        project,
        title: subjects[(number * 5 + project.length + issues.length) % subjects.length]!,
        state: random() < 0.78 ? 'open' : 'closed',
        labels: labelSets[Math.floor(random() * labelSets.length)]!,
        assignee: people[Math.floor(random() * people.length)]!,
        priority: (['low', 'medium', 'high'] as const)[Math.floor(random() * 3)]!,
        createdAt: created,
        updatedAt: [created, updated].sort()[1]!,
        comments: [],
      });
    }
  }
  return issues;
}

/** The seven-day forecast for a demo city; the same city always gets the same weather. */
export function demoForecast(city: string, days: number): DemoForecastDay[] {
  const random = seeded([...city].reduce((hash, character) => hash * 31 + character.charCodeAt(0), 7) >>> 0);
  const base = (typicalHigh[city] ?? 15) - 3;
  return Array.from({ length: days }, (_, index) => {
    const rain = Math.round(random() * 100) / 100;
    // Adding 0 turns a rounded -0 into 0, which JSON can carry.
    const high = Math.round(base + random() * 6) + 0;
    return {
      date: daysBefore(demoToday, -(index + 1)),
      high,
      low: high - 4 - Math.round(random() * 5) + 0,
      rain,
      summary: rain > 0.7 ? 'rain' : rain > 0.4 ? 'showers' : high > 24 ? 'sunny' : 'cloudy',
    };
  });
}

function daysBefore(date: string, days: number): string {
  const time = Date.parse(`${date}T00:00:00Z`) - days * 86_400_000;
  return new Date(time).toISOString().slice(0, 10);
}

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
