import { foreignText } from '@sluice/code-runtime';
import { createPolicy, deriveBindings, type JsonSchema, type Tool, toolBindingName } from '@sluice/permissions';
import type { UpstreamServer } from './upstream-server.js';

/**
 * The name policies match an upstream tool by, and the program calls it by after mapping:
 * `github__create_issue` is `github.create_issue` in the program.
 */
export function upstreamToolName(server: string, tool: string): string {
  return `${server}__${tool}`;
}

/**
 * The tools of every ready upstream as `@sluice/permissions` tools, each calling its server. A tool
 * whose name cannot become a binding is left out and reported through `warn`, so one odd tool does
 * not take its whole server down. Two tools that map to one binding (`get-x` and `get_x`) both stay:
 * `toolBindingNames` gives the second a suffix (`get_x_2`) that the declarations show and explain.
 */
export function upstreamTools(servers: readonly UpstreamServer[], warn: (line: string) => void): Tool[] {
  const tools: Tool[] = [];
  const seen = new Set<string>();
  for (const server of servers) {
    for (const upstream of server.tools) {
      const name = upstreamToolName(server.name, upstream.name);
      if (seen.has(name)) {
        warn(`[${server.name}] tool ${JSON.stringify(upstream.name)} is listed twice; the second is left out`);
        continue;
      }
      try {
        toolBindingName(name);
      } catch (error) {
        warn(`[${server.name}] tool ${JSON.stringify(upstream.name)} is left out: ${foreignText(error, 1024)}`);
        continue;
      }
      const toolName = upstream.name;
      const tool = usable(
        {
          name,
          description: upstream.description ?? upstream.title ?? '',
          inputSchema: upstream.inputSchema as JsonSchema,
          ...(upstream.outputSchema === undefined ? {} : { outputSchema: upstream.outputSchema as JsonSchema }),
          execute: (input, context) =>
            server.call(toolName, input, context.signal, { runId: context.runId, callId: context.callId }),
        },
        (problem) => warn(`[${server.name}] tool ${JSON.stringify(toolName)} is left out: ${problem}`),
      );
      if (tool === undefined) continue;
      seen.add(name);
      tools.push(tool);
    }
  }
  return tools;
}

const probePolicy = createPolicy({ default: 'allow', rules: [] });

/**
 * The tool as given when its schemas compile; otherwise with their `$schema` dropped (servers
 * still send draft-04 and other dialects the validator does not know, and the keywords they use
 * read the same in 2020-12); `undefined` when even that fails.
 */
function usable(tool: Tool, leftOut: (problem: string) => void): Tool | undefined {
  const compiles = (candidate: Tool): string | undefined => {
    try {
      deriveBindings([candidate], probePolicy);
      return undefined;
    } catch (error) {
      return foreignText(error, 1024);
    }
  };
  if (compiles(tool) === undefined) return tool;
  const { $schema: _input, ...inputSchema } = tool.inputSchema;
  const relaxed: Tool = { ...tool, inputSchema };
  if (tool.outputSchema !== undefined) {
    const { $schema: _output, ...outputSchema } = tool.outputSchema;
    Object.assign(relaxed, { outputSchema });
  }
  const problem = compiles(relaxed);
  if (problem === undefined) return relaxed;
  leftOut(problem);
  return undefined;
}
