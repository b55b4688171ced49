import { failureKinds } from '@sluice/code-runtime';
import type { JournalEntry, PauseRecord, RunRecord } from '@sluice/run-store';
import { type HtmlValue, html, type SafeHtml } from './console-html.js';

/** The statuses the run list filters by. */
export const statusFilters: readonly { value: string; label: string }[] = [
  { value: '', label: 'Any status' },
  { value: 'running', label: 'Running' },
  { value: 'paused', label: 'Paused (waiting for a decision)' },
  { value: 'finished', label: 'Finished (any outcome)' },
  { value: 'succeeded', label: 'Succeeded' },
  { value: 'failed', label: 'Failed (any kind)' },
  ...[...failureKinds, 'diverged'].map((kind) => ({ value: `failed:${kind}`, label: `Failed: ${kind}` })),
];

/** The run list's filters, as the query string gives them. */
export interface ListFilters {
  /** A value of `statusFilters`. */
  readonly status?: string;
  /** Only this principal's runs (operators only). */
  readonly principal?: string;
  /** Created at or after, before: ms since the epoch. */
  readonly from?: number;
  readonly to?: number;
  /** Paging: runs after this one. */
  readonly after?: { readonly createdAt: number; readonly runId: string };
}

/** One run of the list: its record, its principal, and the call it waits on. */
export interface ListItem {
  readonly run: RunRecord;
  readonly principal: string | undefined;
  readonly waiting: PauseRecord | undefined;
}

/** The most characters of a JSON value or a log a page shows of one item. */
const shownChars = 64 * 1024;
/**
 * The most characters of arguments and results a run's timeline shows in all: a program may make
 * a thousand calls with large arguments, and its page must stay a page.
 */
export const timelineChars = 1024 * 1024;

export function signInPage(base: string, problem?: string): SafeHtml {
  return html`<h1>Sign in to the Sluice console</h1>
${problem === undefined ? undefined : html`<p class="notice" role="alert">${problem}</p>`}
<form method="post" action="${base}/login">
<p><label for="token">Access token</label><br>
<input id="token" name="token" type="password" autocomplete="off" required size="40"></p>
<p>The bearer token you use for <code>/mcp</code>: a static token or an OAuth access token. It is checked once; the console then keeps a session cookie for up to an hour.</p>
<p><button type="submit">Sign in</button></p>
</form>`;
}

/** The state of a run in words and as a class: running, paused, succeeded, failed (kind), diverged. */
export function runState(run: RunRecord): { label: string; tone: string } {
  if (run.status !== 'finished') return { label: run.status, tone: run.status };
  const kind = run.outcomeKind;
  if (kind === 'ok') return { label: 'succeeded', tone: 'succeeded' };
  if (kind === undefined) return { label: 'finished', tone: 'finished' };
  return { label: kind === 'diverged' ? 'diverged' : `failed: ${kind}`, tone: 'failed' };
}

function when(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
}

