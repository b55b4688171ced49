// A realistic tool set for declaration snapshots: an issue tracker and a weather service, with
// $ref and recursion, enums, oneOf/anyOf, nullable fields, additionalProperties, reserved words
// and names that are not identifiers. Only the declared parts (name, description, schemas) matter.
import type { DeclaredTool } from '../declarations-entry.js';

const issueDefs = {
  Issue: {
    type: 'object',
    description: 'An issue in the tracker.',
    properties: {
      id: { type: 'integer', description: 'Unique id.' },
      title: { type: 'string' },
      state: { $ref: '#/$defs/State' },
      labels: { type: 'array', items: { type: 'string' } },
      assignee: { type: ['string', 'null'], description: 'Login of the assignee, or null when unassigned.' },
      createdAt: { type: 'string', format: 'date-time' },
      comments: { type: 'array', items: { $ref: '#/$defs/Comment' } },
    },
    required: ['id', 'title', 'state', 'labels', 'assignee', 'createdAt'],
    additionalProperties: false,
  },
  State: { type: 'string', enum: ['open', 'closed'], description: 'Whether the issue is open.' },
  Comment: {
    type: 'object',
    properties: {
      author: { type: 'string' },
      body: { type: 'string', description: 'Markdown text. May contain */ and """ quotes.' },
      replies: { type: 'array', items: { $ref: '#/$defs/Comment' }, description: 'Replies, as a thread.' },
    },
    required: ['author', 'body', 'replies'],
  },
};

export const realisticTools: DeclaredTool[] = [
  {
    name: 'weather.forecast',
    description: 'Daily forecast for a city. Up to 14 days ahead.',
    inputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name, e.g. "Oslo".' },
        days: { type: 'integer', minimum: 1, maximum: 14, default: 3 },
        units: { enum: ['metric', 'imperial'], default: 'metric' },
      },
      required: ['city'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              date: { type: 'string', format: 'date' },
              high: { type: 'number' },
              low: { type: 'number' },
              rain: { type: 'number', minimum: 0, maximum: 1, description: 'Chance of rain.' },
            },
            required: ['date', 'high', 'low', 'rain'],
          },
        },
      },
      required: ['city', 'days'],
    },
  },
  {
    name: 'issues.search',
    description: 'Search issues by text, state and labels.\nResults are sorted by last update, newest first.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words to match in titles and bodies.' },
        state: { anyOf: [{ $ref: '#/$defs/State' }, { const: 'all' }], default: 'open' },
        labels: { type: 'array', items: { type: 'string' }, description: 'Every label must match.' },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      },
      $defs: issueDefs,
    },
    outputSchema: {
      type: 'object',
      properties: {
        issues: { type: 'array', items: { $ref: '#/$defs/Issue' } },
        total: { type: 'integer' },
      },
      required: ['issues', 'total'],
      $defs: issueDefs,
    },
  },
  {
    name: 'issues.update',
    description: 'Change the state, labels or assignee of one issue.',
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'integer' },
        patch: {
          type: 'object',
          properties: {
            state: { $ref: '#/$defs/State' },
            labels: { type: 'array', items: { type: 'string' }, minItems: 0, maxItems: 10 },
            assignee: { type: 'string', nullable: true },
          },
          additionalProperties: false,
        },
      },
      required: ['id', 'patch'],
      $defs: issueDefs,
    },
    outputSchema: { $ref: '#/$defs/Issue', $defs: issueDefs },
  },
  {
    name: 'issues.delete',
    description: 'Delete an issue for good.',
    inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
    outputSchema: { type: 'object', properties: { deleted: { type: 'boolean' } }, required: ['deleted'] },
  },
  {
    name: 'weather.current-conditions',
    description: 'Current conditions at a station, or why there are none.',
    inputSchema: {
      type: 'object',
      properties: { station: { type: 'string', pattern: '^[A-Z]{4}$' } },
      required: ['station'],
    },
    outputSchema: {
      oneOf: [
        {
          type: 'object',
          properties: {
            kind: { const: 'observation' },
            temperature: { type: 'number' },
            wind: { type: 'object', properties: { speed: { type: 'number' }, direction: { type: ['string', 'null'] } } },
            sensors: { type: 'object', additionalProperties: { type: 'number' }, description: 'Raw sensor readings by name.' },
          },
          required: ['kind', 'temperature'],
        },
        {
          type: 'object',
          properties: { kind: { const: 'unavailable' }, reason: { type: 'string' } },
          required: ['kind', 'reason'],
        },
      ],
    },
  },
  {
    name: 'search',
    description: 'Search the web. Returns whatever the engine returns.',
    inputSchema: {
      type: 'object',
      properties: {
        q: { type: 'string' },
        'content-type': { type: 'string', description: 'MIME type filter.' },
        from: { type: 'string', format: 'date', description: 'Oldest date.' },
      },
      required: ['q'],
    },
  },
];
