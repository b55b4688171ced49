import { describe, expect, it } from 'vitest';
import { blindCatalogueQueries } from './__fixtures__/blind-queries.js';
import { catalogueQueries, largeCatalogue } from './__fixtures__/large-catalogue.js';
import { defaultDeclarationsTokenBudget, generateDeclarations } from './declarations.js';
import { ToolDiscovery } from './tool-discovery.js';

// The measurement issue 14 asked for, kept as a test: the description's tokens against the budget
// for 100 and 500 tools, and how many of 30 written queries find their tool in the top three.
describe.each([100, 500] as const)('a %i-tool catalogue', (size) => {
  const tools = largeCatalogue(size);

  it('has the tools it says', () => {
    expect(tools).toHaveLength(size);
  });

  it.each(['typescript', 'python'] as const)(
    'declares within the default budget in %s, pinned tools in full',
    (language) => {
      const pinned = tools.map((tool) => (tool.name === 'stripe__refund_payment' ? { ...tool, pinned: true } : tool));
      const declarations = generateDeclarations(pinned, { language });
      console.log(
        `${size} tools, ${language}: ${declarations.estimatedTokens} of ${defaultDeclarationsTokenBudget} tokens; ${declarations.inlined.length} in full, ${declarations.summarized.length} summarized, ${declarations.counted.length} counted`,
      );
      expect(declarations.estimatedTokens).toBeLessThanOrEqual(defaultDeclarationsTokenBudget);
      expect(declarations.inlined).toContain('stripe.refund_payment');
      // Fewer in full than the 12-14 of the alphabetical fill (2026-12-02): each namespace's first
      // tool comes before any namespace's tail, so none is left only counted.
      expect(declarations.inlined.length).toBeGreaterThanOrEqual(8);
      const shown = new Set([...declarations.inlined, ...declarations.summarized].map((path) => path.split('.')[0]));
      expect(shown.size).toBe(new Set(declarations.paths.map((path) => path.split('.')[0])).size);
      expect(generateDeclarations([...pinned].reverse(), { language }).text).toBe(declarations.text);
    },
  );

  it('finds the right tool in the top three for at least 27 of 30 written queries', () => {
    const discovery = new ToolDiscovery(tools, 'typescript');
    const misses = catalogueQueries.filter(
      ([query, tool]) => !discovery.search(query, 3).some((hit) => hit.name === tool),
    );
    console.log(`${size} tools: ${30 - misses.length} of 30 queries hit in the top three`, misses);
    expect(catalogueQueries).toHaveLength(30);
    expect(30 - misses.length).toBeGreaterThanOrEqual(27);
  });

  // Thirty more, written by someone who had read neither the ranking code nor any result, from the
  // catalogue alone (blind-queries.ts). The written set above was in view while the ranking was
  // tuned; this one was not, so it is the honest figure. 2026-12-01: 25 of 30 at 100 tools, 24 at
  // 500 — the misses need a synonym ("give money back" for a refund, "trigger" for create, "stop
  // an alert from firing" for mute), which word matching does not know. The floor guards against
  // a ranking change that loses hits; it is not a target.
  it('finds the right tool in the top three for at least 24 of 30 blind queries', () => {
    const discovery = new ToolDiscovery(tools, 'typescript');
    const binding = (tool: string) => tool.replace('__', '.');
    const misses = blindCatalogueQueries.filter(
      ([query, tool]) => !discovery.search(query, 3).some((hit) => hit.name === binding(tool)),
    );
    console.log(`${size} tools: ${30 - misses.length} of 30 blind queries hit in the top three`, misses);
    expect(blindCatalogueQueries).toHaveLength(30);
    expect(30 - misses.length).toBeGreaterThanOrEqual(24);
  });

  it('narrows a search to one namespace', () => {
    const discovery = new ToolDiscovery(tools, 'typescript');
    const hits = discovery.search('create', { namespace: 'jira', limit: 25 });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((hit) => hit.name.startsWith('jira.'))).toBe(true);
  });
});
