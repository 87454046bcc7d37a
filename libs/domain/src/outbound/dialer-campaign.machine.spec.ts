import { describe, expect, it } from '@jest/globals';
import { DomainError } from '../domain-error';
import { initial, persist, restore, step, type Actor } from '../machines/machine-step';
import {
  campaignTimer,
  describeCampaignState,
  dialerCampaignMachine,
  type DialerCampaignEvent,
  type DialerCampaignSnapshot,
} from './dialer-campaign.machine';
import type { DialingMode } from './pacer';

const T0 = Date.UTC(2025, 0, 15, 8, 0, 0);
const HOUR = 3600_000;
const system: Actor = { kind: 'system' };
const supervisor: Actor = { kind: 'supervisor', id: 'supervisor-1' };
const agent: Actor = { kind: 'agent', id: 'agent-a' };

type EventBody = DialerCampaignEvent extends infer E ? (E extends DialerCampaignEvent ? Omit<E, 'at' | 'actor'> : never) : never;

let clock = T0;
function event(body: EventBody, actor: Actor = supervisor): DialerCampaignEvent {
  clock += 1000;
  return { ...body, at: clock, actor } as DialerCampaignEvent;
}

function send(snapshot: DialerCampaignSnapshot, body: EventBody, actor?: Actor) {
  return step(dialerCampaignMachine, snapshot, event(body, actor));
}

function after(snapshot: DialerCampaignSnapshot, body: EventBody, actor?: Actor): DialerCampaignSnapshot {
  const result = send(snapshot, body, actor);
  if (!result.changed) throw new Error(`Setup event ${body.type} was refused in ${describeCampaignState(snapshot)}`);
  return result.snapshot;
}

function draft(mode: DialingMode = 'predictive'): DialerCampaignSnapshot {
  clock = T0;
  return initial(dialerCampaignMachine, { id: 'campaign-1', tenantId: 'tenant-1', mode, at: T0, actor: supervisor }).snapshot;
}

const window = { startsAt: T0 + HOUR, endsAt: T0 + 9 * HOUR };
const scheduled = () => after(draft(), { type: 'campaign.scheduled', ...window });
const running = () => after(scheduled(), { type: 'campaign.startTimeReached', armedAt: window.startsAt }, system);
const paused = () => after(running(), { type: 'campaign.paused', reason: 'lunch' });
const intentTypes = (result: { intents: { type: string }[] }) => result.intents.map((intent) => intent.type);

