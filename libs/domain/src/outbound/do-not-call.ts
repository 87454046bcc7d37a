/**
 * Do-not-call lists: one for the whole tenant and one per campaign. Entries are stored in E.164
 * (see `normalizePhone`), so a lookup is an exact set membership.
 */
export interface DoNotCallLists {
  tenantWide: ReadonlySet<string>;
  byCampaign: ReadonlyMap<string, ReadonlySet<string>>;
}

export type DoNotCallScope = 'tenant' | 'campaign';

/** Which list blocks the number for this campaign (the tenant-wide list first), or null when none does. */
export function doNotCallScope(phoneE164: string, campaignId: string, lists: DoNotCallLists): DoNotCallScope | null {
  if (lists.tenantWide.has(phoneE164)) return 'tenant';
  if (lists.byCampaign.get(campaignId)?.has(phoneE164) === true) return 'campaign';
  return null;
}

export function isDoNotCall(phoneE164: string, campaignId: string, lists: DoNotCallLists): boolean {
  return doNotCallScope(phoneE164, campaignId, lists) !== null;
}
