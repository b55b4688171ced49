export { consoleUsage, runConsoleCommand } from './console-command.js';
export { consoleOperatorScope } from './console-router.js';
export {
  type McpCommandIo,
  type McpCommandOptions,
  maxClientMessageBytes,
  mcpUsage,
  mcpUsageText,
  runMcpCommand,
} from './mcp-command.js';
export {
  type HttpUpstreamConfig,
  loadMcpConfig,
  parseMcpConfig,
  type SluiceMcpConfig,
  type StdioUpstreamConfig,
  type UpstreamRestartPolicy,
  type UpstreamServerConfig,
} from './mcp-config.js';
export { mcpConfigSchemaUrl } from './mcp-config-schema.js';
export { createSluiceHttpServer, type SluiceHttpServer, type SluiceHttpServerOptions } from './mcp-http.js';
export {
  defaultServePort,
  hashServeToken,
  type ServeOAuth,
  type ServeSettings,
  type ServeToken,
} from './mcp-serve-config.js';
export { createSluiceMcpServer, type SluiceMcpServer, type SluiceMcpServerOptions } from './mcp-server.js';
export type { McpCaller } from './mcp-service.js';
export { type ProgressUpdate, RunProgress, type RunProgressOptions } from './run-progress.js';
export { runServeCommand, serveUsage } from './serve-command.js';
export type { UpstreamLogMessage, UpstreamProgress } from './upstream-notices.js';
export { toolResultValue } from './upstream-result.js';
export {
  type UpstreamCallOrigin,
  UpstreamServer,
  type UpstreamServerOptions,
  type UpstreamStatus,
} from './upstream-server.js';
export { upstreamToolName, upstreamTools } from './upstream-tools.js';
