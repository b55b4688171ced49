import { describeHostStops } from './__fixtures__/host-stop-cases.js';

// The fault suite of issue 24, one of its files (durable-faults-*.test.ts; see
// durable-faults-sigkill.test.ts). Here: SIGTERM, on which the host stops as a service does, letting
// its run go unfinished, so another host resumes it at once.

describeHostStops('SIGTERM');
