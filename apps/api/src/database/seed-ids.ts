/**
 * Fixed ids of the demo tenant, so re-seeding finds the same rows and non-production
 * self-registration has a default tenant to join.
 */
export const DEMO_RESELLER_ID = '00000000-0000-4000-8000-000000000001';
export const DEMO_CLIENT_ID = '00000000-0000-4000-8000-000000000002';
