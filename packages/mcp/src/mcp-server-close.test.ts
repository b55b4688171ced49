import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { labServer } from './__fixtures__/sluice-process.js';
import { parseMcpConfig } from './mcp-config.js';
import { createSluiceMcpServer } from './mcp-server.js';

describe('createSluiceMcpServer close', () => {
  it('logs no catalog failure when it is closed while the catalog is still being built', async () => {
    const config = await parseMcpConfig(
      { mcpServers: { lab: labServer() }, sluice: { policy: { default: 'allow', rules: [] } } },
      '.',
    );
    const lines: string[] = [];
    const sluice = createSluiceMcpServer(config, { log: (line) => lines.push(line) });
    const [, serverSide] = InMemoryTransport.createLinkedPair();
    await sluice.connect(serverSide);
    await sluice.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines.filter((line) => line.includes('catalog'))).toEqual([]);
  });
});
