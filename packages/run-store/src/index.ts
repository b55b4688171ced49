export { createPGliteRunStore, type PGliteRunStoreSettings } from './pglite-run-store.js';
export { createPostgresRunStore, type PostgresRunStoreSettings } from './postgres-run-store.js';
export {
  type JournalEntry,
  type JournalIntent,
  type JournalOutcome,
  outcomeKindOf,
  type PauseDecision,
  type PauseRecord,
  type RunLease,
  type RunListQuery,
  type RunRecord,
  type RunStatus,
  type RunStore,
  type StartRecord,
  storedValueLimits,
} from './run-store.js';
export {
  RunStoreConflictError,
  RunStoreError,
  RunStoreExpiredError,
  RunStoreLeaseLostError,
  RunStoreLimitError,
  RunStoreNotFoundError,
} from './run-store-errors.js';
