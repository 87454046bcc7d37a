import type { OrganisationLevel, RoleCode } from './roles';

/** The logged-in user as the console keeps it (spec §3). */
export interface SessionUser {
  id: string;
  avatar: string | null;
  email: string;
  name: string;
  role: RoleCode | string;
  clientId: string;
  clientName: string;
  /** Where the user's organisation sits: a customer tenant, a reseller's staff or the platform operator. */
  level: OrganisationLevel;
  /** Session length in minutes granted to this user (the access token is refreshed within it). */
  sessionTime: number;
  /**
   * The tenant's idle sign-out (platform settings): minutes without activity after which the
   * console signs the user out. Here because every user's console applies it, while the platform
   * settings themselves are for settings.manage only.
   */
  idleLogoutMinutes: number;
  /** The permissions in effect: the role's, narrowed to what the organisation's level allows. */
  permissions: string[];
}

export interface LoginRequest {
  email: string;
  password: string;
}
export interface RegisterRequest {
  email: string;
  username: string;
  password: string;
}
/** GET /api/auth/registration: whether the sign-up page is open (SELF_REGISTRATION, off by default). */
export interface RegistrationOptions {
  enabled: boolean;
}
/** Answer of POST /api/auth/register/confirm: the new tenant exists; its administrator signs in. */
export interface RegistrationConfirmed {
  activated: true;
  email: string;
}
/** Answer of login, register and refresh. refreshToken is opaque and rotated on every use. */
export interface AuthResult {
  accessToken: string;
  refreshToken: string;
  user: SessionUser;
}
export interface Branding {
  logoUrl: string;
  completeLogoUrl: string;
  mainColor?: string | null;
  bannerUrl?: string | null;
  loginImageUrl?: string | null;
}
/** Default hosted logos served by the console itself when branding fails (spec §8). */
export const DEFAULT_BRANDING: Branding = {
  logoUrl: '/assets/logo.svg',
  completeLogoUrl: '/assets/logo-complete.svg',
};

/** Answer of GET /Session/RefreshToken: both tokens are new; the old refresh token is spent. */
export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}
/** Header that carries the opaque refresh token (a JSON body field `refreshToken` also works). */
export const REFRESH_TOKEN_HEADER = 'X-Refresh-Token';
/**
 * Header of a state-changing call that may be repeated safely: the first call's answer is kept for
 * 24 hours per caller and key and given back to a repeat (docs/api.md, "Idempotency keys").
 */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Set to `true` on an answer given back from an earlier call with the same Idempotency-Key. */
export const IDEMPOTENCY_REPLAYED_HEADER = 'Idempotency-Replayed';
/** Claims of the access JWT. `typ` tells token kinds apart; `tv` must match the user's tokenVersion. */
export interface AccessTokenClaims {
  sub: string;
  cid: string;
  sid: string;
  tv: number;
  typ: 'access';
  iat: number;
  exp: number;
  iss: string;
  aud: string;
}
export interface ResetTokenCheck {
  valid: true;
  expiresAt: string;
}
/** GET /api/auth/profile: the session user plus account details. */
export interface Profile extends SessionUser {
  roleName: string;
  lastLoginAt: string | null;
  passwordExpiresAt: string | null;
}
