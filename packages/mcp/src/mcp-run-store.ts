import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { foreignErrorMessage, foreignText, InvalidSettingsError } from '@sluice/code-runtime';
import { createPGliteRunStore, createPostgresRunStore, type RunStore } from '@sluice/run-store';

/** The config setting every message about the store names. */
const setting = 'sluice.durable.store';
/** The file the embedded store keeps in its directory, naming the process that holds it (`createPGliteRunStore`). */
const lockFileName = 'sluice-run-store.lock';
/** A run id no run has: reading it opens the store (connect and migrate) and changes nothing. */
const probeRunId = 'sluice_mcp_store_check';

/** Whether `sluice.durable.store` is a PostgreSQL URL rather than a directory for the embedded store. */
export function isPostgresUrl(where: string): boolean {
  return /^postgres(ql)?:\/\//.test(where);
}

/** The run store `sluice.durable.store` names; nothing is opened until the first call. */
export function openRunStore(where: string): RunStore {
  return isPostgresUrl(where)
    ? createPostgresRunStore({ connectionString: where })
    : createPGliteRunStore({ dataDir: where });
}

/** How the store answered a check: ready, held by another live process (embedded store only), or failed. */
type StoreCheck = { readonly state: 'ready' } | { readonly state: 'busy'; readonly holder: number } | StoreFailed;
type StoreFailed = { readonly state: 'failed'; readonly reason: string };

/**
 * The MCP server's run store behind a check: at start-up it is opened (connected and migrated) so a
 * bad `sluice.durable.store` stops the server naming the setting, and before each durable call it
 * must answer, so a store another Sluice process holds is a tool result saying so, not a protocol
 * error. Messages for the operator name the store (a URL without its password); the model's never do.
 */
export class RunStoreGate {
  readonly store: RunStore;
  readonly #where: string;
  readonly #log: (line: string) => void;

  constructor(where: string, log: (line: string) => void) {
    this.#where = where;
    this.#log = log;
    this.store = openRunStore(where);
  }

  /**
   * Opens the store within `timeoutMs`. A store another live Sluice process holds is a warning
   * through `log` (the server still starts, and answers durable calls that the store is busy until
   * it is free); any other failure throws {@link InvalidSettingsError} naming `sluice.durable.store`.
   */
  async checkAtStart(timeoutMs: number): Promise<void> {
    const check = await this.#check(timeoutMs);
    if (check.state === 'ready') return;
    if (check.state === 'busy') {
      this.#log(this.#busyLine(check.holder, 'run_code and resume_run answer that the store is busy until it is free'));
      return;
    }
    throw new InvalidSettingsError({ message: this.#failedLine(check), setting });
  }

  /**
   * Checks the store before a durable call of `tool`: `undefined` when it answers, otherwise the
   * text for the model (why nothing ran, and what to do), after a line on `log` for the operator.
   */
  async refusal(tool: string, timeoutMs: number): Promise<string | undefined> {
    const check = await this.#check(timeoutMs);
    if (check.state === 'ready') return undefined;
    if (check.state === 'busy') {
      this.#log(this.#busyLine(check.holder, `${tool} was refused`));
      return `[${tool}] not run: the durable run store is in use by another Sluice process (another window or session may have the same settings open), so nothing ran. Try again later; if it stays busy, tell the user that another Sluice server holds the run store.\n`;
    }
    this.#log(`${this.#failedLine(check)} ${tool} was refused.`);
    return `[${tool}] not run: the durable run store cannot be reached right now, so nothing ran. Try again later; if it keeps failing, tell the user that Sluice's run store is unavailable (the server's log says why).\n`;
  }

  async #check(timeoutMs: number): Promise<StoreCheck> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<StoreFailed>((resolve) => {
      timer = setTimeout(
        () => resolve({ state: 'failed', reason: `it did not answer within ${timeoutMs} ms` }),
        timeoutMs,
      );
    });
    const opened = this.store.getRun(probeRunId).then(
      (): StoreCheck => ({ state: 'ready' }),
      (error: unknown): StoreCheck => {
        const holder = this.#holder();
        return holder === undefined
          ? { state: 'failed', reason: this.#hidePassword(reasonOf(error)) }
          : { state: 'busy', holder };
      },
    );
    try {
      return await Promise.race([opened, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The live process other than this one that the embedded store's lock file names, if any. */
  #holder(): number | undefined {
    if (isPostgresUrl(this.#where)) return undefined;
    let text: string;
    try {
      text = readFileSync(join(this.#where, lockFileName), 'utf8');
    } catch {
      return undefined;
    }
    const pid = Number.parseInt(text, 10);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
    try {
      process.kill(pid, 0);
      return pid;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
    }
  }

  #busyLine(holder: number, consequence: string): string {
    return `${setting}: the run store directory ${this.#where} is in use by another Sluice process (pid ${holder}), so ${consequence}. The embedded store takes one process at a time: give each Sluice server its own store directory, or set ${setting} to a postgres:// URL to share runs between several processes.`;
  }

  #failedLine(check: StoreFailed): string {
    if (!isPostgresUrl(this.#where)) {
      return `${setting}: could not open the run store directory ${this.#where}: ${check.reason}. Set ${setting} to a directory this user can create and write (a relative path is read from the config file's folder), or to a postgres:// URL.`;
    }
    return `${setting}: could not open the run store ${this.#hidePassword(this.#where)}: ${check.reason}. Check that PostgreSQL runs there and accepts the user, password and database in the URL.`;
  }

  /** `text` with the URL's password, as written or percent-decoded, replaced by `***`. */
  #hidePassword(text: string): string {
    if (!isPostgresUrl(this.#where)) return text;
    let password = '';
    try {
      password = new URL(this.#where).password;
    } catch {
      password = /^[^:]+:\/\/[^:@/]*:([^@/]*)@/.exec(this.#where)?.[1] ?? '';
    }
    if (password === '') return text;
    let decoded = password;
    try {
      decoded = decodeURIComponent(password);
    } catch {}
    return text.split(password).join('***').split(decoded).join('***');
  }
}

/** A failure's message; for an `AggregateError` without one (a refused dual-stack connect), its errors' messages. */
function reasonOf(error: unknown): string {
  if (foreignErrorMessage(error) === undefined && error instanceof AggregateError && Array.isArray(error.errors)) {
    const inner = error.errors.map((item: unknown) => foreignText(item, 512));
    if (inner.length > 0) return inner.join('; ');
  }
  return foreignText(error, 2048).trim().replace(/\.$/, '');
}
