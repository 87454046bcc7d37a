// Browser steps (page loads, sign-ins) take seconds, not milliseconds.
jest.setTimeout(30_000);