describe(dialerCampaignMachine.id, () => {
  describe('creation', () => {
    it('starts as a draft with no intents', () => {
      const result = initial(dialerCampaignMachine, {
        id: 'campaign-1',
        tenantId: 'tenant-1',
        mode: 'progressive',
        at: T0,
        actor: supervisor,
      });
      expect(describeCampaignState(result.snapshot)).toBe('draft');
      expect(result.intents).toEqual([]);
    });

    it('refuses an unknown dialing mode', () => {
      expect(() =>
        initial(dialerCampaignMachine, { id: 'c', tenantId: 't', mode: 'turbo' as DialingMode, at: T0, actor: supervisor }),
      ).toThrow(DomainError);
    });
  });

  describe('scheduling', () => {
    it('schedules a window and arms the start timer at its start', () => {
      const result = send(draft(), { type: 'campaign.scheduled', ...window });
      expect(describeCampaignState(result.snapshot)).toBe('scheduled');
      expect(result.intents).toEqual([{ type: 'scheduleStart', params: { campaignId: 'campaign-1', armedAt: window.startsAt } }]);
      expect(result.snapshot.context).toMatchObject(window);
    });

    it('refuses a window that ends before it starts', () => {
      expect(send(draft(), { type: 'campaign.scheduled', startsAt: T0 + HOUR, endsAt: T0 + HOUR }).changed).toBe(false);
    });

    it('refuses a window that starts in the past', () => {
      expect(send(draft(), { type: 'campaign.scheduled', startsAt: T0 - HOUR }).changed).toBe(false);
    });

    it('goes back to draft when unscheduled and drops the start timer', () => {
      const result = send(scheduled(), { type: 'campaign.unscheduled' });
      expect(describeCampaignState(result.snapshot)).toBe('draft');
      expect(intentTypes(result)).toEqual(['cancelScheduledStart']);
      expect(result.snapshot.context).toMatchObject({ startsAt: null, endsAt: null });
    });
  });

  describe('running', () => {
    it('starts dialing when the start timer fires and arms the end timer', () => {
      const result = send(scheduled(), { type: 'campaign.startTimeReached', armedAt: window.startsAt }, system);
      expect(describeCampaignState(result.snapshot)).toBe('running');
      expect(result.intents).toEqual([
        { type: 'cancelScheduledStart', params: { campaignId: 'campaign-1' } },
        { type: 'scheduleEnd', params: { campaignId: 'campaign-1', armedAt: window.endsAt } },
        { type: 'startDialing', params: { campaignId: 'campaign-1', tenantId: 'tenant-1', mode: 'predictive' } },
      ]);
    });

    it('refuses a start timer from an earlier schedule', () => {
      expect(send(scheduled(), { type: 'campaign.startTimeReached', armedAt: window.startsAt - 1 }, system).changed).toBe(false);
    });

    it('lets a supervisor start a draft at once, with no end timer when there is no window', () => {
      const result = send(draft(), { type: 'campaign.started' });
      expect(describeCampaignState(result.snapshot)).toBe('running');
      expect(intentTypes(result)).toEqual(['startDialing']);
      expect(result.snapshot.context.startedAt).toBe(clock);
    });

    it('refuses a start from an agent', () => {
      expect(send(draft(), { type: 'campaign.started' }, agent).changed).toBe(false);
    });

    it('pauses with a reason and stops dialing', () => {
      const result = send(running(), { type: 'campaign.paused', reason: 'lunch' });
      expect(describeCampaignState(result.snapshot)).toBe('paused');
      expect(intentTypes(result)).toEqual(['stopDialing']);
      expect(result.snapshot.context).toMatchObject({ pausedAt: clock, pauseReason: 'lunch' });
    });

    it('resumes dialing and clears the pause', () => {
      const result = send(paused(), { type: 'campaign.resumed' });
      expect(describeCampaignState(result.snapshot)).toBe('running');
      expect(intentTypes(result)).toEqual(['startDialing']);
      expect(result.snapshot.context).toMatchObject({ pausedAt: null, pauseReason: null });
    });

    it('refuses to resume after the window has ended', () => {
      const snapshot = paused();
      const late = { type: 'campaign.resumed', at: window.endsAt, actor: supervisor } as DialerCampaignEvent;
      expect(step(dialerCampaignMachine, snapshot, late).changed).toBe(false);
    });

    it('refuses to pause a campaign that is not running', () => {
      expect(send(scheduled(), { type: 'campaign.paused' }).changed).toBe(false);
    });
  });

  describe('ending', () => {
    it('completes when the contact list is exhausted', () => {
      const result = send(running(), { type: 'campaign.completed' }, system);
      expect(describeCampaignState(result.snapshot)).toBe('completed');
      expect(intentTypes(result)).toEqual(['stopDialing', 'cancelScheduledEnd', 'notifyCampaignEnded']);
      expect(result.snapshot.context).toMatchObject({ endReason: 'exhausted', endedAt: clock });
    });

    it('completes from pause when the end timer fires', () => {
      const result = send(paused(), { type: 'campaign.endTimeReached', armedAt: window.endsAt }, system);
      expect(describeCampaignState(result.snapshot)).toBe('completed');
      expect(result.snapshot.context.endReason).toBe('windowEnded');
    });

    it('refuses an end timer armed for another end', () => {
      expect(send(running(), { type: 'campaign.endTimeReached', armedAt: window.endsAt + 1 }, system).changed).toBe(false);
    });

    it('cancels a scheduled campaign and drops its start timer', () => {
      const result = send(scheduled(), { type: 'campaign.cancelled', reason: 'client request' });
      expect(describeCampaignState(result.snapshot)).toBe('cancelled');
      expect(result.intents).toEqual([
        { type: 'cancelScheduledStart', params: { campaignId: 'campaign-1' } },
        {
          type: 'notifyCampaignEnded',
          params: { campaignId: 'campaign-1', tenantId: 'tenant-1', status: 'cancelled', reason: 'client request' },
        },
      ]);
    });

    it('cancels a running campaign and stops dialing', () => {
      const result = send(running(), { type: 'campaign.cancelled', reason: 'wrong list' });
      expect(intentTypes(result)).toEqual(['stopDialing', 'cancelScheduledEnd', 'notifyCampaignEnded']);
    });

    it('refuses a cancellation without a reason', () => {
      expect(send(running(), { type: 'campaign.cancelled', reason: ' ' }).changed).toBe(false);
    });

    it('refuses to start a completed campaign again', () => {
      const completed = after(running(), { type: 'campaign.completed' }, system);
      expect(send(completed, { type: 'campaign.started' }).changed).toBe(false);
    });
  });

  describe('editing a draft', () => {
    it('changes the dialing mode as a step of its own, with no intents', () => {
      const result = send(draft('progressive'), { type: 'campaign.modeChanged', mode: 'predictive' });
      expect(result.changed).toBe(true);
      expect(result.record).toMatchObject({ from: 'draft', to: 'draft', event: 'campaign.modeChanged' });
      expect(result.snapshot.context.mode).toBe('predictive');
      expect(result.intents).toEqual([]);
    });

    it('refuses the same mode, an unknown one, an agent, and any campaign past draft', () => {
      expect(send(draft('progressive'), { type: 'campaign.modeChanged', mode: 'progressive' }).changed).toBe(false);
      expect(send(draft(), { type: 'campaign.modeChanged', mode: 'turbo' as DialingMode }).changed).toBe(false);
      expect(send(draft('progressive'), { type: 'campaign.modeChanged', mode: 'predictive' }, agent).changed).toBe(false);
      expect(send(scheduled(), { type: 'campaign.modeChanged', mode: 'preview' }).changed).toBe(false);
      expect(send(running(), { type: 'campaign.modeChanged', mode: 'preview' }).changed).toBe(false);
    });
  });

  describe(campaignTimer.name, () => {
    it('is the start while scheduled, the window end while running or paused, and nothing otherwise', () => {
      expect(campaignTimer(draft())).toBeNull();
      expect(campaignTimer(scheduled())).toEqual({ event: 'campaign.startTimeReached', at: window.startsAt });
      expect(campaignTimer(running())).toEqual({ event: 'campaign.endTimeReached', at: window.endsAt });
      expect(campaignTimer(paused())).toEqual({ event: 'campaign.endTimeReached', at: window.endsAt });
      expect(campaignTimer(after(running(), { type: 'campaign.completed' }, system))).toBeNull();
    });

    it('is nothing for a campaign started by hand with no window', () => {
      expect(campaignTimer(after(draft(), { type: 'campaign.started' }))).toBeNull();
    });
  });

  it('survives a JSON round trip while paused', () => {
    const snapshot = paused();
    const restored = restore(dialerCampaignMachine, JSON.parse(JSON.stringify(persist(dialerCampaignMachine, snapshot))));
    expect(describeCampaignState(restored)).toBe('paused');
    expect(restored.context).toEqual(snapshot.context);
  });
});