function firstLine(program: string): string {
  const line = program.split('\n').find((text) => text.trim() !== '') ?? '';
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

/** The list's items (the part live updates replace). */
export function runListItems(base: string, items: readonly ListItem[], operator: boolean): SafeHtml {
  if (items.length === 0) return html`<li>No runs match.</li>`;
  return html`${items.map(({ run, principal, waiting }) => {
    const state = runState(run);
    return html`<li><a href="${base}/runs/${encodeURIComponent(run.start.runId)}">${run.start.runId}</a>
<span class="status status-${state.tone}">${state.label}</span>${waiting === undefined ? undefined : html` · waits for a decision on <strong>${waiting.tool}</strong>`}
<div class="meta">started ${when(run.createdAt)}${operator && principal !== undefined ? html` · principal <strong>${principal}</strong>` : undefined} · ${run.start.language}</div>
<div><code>${firstLine(run.start.program)}</code></div></li>
`;
  })}`;
}

function localTime(ms: number | undefined): string {
  return ms === undefined ? '' : new Date(ms).toISOString().slice(0, 16);
}

export function runListPage(input: {
  base: string;
  filters: ListFilters;
  items: readonly ListItem[];
  operator: boolean;
  more: RunRecord | undefined;
  /** The digest of the items shown, for live updates. */
  seen: string;
}): SafeHtml {
  const { base, filters, items, operator, more } = input;
  const query = new URLSearchParams();
  if (filters.status !== undefined) query.set('status', filters.status);
  if (filters.principal !== undefined) query.set('principal', filters.principal);
  if (filters.from !== undefined) query.set('from', localTime(filters.from));
  if (filters.to !== undefined) query.set('to', localTime(filters.to));
  const next = new URLSearchParams(query);
  const live = new URLSearchParams(query);
  live.set('seen', input.seen);
  const events = `${base}/events?${live.toString()}`;
  if (more !== undefined) next.set('after', `${more.createdAt}:${more.start.runId}`);
  return html`<h1>Runs</h1>
<form class="filters" method="get" action="${base}/" role="search" aria-label="Filter runs">
<label>Status
<select name="status">${statusFilters.map(
    (option) =>
      html`<option value="${option.value}"${(filters.status ?? '') === option.value ? html` selected` : undefined}>${option.label}</option>`,
  )}</select></label>
${operator ? html`<label>Principal <input name="principal" value="${filters.principal ?? ''}" placeholder="every principal"></label>` : undefined}
<label>From (UTC) <input type="datetime-local" name="from" value="${localTime(filters.from)}"></label>
<label>To (UTC) <input type="datetime-local" name="to" value="${localTime(filters.to)}"></label>
<button type="submit">Filter</button>
</form>
<p class="visually-hidden" aria-live="polite">${filters.after === undefined ? 'This list updates as runs progress.' : ''}</p>
<ul class="runs" id="runs" data-events="${events}">
${runListItems(base, items, operator)}
</ul>
<nav aria-label="Pages">${filters.after === undefined ? undefined : html`<a href="${base}/${query.size === 0 ? '' : `?${query}`}">Newest runs</a> `}${more === undefined ? undefined : html`<a href="${base}/?${next.toString()}">Older runs</a>`}</nav>`;
}

/** A JSON value as indented text, cut to `most` characters (default what a page shows of one item). */
function json(value: unknown, most = shownChars): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? 'undefined';
  } catch {
    text = String(value);
  }
  return text.length > most ? `${text.slice(0, most)}\n… (${text.length - most} more characters)` : text;
}

type Loose = Record<string, unknown>;
function object(value: unknown): Loose | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Loose) : undefined;
}
function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

const notices: Record<string, string> = {
  answered: 'Decision recorded: the client waiting on this call was answered, and the run continues there.',
  continuing: 'Decision recorded: the run continues on this server.',
  recorded: 'Decision recorded.',
  already: 'This call was already decided: the first decision stands, shown below.',
  expired: 'This pause expired before a decision: it can no longer be decided.',
};

export interface RunPageInput {
  readonly base: string;
  readonly run: RunRecord;
  readonly journal: readonly JournalEntry[];
  readonly pauses: readonly PauseRecord[];
  /** The digest of the run's state shown, for live updates. */
  readonly seen: string;
  readonly principal: string | undefined;
  readonly csrf: string;
  readonly notice: string | undefined;
  /** Whether this console continues a run after a decision (`sluice serve`). */
  readonly continues: boolean;
  readonly resumeHint?: string;
  readonly budgets?: Readonly<Record<string, string>>;
}

export function runPage(input: RunPageInput): SafeHtml {
  const { base, run, journal, principal } = input;
  const runId = run.start.runId;
  const state = runState(run);
  const outcome = object(run.outcome);
  const result = object(outcome?.result);
  const failure = object(result?.failure);
  const failedLine = numberOf(failure?.line);
  const notice =
    input.notice === undefined || !Object.hasOwn(notices, input.notice) ? undefined : notices[input.notice];
  const lines = run.start.program.split('\n');
  return html`<div id="run" data-events="${base}/runs/${encodeURIComponent(runId)}/events?seen=${input.seen}">
<p><a href="${base}/">← All runs</a></p>
<h1>Run ${runId}</h1>
${notice === undefined ? undefined : html`<p class="notice" role="status">${notice}</p>`}
<dl>
<dt>Status</dt><dd class="status status-${state.tone}">${state.label}</dd>
${principal === undefined ? undefined : html`<dt>Principal</dt><dd>${principal}</dd>`}
<dt>Started</dt><dd>${when(run.createdAt)}</dd>
<dt>Last change</dt><dd>${when(run.updatedAt)}</dd>
<dt>Language</dt><dd>${run.start.language}</dd>
</dl>
${pausesSection(input)}
${failure === undefined ? undefined : failureSection(failure, failedLine)}
${outcome?.status === 'diverged' ? html`<h2>Diverged</h2><pre>${String(outcome.message ?? '')}</pre>` : undefined}
${result?.ok === true && 'value' in result ? html`<h2>Value</h2><pre>${json(result.value)}</pre>` : undefined}
<h2 id="program">Program</h2>
<ol class="program" aria-label="The program, by line">${lines.map(
    (line, index) =>
      html`<li id="L${index + 1}"${index + 1 === failedLine ? html` class="failed" aria-label="line ${index + 1}, where the run failed"` : undefined}>${line}</li>`,
  )}</ol>
${logsSection(result, run)}
${timeline(journal, run, outcome)}
${usageSection(result, input.budgets)}
</div>`;
}

