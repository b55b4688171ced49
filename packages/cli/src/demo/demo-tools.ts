import type { JsonObject, JsonValue } from '@sluice/code-runtime';
import type { PolicyDefinition, Tool } from '@sluice/permissions';
import { type DemoIssue, demoCities, demoForecast, demoIssues } from './demo-data.js';

/** Options for {@link demoTools}. */
export interface DemoToolsOptions {
  /** Milliseconds each call waits, like a network round trip. Default 8; `issues.history` waits 25 times that. */
  readonly latencyMs?: number;
}

const issueSummary: JsonObject = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'Project key and number, e.g. "WEB-12".' },
    project: { enum: ['WEB', 'API', 'PAY'] },
    title: { type: 'string' },
    state: { enum: ['open', 'closed'] },
    labels: { type: 'array', items: { type: 'string' } },
    assignee: { type: ['string', 'null'], description: 'Login of the assignee; null when unassigned.' },
    priority: { enum: ['low', 'medium', 'high'] },
    createdAt: { type: 'string', format: 'date' },
    updatedAt: { type: 'string', format: 'date' },
  },
  required: ['id', 'project', 'title', 'state', 'labels', 'assignee', 'priority', 'createdAt', 'updatedAt'],
};

const idInput: JsonObject = {
  type: 'object',
  properties: { id: { type: 'string', description: 'Issue id, e.g. "WEB-12".' } },
  required: ['id'],
  additionalProperties: false,
};

/**
 * The demo's tools: an in-memory issue tracker (42 issues in projects WEB, API and PAY) and a weather
 * service for eight office cities, with realistic schemas and a little latency. Each call to this
 * function makes a fresh tracker, so runs never see each other's changes.
 */
