import type { Actor } from '@centralita/domain';
import { AppException } from '../../common/app.exception';
import { dialerCampaignBinding, outboundCallBinding, type CallRow, type CampaignRow } from '../outbound/outbound-rows';
import { routeLineEffect } from './effects/effect-builders';
import { agentBinding, conversationBinding } from './machine-bindings';
import { isIllegalTransition, planCreate, planStep, stepWrite } from './machine-runner';
import type { AgentRow, ConversationRow } from './views';

const T0 = 1_700_000_000_000;
const system: Actor = { kind: 'system' };
const agentActor: Actor = { kind: 'agent', id: 'u1' };

function newConversation(): ConversationRow {
  const created = planCreate(conversationBinding, { id: 'c1', tenantId: 't1', channel: 'webchat' }, { kind: 'customer' }, T0);
  return {
    id: 'c1',
    tenant_id: 't1',
    channel: 'webchat',
    entry_line_id: 'l1',
    attention_line_id: null,
    agent_id: null,
    status: created.status,
    priority: 0,
    queued_at: null,
    customer_name: 'Ana',
    customer_email: null,
    visitor_id: null,
    snapshot: JSON.parse(created.snapshotJson) as ConversationRow['snapshot'],
    version: 1,
    last_event: created.lastEvent,
    created_at: new Date(T0),
    updated_at: new Date(T0),
    closed_at: null,
  };
}

function newAgent(): AgentRow {
  const created = planCreate(agentBinding, { agentId: 'u1', tenantId: 't1', capacity: 3, pauseReasons: ['lunch'] }, agentActor, T0);
  return {
    user_id: 'u1',
    tenant_id: 't1',
    name: 'Bea',
    status: created.status,
    capacity: 3,
    active_count: 0,
    snapshot: JSON.parse(created.snapshotJson) as AgentRow['snapshot'],
    version: 1,
    last_event: created.lastEvent,
    state_since: new Date(T0),
  };
}

const menuCompleted = {
  type: 'conversation.menuCompleted',
  queryTypeId: 'q1',
  submenuId: 's1',
  attentionLineId: 'l2',
  pollId: null,
  priority: 5,
} as const;

