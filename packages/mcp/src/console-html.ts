import escapeHtml from 'escape-html';

/**
 * HTML the console wrote itself: {@link html} inserts it as it is. Everything else inserted is
 * escaped (by `escape-html`), so text from the store — programs, logs, arguments, reasons, all
 * written by a model or a tool — can never become markup.
 */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** What {@link html} inserts: text (escaped), numbers, markup from `html`, lists of them; `undefined`, `null` and `false` insert nothing. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** A template of the console's markup: every inserted value is escaped unless it is {@link SafeHtml}. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let text = strings[0] ?? '';
  for (let index = 0; index < values.length; index += 1) text += render(values[index]) + (strings[index + 1] ?? '');
  return new SafeHtml(text);
}

/** The console's style sheet: readable at phone width, no horizontal scroll for the run list. */
const style = `
:root { color-scheme: light dark; --muted: #6b7280; --line: #d1d5db; --accent: #1d4ed8; --bad: #b91c1c; --good: #15803d; --wait: #a16207; }
* { box-sizing: border-box; }
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; padding: 0 1rem 2rem; max-width: 72rem; margin-inline: auto; }
header { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: baseline; border-bottom: 1px solid var(--line); padding: .75rem 0; margin-bottom: 1rem; }
header a { font-weight: 600; }
header form { margin-left: auto; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
h1 { font-size: 1.4rem; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin-top: 2rem; }
.filters { display: flex; flex-wrap: wrap; gap: .75rem; align-items: end; margin-bottom: 1rem; }
.filters label { display: flex; flex-direction: column; font-size: .9rem; }
input, select, textarea, button { font: inherit; }
input, select, textarea { padding: .35rem .5rem; border: 1px solid var(--line); border-radius: .3rem; max-width: 100%; }
button { padding: .45rem 1rem; border-radius: .3rem; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.deny { background: var(--bad); border-color: var(--bad); }
button.plain { background: transparent; color: var(--accent); }
ul.runs { list-style: none; padding: 0; margin: 0; }
ul.runs li { border: 1px solid var(--line); border-radius: .4rem; padding: .6rem .8rem; margin-bottom: .5rem; overflow-wrap: anywhere; }
ul.runs .meta { color: var(--muted); font-size: .9rem; }
.status { font-weight: 600; }
.status-paused { color: var(--wait); } .status-failed { color: var(--bad); } .status-succeeded { color: var(--good); }
ol.program { font: 14px/1.45 ui-monospace, monospace; padding-left: 3.5rem; overflow-x: auto; border: 1px solid var(--line); border-radius: .4rem; }
ol.program li { white-space: pre; }
ol.program li.failed { background: rgba(185, 28, 28, .15); }
pre { white-space: pre-wrap; overflow-wrap: anywhere; font: 14px/1.45 ui-monospace, monospace; background: rgba(127, 127, 127, .08); padding: .5rem; border-radius: .3rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .35rem .5rem; border-bottom: 1px solid var(--line); }
.calls li { border-left: 3px solid var(--line); padding: .25rem .75rem; margin-bottom: .75rem; list-style: none; }
.calls { padding: 0; }
.notice { border: 1px solid var(--accent); border-radius: .4rem; padding: .5rem .8rem; }
.pause { border: 2px solid var(--wait); border-radius: .4rem; padding: .5rem 1rem; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: .5rem; background: Canvas; padding: .25rem .5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
@media (max-width: 40rem) { body { padding: 0 .6rem 2rem; } th, td { display: block; border: 0; padding: .1rem 0; } tr { display: block; border-bottom: 1px solid var(--line); padding: .4rem 0; } }
`;

/** What every page needs: its title, the CSP nonce of its inline style and script, and who is signed in. */
export interface PageFrame {
  readonly title: string;
  readonly nonce: string;
  /** The console's base path (`/console`). */
  readonly base: string;
  /** The signed-in principal, and the CSRF token of the sign-out form; absent on the sign-in page. */
  readonly principal?: string;
  readonly csrf?: string;
  /** Whether signing out makes sense (not without authentication). */
  readonly canSignOut?: boolean;
  /** An inline script (run with the nonce), for live updates. */
  readonly script?: string;
}

/** A whole page: the frame around `body`. */
export function page(frame: PageFrame, body: SafeHtml): string {
  const signOut =
    frame.canSignOut === true && frame.csrf !== undefined
      ? html`<form method="post" action="${frame.base}/logout"><input type="hidden" name="csrf" value="${frame.csrf}"><button class="plain" type="submit">Sign out</button></form>`
      : undefined;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · Sluice console</title>
<style nonce="${frame.nonce}">${new SafeHtml(style)}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
<a href="${frame.base}/">Sluice console</a>
${frame.principal === undefined ? undefined : html`<span>Signed in as <strong>${frame.principal}</strong></span>`}
${signOut}
</header>
<main id="main">
${body}
</main>
${frame.script === undefined ? undefined : html`<script nonce="${frame.nonce}">${new SafeHtml(frame.script)}</script>`}
</body>
</html>
`.text;
}
