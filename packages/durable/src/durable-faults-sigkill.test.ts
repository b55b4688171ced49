import { describeHostStops } from './__fixtures__/host-stop-cases.js';

// The fault suite of issue 24, one of its files (durable-faults-*.test.ts): real host processes
// (fault-host.ts) stopped at chosen points of a run, on the embedded store and on a real PostgreSQL.
// Each host appends every real tool execution to a ledger file; the tests assert on the ledger (no
// call that is not replay-safe ran twice), on what the program saw and on the store. Hosts print
// stage markers; every wait for one has a deadline. Here: SIGKILL, and another host resumes once
// the killed one's lease has lapsed.

describeHostStops('SIGKILL');
