/**
 * Video settings, read once at start-up (invalid values stop the process, naming the variable):
 *
 * - TURN_URLS: comma-separated `turn:`/`turns:`/`stun:` URLs given to both browsers (e.g.
 *   `turn:turn.example.com:3478?transport=udp,turns:turn.example.com:5349`); empty = no relay,
 *   peers connect directly (fine on one network).
 * - TURN_SECRET: coturn's `static-auth-secret` (use-auth-secret): credentials are minted per call
 *   with the REST API scheme, never stored. Required when TURN_URLS has a turn: URL.
 * - TURN_TTL_SECONDS (3600): how long minted credentials hold.
 * - VIDEO_LINK_TTL_SECONDS (900): how long a customer's link can be opened.
 * - VIDEO_FORCE_RELAY (off): on = browsers may only use the TURN relay (iceTransportPolicy
 *   'relay'): neither side learns the other's address; needs TURN_URLS.
 * - VIDEO_AGENT_GRACE_SECONDS (15): an agent whose every socket left the call (a closed tab) for
 *   this long ends it; its recording is finalised with what was uploaded.
 */
export interface VideoConfig {
  turnUrls: string[];
  turnSecret: string | null;
  turnTtlSeconds: number;
  linkTtlSeconds: number;
  agentGraceSeconds: number;
  forceRelay: boolean;
}

export const VIDEO_CONFIG = Symbol('VIDEO_CONFIG');

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
    return fallback;
  }
  return value;
}

export function loadVideoConfig(env: NodeJS.ProcessEnv): VideoConfig {
  const problems: string[] = [];
  const turnUrls = (env.TURN_URLS ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  for (const url of turnUrls) {
    if (!/^(turns?|stuns?):[^\s]+$/i.test(url)) problems.push(`TURN_URLS: "${url}" is not a turn:, turns: or stun: URL`);
  }
  const turnSecret = env.TURN_SECRET?.trim() || null;
  if (turnUrls.some((url) => /^turns?:/i.test(url)) && !turnSecret) problems.push('TURN_SECRET is required when TURN_URLS has a turn: URL');
  const relay = (env.VIDEO_FORCE_RELAY ?? 'off').trim().toLowerCase();
  if (!['on', 'off', 'true', 'false', '1', '0', ''].includes(relay)) problems.push(`VIDEO_FORCE_RELAY must be on or off (got "${relay}")`);
  const forceRelay = ['on', 'true', '1'].includes(relay);
  if (forceRelay && !turnUrls.some((url) => /^turns?:/i.test(url))) problems.push('VIDEO_FORCE_RELAY=on needs a turn: URL in TURN_URLS');
  if (turnSecret && turnSecret.length < 16) problems.push('TURN_SECRET must be at least 16 characters');
  const config: VideoConfig = {
    turnUrls,
    turnSecret,
    turnTtlSeconds: integer(env, 'TURN_TTL_SECONDS', 3600, 60, 86_400, problems),
    linkTtlSeconds: integer(env, 'VIDEO_LINK_TTL_SECONDS', 900, 30, 7 * 86_400, problems),
    agentGraceSeconds: integer(env, 'VIDEO_AGENT_GRACE_SECONDS', 15, 1, 3600, problems),
    forceRelay,
  };
  if (problems.length) throw new Error(`Invalid video settings: ${problems.join('; ')}`);
  return config;
}
