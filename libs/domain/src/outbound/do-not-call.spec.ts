import { describe, expect, it } from '@jest/globals';
import { doNotCallScope, isDoNotCall, type DoNotCallLists } from './do-not-call';

const lists: DoNotCallLists = {
  tenantWide: new Set(['+34911111111']),
  byCampaign: new Map([['campaign-1', new Set(['+34922222222'])]]),
};

describe(isDoNotCall.name, () => {
  it('blocks a number on the tenant-wide list in every campaign', () => {
    expect(isDoNotCall('+34911111111', 'campaign-2', lists)).toBe(true);
  });

  it('blocks a number on the campaign’s own list', () => {
    expect(isDoNotCall('+34922222222', 'campaign-1', lists)).toBe(true);
  });

  it('lets another campaign call a number blocked only in one campaign', () => {
    expect(isDoNotCall('+34922222222', 'campaign-2', lists)).toBe(false);
  });

  it('lets a number on no list be called', () => {
    expect(isDoNotCall('+34933333333', 'campaign-1', lists)).toBe(false);
  });
});

describe(doNotCallScope.name, () => {
  it('names the tenant-wide list first when both block the number', () => {
    const both: DoNotCallLists = {
      tenantWide: new Set(['+34911111111']),
      byCampaign: new Map([['campaign-1', new Set(['+34911111111'])]]),
    };
    expect(doNotCallScope('+34911111111', 'campaign-1', both)).toBe('tenant');
  });

  it('names the campaign list when only it blocks the number', () => {
    expect(doNotCallScope('+34922222222', 'campaign-1', lists)).toBe('campaign');
  });
});
