import { describe, expect, it } from '@jest/globals';
import { dialerCampaignMachine, initial, step, type DialerCampaignEvent } from '@centralita/domain';
import { ACTIONS_BY_STATUS } from './campaign-actions';

const supervisor = { kind: 'supervisor' as const, id: 's' };
const EVENTS: Record<string, { type: DialerCampaignEvent['type']; reason?: string }> = {
  start: { type: 'campaign.started' },
  pause: { type: 'campaign.paused' },
  resume: { type: 'campaign.resumed' },
  cancel: { type: 'campaign.cancelled', reason: 'test' },
};

/** Walks the machine to each status with supervisor events. */
function snapshotIn(status: string) {
  let at = 1;
  let snapshot = initial(dialerCampaignMachine, { id: 'c', tenantId: 't', mode: 'progressive', at: at++, actor: supervisor }).snapshot;
  const go = (event: object) => {
    snapshot = step(dialerCampaignMachine, snapshot, { ...event, at: at++, actor: supervisor } as DialerCampaignEvent).snapshot;
  };
  if (status === 'scheduled') go({ type: 'campaign.scheduled', startsAt: 10_000 });
  if (['running', 'paused', 'completed'].includes(status)) go(EVENTS.start);
  if (status === 'paused') go(EVENTS.pause);
  if (status === 'completed') go({ type: 'campaign.completed' });
  if (status === 'cancelled') go(EVENTS.cancel);
  return { snapshot, at };
}

describe('campaign list actions', () => {
  it.each(Object.keys(ACTIONS_BY_STATUS))('offers in %s exactly the actions the dialer-campaign machine accepts', (status) => {
    const { snapshot, at } = snapshotIn(status);
    const accepted = Object.entries(EVENTS)
      .filter(([, event]) => step(dialerCampaignMachine, snapshot, { ...event, at, actor: supervisor } as DialerCampaignEvent).changed)
      .map(([action]) => action);
    expect([...ACTIONS_BY_STATUS[status]].sort()).toEqual(accepted.sort());
  });
});