function pausesSection(input: RunPageInput): HtmlValue {
  const { base, run, pauses, csrf } = input;
  if (pauses.length === 0) return undefined;
  const runId = run.start.runId;
  return html`<h2>Approvals</h2>${pauses.map((pause) => {
    const decision = pause.decision;
    const expired = decision === undefined && pause.expiresAt < Date.now();
    const id = `pause-${pause.seq}`;
    let body: HtmlValue;
    if (decision !== undefined) {
      const by = decision.by === undefined ? '' : ` by ${decision.by}`;
      body = html`<p><strong>${decision.decision === 'allow' ? `Approved${by}` : `Denied${by}`}</strong>${decision.decision === 'deny' && decision.reason !== undefined ? html`: ${decision.reason}` : undefined}</p>
${run.status === 'paused' && !input.continues && input.resumeHint !== undefined ? html`<p>The run continues when a host with its tools resumes it:</p><pre>${input.resumeHint}</pre>` : undefined}`;
    } else if (expired) {
      body = html`<p>Expired at ${when(pause.expiresAt)} without a decision.</p>`;
    } else {
      body = html`<form method="post" action="${base}/runs/${encodeURIComponent(runId)}/pauses/${pause.seq}">
<input type="hidden" name="csrf" value="${csrf}">
<p><label for="${id}-reason">Reason for a denial (optional, the program reads it)</label><br>
<textarea id="${id}-reason" name="reason" rows="2" cols="40" maxlength="2000"></textarea></p>
<p><button type="submit" name="decision" value="allow">Approve</button>
<button class="deny" type="submit" name="decision" value="deny">Deny</button></p>
<p>Expires ${when(pause.expiresAt)}.</p>
</form>`;
    }
    return html`<section class="pause" aria-labelledby="${id}">
<h3 id="${id}">Call ${pause.seq}: <code>${pause.tool}</code></h3>
<p>Why it waits: ${pause.reason}</p>
<p>Arguments:</p><pre>${json(pause.input)}</pre>
${body}
</section>`;
  })}`;
}

function failureSection(failure: Loose, line: number | undefined): SafeHtml {
  const limits = (['limitMs', 'limitBytes', 'budget'] as const).filter((key) => failure[key] !== undefined);
  return html`<h2>Failure</h2>
<p><strong>${String(failure.kind ?? 'unknown')}</strong>${typeof failure.name === 'string' ? html` (${failure.name})` : undefined}${line === undefined ? undefined : html` at <a href="#L${line}">line ${line}</a>`}</p>
<pre>${String(failure.message ?? '')}</pre>
${limits.length === 0 ? undefined : html`<p>${limits.map((key) => html`${key}: ${String(failure[key])} `)}</p>`}
${typeof failure.stack === 'string' ? html`<details><summary>Stack</summary><pre>${failure.stack}</pre></details>` : undefined}`;
}