export function demoTools(options: DemoToolsOptions = {}): Tool[] {
  const latencyMs = options.latencyMs ?? 8;
  const issues = demoIssues();
  const find = (id: unknown): DemoIssue => {
    const issue = issues.find((candidate) => candidate.id === id);
    if (issue === undefined) throw new Error(`No issue ${JSON.stringify(id)}; ids look like "WEB-12".`);
    return issue;
  };
  const summary = ({ comments: _comments, ...rest }: DemoIssue) => rest as unknown as JsonValue;
  const tool = (
    name: string,
    description: string,
    inputSchema: JsonObject,
    outputSchema: JsonObject,
    run: (input: Record<string, unknown>) => unknown,
    slowdown = 1,
  ): Tool => ({
    name,
    description,
    inputSchema,
    outputSchema,
    async execute(input, { signal }) {
      await delay(latencyMs * slowdown, signal);
      return run((input ?? {}) as Record<string, unknown>) as JsonValue;
    },
  });

  return [
    tool(
      'issues.search',
      'Search issues by project, state, label and assignee. Returns summaries, most recently updated first.',
      {
        type: 'object',
        properties: {
          project: { enum: ['WEB', 'API', 'PAY'] },
          state: { enum: ['open', 'closed', 'all'], default: 'open' },
          label: { type: 'string', description: 'Only issues with this label.' },
          assignee: {
            type: ['string', 'null'],
            description: 'Only issues assigned to this login; null for unassigned.',
          },
          limit: { type: 'integer', minimum: 1, maximum: 50, default: 20 },
        },
        additionalProperties: false,
      },
      {
        type: 'object',
        properties: { issues: { type: 'array', items: issueSummary }, total: { type: 'integer' } },
        required: ['issues', 'total'],
      },
      (input) => {
        const state = (input.state as string | undefined) ?? 'open';
        const matches = issues
          .filter((issue) => input.project === undefined || issue.project === input.project)
          .filter((issue) => state === 'all' || issue.state === state)
          .filter((issue) => input.label === undefined || issue.labels.includes(input.label as string))
          .filter((issue) => !('assignee' in input) || issue.assignee === input.assignee)
          .sort((left, right) => right.updatedAt.localeCompare(left.updatedAt) || left.id.localeCompare(right.id));
        return {
          issues: matches.slice(0, (input.limit as number | undefined) ?? 20).map(summary),
          total: matches.length,
        };
      },
    ),
    tool(
      'issues.get',
      'One issue with its comments.',
      idInput,
      {
        allOf: [
          issueSummary,
          { type: 'object', properties: { comments: { type: 'array', items: { type: 'string' } } } },
        ],
      },
      (input) => find(input.id) as unknown,
    ),
    tool(
      'issues.close',
      'Close an open issue, with a comment saying why.',
      {
        type: 'object',
        properties: { id: { type: 'string' }, comment: { type: 'string', minLength: 1 } },
        required: ['id', 'comment'],
        additionalProperties: false,
      },
      issueSummary,
      (input) => {
        const issue = find(input.id);
        issue.state = 'closed';
        issue.comments.push(input.comment as string);
        return summary(issue);
      },
    ),
    tool(
      'issues.comment',
      'Add a comment to an issue.',
      {
        type: 'object',
        properties: { id: { type: 'string' }, body: { type: 'string', minLength: 1 } },
        required: ['id', 'body'],
        additionalProperties: false,
      },
      { type: 'object', properties: { comments: { type: 'integer' } }, required: ['comments'] },
      (input) => {
        const issue = find(input.id);
        issue.comments.push(input.body as string);
        return { comments: issue.comments.length };
      },
    ),
    tool(
      'issues.history',
      'The change history of one issue. Slow: it reads the audit archive.',
      idInput,
      {
        type: 'object',
        properties: {
          id: { type: 'string' },
          events: {
            type: 'array',
            items: {
              type: 'object',
              properties: { date: { type: 'string', format: 'date' }, change: { type: 'string' } },
              required: ['date', 'change'],
            },
          },
        },
        required: ['id', 'events'],
      },
      (input) => {
        const issue = find(input.id);
        return {
          id: issue.id,
          events: [
            { date: issue.createdAt, change: 'created' },
            { date: issue.updatedAt, change: `state: ${issue.state}` },
          ],
        };
      },
      25,
    ),
    tool(
      'weather.cities',
      'The cities the weather service covers: one per office.',
      { type: 'object', additionalProperties: false },
      { type: 'array', items: { type: 'string' } },
      () => [...demoCities],
    ),
    tool(
      'weather.forecast',
      'Daily forecast for a city, starting tomorrow.',
      {
        type: 'object',
        properties: {
          city: { enum: [...demoCities] },
          days: { type: 'integer', minimum: 1, maximum: 7, default: 3 },
        },
        required: ['city'],
        additionalProperties: false,
      },
      {
        type: 'object',
        properties: {
          city: { type: 'string' },
          days: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                date: { type: 'string', format: 'date' },
                high: { type: 'number', description: 'Degrees Celsius.' },
                low: { type: 'number', description: 'Degrees Celsius.' },
                rain: { type: 'number', minimum: 0, maximum: 1, description: 'Chance of rain.' },
                summary: { enum: ['sunny', 'cloudy', 'showers', 'rain'] },
              },
              required: ['date', 'high', 'low', 'rain', 'summary'],
            },
          },
        },
        required: ['city', 'days'],
      },
      (input) => ({
        city: input.city,
        days: demoForecast(input.city as string, (input.days as number | undefined) ?? 3),
      }),
    ),
  ];
}

/** The demo's policy: everything is allowed, except closing PAY issues, which the payments team owns. */
export const demoPolicy: PolicyDefinition = {
  default: 'deny',
  rules: [
    {
      tool: 'issues.close',
      effect: 'deny',
      when: { id: { matches: '^PAY-' } },
      reason: 'PAY issues are closed by the payments team; leave a comment for them instead',
    },
    { tool: ['issues.*', 'weather.*'], effect: 'allow' },
  ],
};

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error('The run ended.'));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('The run ended.'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
