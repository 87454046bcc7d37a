import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { VideoIceConfig } from '@centralita/contracts';

/** A link or guest token: 32 random bytes, base64url (43 characters). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Tokens are stored only as their SHA-256: a database read gives nobody a working link. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * coturn's REST API credentials (use-auth-secret / static-auth-secret): username
 * `<expiry unix seconds>:<callId>`, credential base64(HMAC-SHA1(secret, username)). coturn checks
 * the expiry itself, so a leaked credential stops working on its own.
 */
export function turnCredentials(
  secret: string,
  callId: string,
  nowSeconds: number,
  ttlSeconds: number,
): { username: string; credential: string } {
  const username = `${nowSeconds + ttlSeconds}:${callId}`;
  return { username, credential: createHmac('sha1', secret).update(username).digest('base64') };
}

/** The ICE servers for one call: STUN URLs as they are, TURN URLs with minted credentials. */
export function iceConfig(
  settings: { turnUrls: string[]; turnSecret: string | null; turnTtlSeconds: number; forceRelay?: boolean },
  callId: string,
  nowSeconds: number,
): VideoIceConfig {
  const stun = settings.turnUrls.filter((url) => /^stuns?:/i.test(url));
  const turn = settings.turnUrls.filter((url) => /^turns?:/i.test(url));
  const iceServers: VideoIceConfig['iceServers'] = [];
  if (stun.length) iceServers.push({ urls: stun });
  if (turn.length && settings.turnSecret) {
    iceServers.push({ urls: turn, ...turnCredentials(settings.turnSecret, callId, nowSeconds, settings.turnTtlSeconds) });
  }
  return { iceServers, iceTransportPolicy: settings.forceRelay ? 'relay' : 'all', ttlSeconds: settings.turnTtlSeconds };
}

/**
 * Signed URLs for recordings, so a <video> element (which cannot send a bearer header) plays one:
 * HMAC-SHA256 over tenant, recording and expiry with a key derived from the API's JWT secret.
 * Handed out only to staff who may see the conversation, short-lived.
 */
export class RecordingUrlSigner {
  private readonly key: Buffer;

  constructor(jwtSecret: string) {
    this.key = createHmac('sha256', jwtSecret).update('centralita video recording urls').digest();
  }

  private signature(tenantId: string, recordingId: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${tenantId}.${recordingId}.${expires}`).digest('base64url');
  }

  url(tenantId: string, recordingId: string, nowSeconds: number, ttlSeconds = 3600): string {
    const expires = nowSeconds + ttlSeconds;
    return `/api/video-recordings/${recordingId}/content?t=${tenantId}&e=${expires}&s=${this.signature(tenantId, recordingId, expires)}`;
  }

  verify(tenantId: string, recordingId: string, expires: number, signature: string, nowSeconds: number): boolean {
    if (!Number.isInteger(expires) || expires < nowSeconds) return false;
    const expected = Buffer.from(this.signature(tenantId, recordingId, expires));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