function logsSection(result: Loose | undefined, run: RunRecord): SafeHtml {
  const logs = Array.isArray(result?.logs)
    ? (result.logs as unknown[]).map(object).filter((entry) => entry !== undefined)
    : undefined;
  if (logs === undefined) {
    return html`<h2>Logs</h2><p>${run.status === 'finished' ? 'This run kept no logs.' : 'Logs are kept when the run finishes.'}</p>`;
  }
  if (logs.length === 0) return html`<h2>Logs</h2><p>The program logged nothing.</p>`;
  const text = logs.map((entry) => `[${String(entry.level ?? 'log')}] ${String(entry.text ?? '')}`).join('\n');
  return html`<h2>Logs</h2><pre>${text.length > shownChars ? `${text.slice(0, shownChars)}\n…` : text}</pre>${result?.logsTruncated === true ? html`<p>The log budget cut the logs.</p>` : undefined}`;
}

function timeline(journal: readonly JournalEntry[], run: RunRecord, outcome: Loose | undefined): SafeHtml {
  if (journal.length === 0) return html`<h2>Host calls</h2><p>No host calls.</p>`;
  // The durable layer records how many calls its last execution answered from the journal: calls 1 to that.
  const replayed = numberOf(object(outcome?.journal)?.replayed);
  // Calls are shown until their arguments and results fill timelineChars; the rest are counted.
  let left = timelineChars;
  const shownText = (text: string) => {
    left -= text.length;
    return text;
  };
  const items: SafeHtml[] = [];
  for (const entry of journal) {
    if (left <= 0) break;
    const took = entry.outcomeAt === undefined ? undefined : entry.outcomeAt - entry.intentAt;
    const argumentsText = shownText(json(entry.intent.positional ?? entry.intent.input, Math.min(shownChars, left)));
    const outcomeText =
      entry.outcome === undefined
        ? html`<p>No outcome: in flight, or its host stopped before it settled.</p>`
        : entry.outcome.ok
          ? html`<p>Returned:</p><pre>${shownText(json(entry.outcome.value, Math.min(shownChars, left)))}</pre>`
          : html`<p>Failed:</p><pre>${shownText(entry.outcome.message.slice(0, Math.min(shownChars, left)))}</pre>`;
    items.push(html`<li><h3>${entry.seq}. <code>${entry.intent.namespace}.${entry.intent.name}</code></h3>
<p>At +${entry.intentAt - run.createdAt} ms${took === undefined ? undefined : html`, took ${took} ms`}${replayed === undefined ? undefined : entry.seq <= replayed ? ', replayed from the journal' : ', ran'}.</p>
<p>Arguments:</p><pre>${argumentsText}</pre>
${outcomeText}</li>`);
  }
  const hidden = journal.length - items.length;
  return html`<h2>Host calls</h2>
${replayed === undefined ? undefined : html`<p>${replayed === 0 ? 'The last execution made every call itself.' : `The last execution answered calls 1 to ${replayed} from the journal (replayed) and made the rest.`}</p>`}
<ol class="calls">${items}</ol>
${hidden === 0 ? undefined : html`<p>${hidden} more calls are not shown: this page shows ${timelineChars} characters of arguments and results.</p>`}`;
}

function usageSection(result: Loose | undefined, budgets: Readonly<Record<string, string>> | undefined): SafeHtml {
  const usage = object(result?.usage);
  const rows: [string, string][] = [];
  const add = (label: string, value: unknown, unit: string) => {
    const number = numberOf(value);
    if (number !== undefined) rows.push([label, `${Math.round(number * 1000) / 1000} ${unit}`.trim()]);
  };
  add('Wall time', usage?.wallMs, 'ms');
  add('Queued', usage?.queuedMs, 'ms');
  add('CPU time', usage?.cpuMs, 'ms');
  add('Peak memory', usage?.peakMemoryBytes, 'bytes');
  add('Host calls', usage?.hostCalls, '');
  add('Output', usage?.outputBytes, 'bytes');
  const budgetRows = Object.entries(budgets ?? {});
  return html`<h2>Usage and budgets</h2>
${rows.length === 0 ? html`<p>Usage is kept when the run finishes.</p>` : html`<table><caption class="visually-hidden">Usage</caption><tbody>${rows.map(([label, value]) => html`<tr><th scope="row">${label}</th><td>${value}</td></tr>`)}</tbody></table>`}
${budgetRows.length === 0 ? html`<p>This console does not know the budgets runs were given.</p>` : html`<table><caption>Budgets of this server</caption><tbody>${budgetRows.map(([label, value]) => html`<tr><th scope="row">${label}</th><td>${value}</td></tr>`)}</tbody></table>`}`;
}
