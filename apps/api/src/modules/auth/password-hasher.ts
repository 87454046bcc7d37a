import * as argon2 from 'argon2';

/** OWASP's argon2id baseline (QUALITY.md): 19 MiB, 2 passes, 1 lane. Hashes made with other parameters are upgraded at sign-in. */
export const ARGON2_PARAMS = { type: argon2.argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, ARGON2_PARAMS);
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    // A malformed stored hash is a failed sign-in, not a server error.
    return false;
  }
}

export function needsRehash(hash: string): boolean {
  try {
    return (
      !hash.startsWith('$argon2id$') ||
      argon2.needsRehash(hash, {
        memoryCost: ARGON2_PARAMS.memoryCost,
        timeCost: ARGON2_PARAMS.timeCost,
        parallelism: ARGON2_PARAMS.parallelism,
      })
    );
  } catch {
    return true;
  }
}
