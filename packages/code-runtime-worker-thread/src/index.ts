export {
  createWorkerThreadCodeRuntime,
  describeWorkerThreadIsolation,
  WorkerThreadCodeRuntime,
} from './worker-thread-code-runtime.js';
export {
  type ResolvedWorkerThreadSettings,
  resolveWorkerThreadSettings,
  type WorkerThreadCodeRuntimeSettings,
  workerThreadDefaults,
} from './worker-thread-settings.js';
