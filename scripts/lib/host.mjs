// Where `npm start` / `npm run dev` make the API listen, and the URLs they print and probe.
// Loopback unless HOST says otherwise: the demo tenant's accounts have a published password and
// development builds are meant for the person at the machine, not for the network.

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const WILDCARD = new Set(['0.0.0.0', '::']);

/** The address to listen on: HOST when set (e.g. HOST=0.0.0.0 for every interface), else 127.0.0.1. */
export function listenHost(env = process.env) {
  const host = env.HOST?.trim();
  return host ? host : '127.0.0.1';
}

export function isLoopback(host) {
  return LOOPBACK.has(host) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Reachable from other machines (so worth a warning when the demo accounts are seeded). */
export function isExposed(host) {
  return !isLoopback(host);
}

const bracket = (host) => (host.includes(':') ? `[${host}]` : host);

/** The URL this machine uses to reach the API (health probe). */
export function probeUrl(host, port) {
  if (host === '::') return `http://[::1]:${port}`;
  if (WILDCARD.has(host) || host === 'localhost') return `http://127.0.0.1:${port}`;
  return `http://${bracket(host)}:${port}`;
}

/** The URL printed for people: localhost for loopback and wildcard binds, else the address itself. */
export function displayUrl(host, port) {
  if (isLoopback(host) || WILDCARD.has(host)) return `http://localhost:${port}`;
  return `http://${bracket(host)}:${port}`;
}