describe('machine runner', () => {
  describe(planCreate.name, () => {
    it("answers the entity's first status, snapshot and creating log record", () => {
      const created = planCreate(conversationBinding, { id: 'c1', tenantId: 't1', channel: 'webchat' }, system, T0);
      expect(created.status).toBe('Transitory');
      expect(created.lastEvent).toBe('xstate.init');
      expect(created.record).toEqual({ from: null, to: 'Transitory', event: 'xstate.init', at: T0, actor: system });
      expect(JSON.parse(created.snapshotJson)).toMatchObject({ value: 'Transitory', context: { id: 'c1', tenantId: 't1' } });
      expect(created.logData).toEqual({ channel: 'webchat', attentionLineId: null, agentId: null });
    });
  });

  describe(planStep.name, () => {
    it("works out the conversation's row columns, record and version + 1 from a legal step", () => {
      const current = newConversation();
      const plan = planStep(conversationBinding, current, menuCompleted, system, T0 + 1_000);
      expect(plan.current).toBe(current);
      expect(plan.next).toMatchObject({
        id: 'c1',
        status: 'LiningUp',
        attention_line_id: 'l2',
        agent_id: null,
        priority: 5,
        queued_at: new Date(T0 + 1_000),
        closed_at: null,
        version: 2,
        last_event: 'conversation.menuCompleted',
        updated_at: new Date(T0 + 1_000),
        customer_name: 'Ana',
      });
      expect(plan.next.snapshot).toEqual(plan.persisted);
      expect(plan.record).toEqual({
        from: 'Transitory',
        to: 'LiningUp',
        event: 'conversation.menuCompleted',
        at: T0 + 1_000,
        actor: system,
      });
      expect(plan.intents.map((intent) => intent.type)).toContain('scheduleQueueTimeout');
      expect(plan.logData).toEqual({ channel: 'webchat', attentionLineId: 'l2', agentId: null });
      // Pure: the row it was planned from is left as it was.
      expect(current.version).toBe(1);
      expect(current.status).toBe('Transitory');
    });

    it('refuses an event the machine does not take with illegal_transition, naming the event and the state', () => {
      const current = newConversation();
      let refused: unknown;
      try {
        planStep(conversationBinding, current, { type: 'conversation.assigned', agentId: 'u1' }, system, T0);
      } catch (error) {
        refused = error;
      }
      expect(isIllegalTransition(refused)).toBe(true);
      expect((refused as AppException).message).toBe('conversation.assigned is not allowed while the conversation is Transitory');
      expect((refused as AppException).data).toEqual({ event: 'conversation.assigned', state: 'Transitory' });
    });

    it("names the agent in an agent's refusal", () => {
      expect(() => planStep(agentBinding, newAgent(), { type: 'agent.paused', reasonId: 'lunch' }, agentActor, T0)).toThrow(
        'agent.paused is not allowed while the agent is loggedOut',
      );
    });

    it("works out the agent's columns and its pause reason on the log row", () => {
      const ready = planStep(agentBinding, newAgent(), { type: 'agent.loggedIn' }, agentActor, T0 + 1_000).next;
      const plan = planStep(agentBinding, ready, { type: 'agent.paused', reasonId: 'lunch' }, agentActor, T0 + 2_000);
      expect(plan.next).toMatchObject({
        user_id: 'u1',
        name: 'Bea',
        status: 'paused',
        capacity: 3,
        active_count: 0,
        version: 3,
        last_event: 'agent.paused',
        state_since: new Date(T0 + 2_000),
      });
      expect(plan.logData).toEqual({ pauseReasonId: 'lunch' });
    });
  });

  describe(stepWrite.name, () => {
    it("writes the conversation's columns in order, checked against the version it was planned from", () => {
      const plan = planStep(conversationBinding, newConversation(), menuCompleted, system, T0 + 1_000);
      const effects = [routeLineEffect('t1', 'l2')];
      const write = stepWrite(conversationBinding, plan, effects);
      expect(write.table).toBe('conversations');
      expect(write.key).toEqual({ column: 'id', value: 'c1' });
      expect(write.version).toBe(1);
      expect(write.entity).toBe('conversation');
      expect(write.record).toBe(plan.record);
      expect(write.logData).toEqual({ channel: 'webchat', attentionLineId: 'l2', agentId: null });
      expect(write.effects).toEqual(effects);
      expect(write.set).toEqual([
        ['status', 'LiningUp'],
        ['attention_line_id', 'l2'],
        ['agent_id', null],
        ['priority', 5],
        ['queued_at', new Date(T0 + 1_000)],
        ['closed_at', null],
        ['snapshot', JSON.stringify(plan.persisted)],
        ['last_event', 'conversation.menuCompleted'],
        ['updated_at', new Date(T0 + 1_000)],
      ]);
    });

    it("writes the agent's row by user id, its updated_at the write's own time", () => {
      const plan = planStep(agentBinding, newAgent(), { type: 'agent.loggedIn' }, agentActor, T0);
      const before = Date.now();
      const write = stepWrite(agentBinding, plan, []);
      expect(write.table).toBe('agent_presence');
      expect(write.key).toEqual({ column: 'user_id', value: 'u1' });
      expect(write.version).toBe(1);
      expect(write.entity).toBe('agent');
      expect(write.set.map(([column]) => column)).toEqual([
        'status',
        'capacity',
        'active_count',
        'snapshot',
        'last_event',
        'state_since',
        'updated_at',
      ]);
      expect(write.set.slice(0, 3)).toEqual([
        ['status', plan.next.status],
        ['capacity', 3],
        ['active_count', 0],
      ]);
      expect((write.set[6][1] as Date).getTime()).toBeGreaterThanOrEqual(before);
    });

    it("writes an outbound call's columns and stamps from its context", () => {
      const created = planCreate(
        outboundCallBinding,
        { id: 'k1', tenantId: 't1', campaignId: 'm1', contactId: 'p1', phone: '+34600000000', attempt: 1, abandonThresholdMs: 2_000 },
        system,
        T0,
      );
      const call = {
        id: 'k1',
        tenant_id: 't1',
        campaign_id: 'm1',
        contact_id: 'p1',
        phone: '+34600000000',
        attempt: 1,
        status: created.status,
        snapshot: JSON.parse(created.snapshotJson) as CallRow['snapshot'],
        version: 1,
        last_event: created.lastEvent,
        outcome: null,
        disposition: null,
        agent_id: null,
        end_reason: null,
        created_at: new Date(T0),
        answered_at: null,
        connected_at: null,
        hung_up_at: null,
        finished_at: null,
      } satisfies CallRow;
      const dialed = planStep(outboundCallBinding, call, { type: 'call.dialed' }, system, T0 + 10).next;
      const plan = planStep(outboundCallBinding, dialed, { type: 'call.answered', by: 'human' }, system, T0 + 20);
      const write = stepWrite(outboundCallBinding, plan, []);
      expect(write).toMatchObject({
        table: 'outbound_calls',
        key: { column: 'id', value: 'k1' },
        version: 2,
        entity: 'outbound_call',
        logData: null,
      });
      expect(Object.fromEntries(write.set)).toMatchObject({
        status: plan.next.status,
        last_event: 'call.answered',
        answered_at: new Date(T0 + 20),
        hung_up_at: null,
        agent_id: null,
      });
      expect(write.set.map(([column]) => column)).toEqual([
        'status',
        'snapshot',
        'last_event',
        'outcome',
        'disposition',
        'agent_id',
        'end_reason',
        'answered_at',
        'connected_at',
        'hung_up_at',
        'finished_at',
        'updated_at',
      ]);
    });

    it("writes a campaign's guarded timer with its step", () => {
      const created = planCreate(dialerCampaignBinding, { id: 'm1', tenantId: 't1', mode: 'progressive' }, system, T0);
      const campaign = {
        id: 'm1',
        tenant_id: 't1',
        status: created.status,
        snapshot: JSON.parse(created.snapshotJson) as CampaignRow['snapshot'],
        version: 1,
        last_event: created.lastEvent,
        timer_event: null,
        timer_at: null,
      } as CampaignRow;
      const plan = planStep(dialerCampaignBinding, campaign, { type: 'campaign.scheduled', startsAt: T0 + 60_000 }, system, T0);
      expect(plan.next).toMatchObject({ status: 'scheduled', timer_event: 'campaign.startTimeReached', timer_at: String(T0 + 60_000) });
      const write = stepWrite(dialerCampaignBinding, plan, []);
      expect(write).toMatchObject({ table: 'dialer_campaigns', key: { column: 'id', value: 'm1' }, version: 1, entity: 'dialer_campaign' });
      expect(write.set.slice(2, 5)).toEqual([
        ['last_event', 'campaign.scheduled'],
        ['timer_event', 'campaign.startTimeReached'],
        ['timer_at', T0 + 60_000],
      ]);
    });
  });
});
