import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RunStore } from '@sluice/run-store';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectClient, freePort, type ServedSluice, serveInProcess } from './__fixtures__/serve.js';
import { labServer, resultText } from './__fixtures__/sluice-process.js';
import { describeInBrowser, launchChromium } from './console-browser.test-helper.js';
import { hashServeToken } from './mcp-serve-config.js';

// The console in a real browser (Debian's Chromium, driven by playwright-core) against a real
// `sluice serve` and PGlite store: a person signs in, finds a paused run, approves it by clicking,
// and sees its outcome arrive; another principal cannot see it; the pages fit a phone's width and
// break no rule of their CSP. With SLUICE_CONSOLE_SCREENSHOTS=<directory> it saves the screenshots
// the docs show (docs/images/console-*.png).

const tokens = { alice: 'alice-browser-token-0123456789', bob: 'bob-browser-token-0123456789' };
const screenshots = process.env.SLUICE_CONSOLE_SCREENSHOTS;

describeInBrowser('the console in a browser', (executable) => {
  let directory: string;
  let served: ServedSluice;
  let origin: string;
  let alice: Client;
  let browser: Browser;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'sluice-console-browser-'));
    served = await serveInProcess(
      {
        mcpServers: { lab: labServer() },
        sluice: {
          runtime: { provider: 'quickjs', wallTimeMs: 20_000 },
          policy: {
            default: 'allow',
            rules: [{ tool: 'lab__echo', effect: 'ask', description: 'an echo needs a person' }],
          },
          durable: { store: join(directory, 'runs') },
          serve: {
            port: await freePort(),
            auth: {
              tokens: [
                { principal: 'alice', sha256: hashServeToken(tokens.alice) },
                { principal: 'bob', sha256: hashServeToken(tokens.bob) },
              ],
            },
          },
        },
      },
      directory,
    );
    origin = new URL(served.url).origin;
    alice = await connectClient(served.url, tokens.alice);
    browser = await launchChromium(executable);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await alice?.close();
    await served?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const store = (): RunStore => served.server.service.store as RunStore;
  /** What each page's console said about its Content Security Policy: nothing, as the pages' own style and script carry its nonce. */
  const cspViolations = new WeakMap<Page, string[]>();
  async function closePage(page: Page): Promise<void> {
    await page.context().close();
    expect(cspViolations.get(page)).toEqual([]);
  }

  /** A fresh browser session signed in with `token`, at the run list; it fails the test on any CSP violation. */
  async function signedIn(token: string, viewport = { width: 1100, height: 900 }): Promise<Page> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    cspViolations.set(page, violations);
    await page.goto(`${origin}/console/`);
    expect(new URL(page.url()).pathname).toBe('/console/login');
    await page.getByLabel('Access token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${origin}/console/`);
    return page;
  }

  async function pausedRun(text: string): Promise<string> {
    const result = await alice.callTool({
      name: 'run_code',
      arguments: {
        code: `console.log('asking to echo');\nconst said = await lab.echo({ text: ${JSON.stringify(text)} });\nreturn said;`,
      },
    });
    const runId = /The run id is (durable_[\w-]+)/.exec(resultText(result))?.[1];
    if (runId === undefined) throw new Error(resultText(result));
    return runId;
  }

  it('approves a paused run by clicking, and its outcome appears on the page', async () => {
    const runId = await pausedRun('approved in the browser');
    await alice.callTool({ name: 'run_code', arguments: { code: 'const a = 1;\nthrow new Error("no such issue");' } });
    const page = await signedIn(tokens.alice);
    try {
      await expect.poll(() => page.getByRole('link', { name: runId }).count()).toBe(1);
      if (screenshots !== undefined)
        await page.screenshot({ path: join(screenshots, 'console-runs.png'), fullPage: true });
      await page.getByRole('link', { name: runId }).click();
      await page.waitForURL(`${origin}/console/runs/${runId}`);
      const approve = page.getByRole('button', { name: 'Approve' });
      await expect.poll(() => approve.isVisible()).toBe(true);
      await page.getByLabel(/Reason for a denial/).focus();
      if (screenshots !== undefined)
        await page.screenshot({ path: join(screenshots, 'console-approval.png'), fullPage: true });
      // By keyboard: from the reason field, Tab reaches Approve, and Enter presses it.
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement?.textContent')).toBe('Approve');
      await page.keyboard.press('Enter');
      await page.waitForURL(/notice=continuing/);
      // The run finishes in the background; the page reloads itself when the store says so.
      await expect.poll(() => page.locator('dd.status').textContent(), { timeout: 30_000 }).toBe('succeeded');
      expect(await page.getByText('Approved by alice').count()).toBe(1);
      expect(await page.locator('pre').filter({ hasText: 'approved in the browser' }).count()).toBeGreaterThan(0);
      expect((await store().getRun(runId))?.outcomeKind).toBe('ok');
      if (screenshots !== undefined)
        await page.screenshot({ path: join(screenshots, 'console-run.png'), fullPage: true });
    } finally {
      await closePage(page);
    }
  }, 90_000);

  it("shows a second principal none of the first's runs", async () => {
    const runId = await pausedRun('only for alice');
    const page = await signedIn(tokens.bob);
    try {
      expect(await page.getByText(runId).count()).toBe(0);
      const response = await page.goto(`${origin}/console/runs/${runId}`);
      expect(response?.status()).toBe(404);
      expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    } finally {
      await closePage(page);
    }
  }, 60_000);

  it('fits the run list and a run into a phone’s width, with no horizontal scroll', async () => {
    const runId = await pausedRun(`a long argument ${'x'.repeat(300)}`);
    const page = await signedIn(tokens.alice, { width: 360, height: 740 });
    try {
      for (const path of ['/console/', `/console/runs/${runId}`]) {
        await page.goto(`${origin}${path}`);
        const overflow = await page.evaluate<number>(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        expect(overflow, path).toBeLessThanOrEqual(0);
      }
    } finally {
      await closePage(page);
    }
  }, 60_000);
});
