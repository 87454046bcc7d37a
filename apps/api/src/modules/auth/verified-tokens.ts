/**
 * Bound of a verified-token cache: about one entry per live token, so this covers thousands of
 * signed-in users or chatting visitors; a few MB at most. Oldest entries go first.
 */
export const VERIFIED_TOKENS_MAX_ENTRIES = 10_000;

/**
 * Claims of JWTs that passed every check, keyed by the exact token string (signature included), so
 * a hit is a token whose bytes were already verified with our key — which never changes while the
 * process runs. Verifying the same token on every request was the largest share of a guarded
 * request (QUALITY.md P4). Only expiry can change for such a token, so `lookup` checks it on every
 * hit, by jsonwebtoken's own rule (no clock tolerance). Anything that can be revoked (sessions,
 * token versions, disabled users) is checked by the caller per request, never cached here.
 */
export class VerifiedTokens<TClaims extends object> {
  private readonly entries = new Map<string, Readonly<TClaims & { exp: number }>>();

  constructor(private readonly maxEntries = VERIFIED_TOKENS_MAX_ENTRIES) {}

  get size(): number {
    return this.entries.size;
  }

  /** The claims of a token verified before, 'expired' once its `exp` second has come (and it is dropped), or undefined. */
  lookup(token: string): Readonly<TClaims> | 'expired' | undefined {
    const hit = this.entries.get(token);
    if (!hit) return undefined;
    if (Math.floor(Date.now() / 1000) < hit.exp) return hit;
    this.entries.delete(token);
    return 'expired';
  }

  /** Keeps the claims of a token that has just passed every check. */
  remember(token: string, claims: TClaims & { exp?: unknown }): void {
    // Every token we sign has exp; one without it is verified each time rather than kept forever.
    if (typeof claims.exp !== 'number') return;
    // Map keeps insertion order: dropping the first key evicts the oldest (soonest to expire).
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(token, Object.freeze(claims) as Readonly<TClaims & { exp: number }>);
  }
}
