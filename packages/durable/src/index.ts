export { type DetachReason, interruptedMessage, type JournalCost } from './durable-journal.js';
export {
  createDurableRuns,
  type DurableDecision,
  type DurableOutcome,
  type DurablePause,
  DurableRunError,
  type DurableRunOptions,
  type DurableRuns,
  type DurableRunsOptions,
  type DurableStart,
  durableVersion,
} from './durable-runs.js';
export { maxStoredKeyLength } from './durable-values.js';
