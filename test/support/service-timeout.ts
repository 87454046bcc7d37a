// Integration and e2e suites talk to real PostgreSQL and Redis and spawn processes: on a loaded
// two-core machine a step takes seconds, not jest's default 5 s. Suites may set more themselves.
jest.setTimeout(30_000);
