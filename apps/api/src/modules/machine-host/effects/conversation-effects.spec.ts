import { QUEUES } from '@centralita/contracts';
import { conversationMachine, describeConversationState, initial, persist, step, type ConversationEvent } from '@centralita/domain';
import type { ConversationEventInput } from '../machine-bindings';
import type { ConversationRow } from '../views';
import {
  conversationIntentEffects,
  queueTimeoutSeconds,
  readConversationPolicy,
  type ConversationEffectPolicy,
  type ConversationIntent,
  type QueueWait,
} from './conversation-effects';

const QUEUED_AT = 1_700_000_000_000;
const CLOSED_AT = 1_700_000_500_000;

function row(context: Record<string, unknown>, status = 'Active'): ConversationRow {
  return {
    id: 'c1',
    tenant_id: 't1',
    channel: 'webchat',
    entry_line_id: 'l1',
    attention_line_id: 'l1',
    agent_id: null,
    status,
    priority: 0,
    queued_at: null,
    customer_name: 'Ana',
    customer_email: null,
    visitor_id: null,
    snapshot: { value: status, status: 'active', context },
    version: 3,
    last_event: 'conversation.messageReceived',
    created_at: new Date(QUEUED_AT),
    updated_at: new Date(QUEUED_AT),
    closed_at: null,
  };
}

const before = row({ queuedAt: QUEUED_AT, closedAt: CLOSED_AT });
const after = row({ queuedAt: null, closedAt: CLOSED_AT });
const wait = (line: number | null, tenant: number | null): QueueWait => ({
  attentionLineId: 'l2',
  lineSeconds: line,
  tenantSeconds: tenant,
  defaultSeconds: 600,
});
const policy = (overrides: Partial<ConversationEffectPolicy> = {}): ConversationEffectPolicy => ({
  queueWait: null,
  inactivityTimeoutSeconds: 300,
  surveyExpirySeconds: 86_400,
  now: QUEUED_AT,
  ...overrides,
});
const effectsOf = (intents: ConversationIntent[], given = policy()) => conversationIntentEffects(before, after, intents, given);

describe(conversationIntentEffects.name, () => {
  it('asks the line router to route on enqueue, and to re-push the queue on dequeue (with the tenant before the step)', () => {
    expect(
      effectsOf([
        {
          type: 'enqueueRouting',
          params: { conversationId: 'c1', tenantId: 't1', attentionLineId: 'l2', priority: 1, queuedAt: QUEUED_AT },
        },
        { type: 'dequeueRouting', params: { conversationId: 'c1', attentionLineId: 'l1' } },
      ]),
    ).toEqual([
      { topic: 'job', payload: { queue: QUEUES.routing, name: 'line', data: { tenantId: 't1', attentionLineId: 'l2' } } },
      { topic: 'job', payload: { queue: QUEUES.routing, name: 'line', data: { tenantId: 't1', attentionLineId: 'l1' } } },
    ]);
  });

  it('arms the queue timeout with a job id the cancel finds, echoing armedAt', () => {
    const intents: ConversationIntent[] = [
      { type: 'scheduleQueueTimeout', params: { conversationId: 'c1', attentionLineId: 'l2', armedAt: QUEUED_AT } },
    ];
    expect(effectsOf(intents, policy({ queueWait: wait(45, 120) }))).toEqual([
      {
        topic: 'job',
        payload: {
          queue: QUEUES.machineTimers,
          name: 'conversation.queueTimedOut',
          jobId: `cqt.c1.${QUEUED_AT}`,
          delayMs: 45_000,
          data: { entity: 'conversation', id: 'c1', event: { type: 'conversation.queueTimedOut', armedAt: QUEUED_AT } },
        },
      },
    ]);
    // The cancel removes the job armed when the conversation was queued (the context before the step).
    expect(effectsOf([{ type: 'cancelQueueTimeout', params: { conversationId: 'c1' } }])).toEqual([
      { topic: 'job.remove', payload: { queue: QUEUES.machineTimers, jobId: `cqt.c1.${QUEUED_AT}` } },
    ]);
  });

  it("waits the line's queue timeout, else the tenant's maximum wait, else the default", () => {
    expect(queueTimeoutSeconds(wait(45, 120))).toBe(45);
    expect(queueTimeoutSeconds(wait(null, 120))).toBe(120);
    expect(queueTimeoutSeconds(wait(null, null))).toBe(600);
    // Zero is a setting, not a missing one.
    expect(queueTimeoutSeconds(wait(0, 120))).toBe(0);
  });

  it('refuses to schedule a queue timeout for a line whose wait was not read', () => {
    const intents: ConversationIntent[] = [
      { type: 'scheduleQueueTimeout', params: { conversationId: 'c1', attentionLineId: 'l9', armedAt: QUEUED_AT } },
    ];
    expect(() => effectsOf(intents)).toThrow(/No queue wait was read for line l9/);
    expect(() => effectsOf(intents, policy({ queueWait: wait(45, null) }))).toThrow(/line l9/);
  });

  it('arms the whole inactivity timeout when entering Active, and only what is left when snoozed', () => {
    const armedAt = QUEUED_AT;
    const schedule = (snoozed: boolean): ConversationIntent => ({
      type: 'scheduleInactivityTimeout',
      params: { conversationId: 'c1', armedAt, snoozed },
    });
    const delay = (effects: ReturnType<typeof effectsOf>) => (effects[0].payload as { delayMs: number }).delayMs;
    const fresh = effectsOf([schedule(false)], policy({ now: armedAt + 200_000 }));
    expect(fresh[0]).toMatchObject({
      topic: 'job',
      payload: {
        name: 'conversation.inactivityTimedOut',
        jobId: `cin.c1.${armedAt}`,
        data: { entity: 'conversation', id: 'c1', event: { type: 'conversation.inactivityTimedOut', armedAt } },
      },
    });
    expect(delay(fresh)).toBe(300_000);
    // Last activity 200 s ago on a 300 s timeout: 100 s left, counted against the policy's clock.
    expect(delay(effectsOf([schedule(true)], policy({ now: armedAt + 200_000 })))).toBe(100_000);
    expect(delay(effectsOf([schedule(true)], policy({ now: armedAt + 200_250 })))).toBe(99_750);
    // Already past: fires at once, never a negative delay.
    expect(delay(effectsOf([schedule(true)], policy({ now: armedAt + 900_000 })))).toBe(0);
  });

  it('cancels the inactivity timer armed at the time the intent names', () => {
    expect(effectsOf([{ type: 'cancelInactivityTimeout', params: { conversationId: 'c1', armedAt: 42 } }])).toEqual([
      { topic: 'job.remove', payload: { queue: QUEUES.machineTimers, jobId: 'cin.c1.42' } },
    ]);
  });

  it('arms the survey expiry for the configured time and cancels the one armed at the close', () => {
    expect(effectsOf([{ type: 'scheduleSurveyExpiry', params: { conversationId: 'c1', armedAt: CLOSED_AT } }])).toEqual([
      {
        topic: 'job',
        payload: {
          queue: QUEUES.machineTimers,
          name: 'conversation.surveyExpired',
          jobId: `csx.c1.${CLOSED_AT}`,
          delayMs: 86_400_000,
          data: { entity: 'conversation', id: 'c1', event: { type: 'conversation.surveyExpired', armedAt: CLOSED_AT } },
        },
      },
    ]);
    expect(effectsOf([{ type: 'cancelSurveyExpiry', params: { conversationId: 'c1' } }])).toEqual([
      { topic: 'job.remove', payload: { queue: QUEUES.machineTimers, jobId: `csx.c1.${CLOSED_AT}` } },
    ]);
  });

  it('cancels nothing when no timer was armed', () => {
    const unarmed = row({ queuedAt: null, closedAt: null });
    const intents: ConversationIntent[] = [
      { type: 'cancelQueueTimeout', params: { conversationId: 'c1' } },
      { type: 'cancelSurveyExpiry', params: { conversationId: 'c1' } },
    ];
    expect(conversationIntentEffects(unarmed, after, intents, policy())).toEqual([]);
  });

  it('leaves pushes to the conversation.updated of every step and in-transaction intents to the host', () => {
    const intents: ConversationIntent[] = [
      { type: 'notifyAgent', params: { conversationId: 'c1', agentId: 'a1' } },
      { type: 'notifyClosed', params: { conversationId: 'c1', reason: 'resolved', closedBy: { kind: 'system' } } },
      { type: 'releaseAgent', params: { conversationId: 'c1', agentId: 'a1', disposition: null } },
      { type: 'startInquest', params: { conversationId: 'c1', pollId: 'p1', agentId: 'a1' } },
    ];
    expect(effectsOf(intents)).toEqual([]);
  });

  it('keeps intent order, and gives the same effects for the same inputs', () => {
    const intents: ConversationIntent[] = [
      { type: 'cancelInactivityTimeout', params: { conversationId: 'c1', armedAt: 7 } },
      { type: 'enqueueRouting', params: { conversationId: 'c1', tenantId: 't1', attentionLineId: 'l2', priority: 0, queuedAt: 9 } },
      { type: 'scheduleQueueTimeout', params: { conversationId: 'c1', attentionLineId: 'l2', armedAt: 9 } },
    ];
    const given = policy({ queueWait: wait(null, 30) });
    const effects = effectsOf(intents, given);
    expect(effects.map((effect) => effect.topic)).toEqual(['job.remove', 'job', 'job']);
    expect(effects[2]).toMatchObject({ payload: { jobId: 'cqt.c1.9', delayMs: 30_000 } });
    expect(effectsOf(intents, given)).toEqual(effects);
  });
});

describe(readConversationPolicy.name, () => {
  const config = { defaultQueueTimeoutSeconds: 600, inactivityTimeoutSeconds: 300, surveyExpirySeconds: 86_400 };
  const fakeReader = (answer: { line: number | null; tenant: number | null }) =>
    jest.fn(async (_attentionLineId: string, _tenantId: string) => answer);

  it('reads nothing when the step schedules no queue timeout', async () => {
    const readWaits = fakeReader({ line: 1, tenant: 2 });
    const read = await readConversationPolicy(
      readWaits,
      after,
      [{ type: 'cancelQueueTimeout', params: { conversationId: 'c1' } }],
      config,
      5,
    );
    expect(readWaits).not.toHaveBeenCalled();
    expect(read).toEqual({ queueWait: null, inactivityTimeoutSeconds: 300, surveyExpirySeconds: 86_400, now: 5 });
  });

  it("reads the scheduled line's and the tenant's waits once, with the default beside them", async () => {
    const readWaits = fakeReader({ line: null, tenant: 120 });
    const read = await readConversationPolicy(
      readWaits,
      after,
      [{ type: 'scheduleQueueTimeout', params: { conversationId: 'c1', attentionLineId: 'l2', armedAt: QUEUED_AT } }],
      config,
      5,
    );
    expect(readWaits).toHaveBeenCalledTimes(1);
    expect(readWaits.mock.calls[0]).toEqual(['l2', 't1']);
    expect(read.queueWait).toEqual({ attentionLineId: 'l2', lineSeconds: null, tenantSeconds: 120, defaultSeconds: 600 });
  });
});

describe('conversationIntentEffects on the machine’s own intents', () => {
  const T0 = 1_700_000_000_000;
  const actor = { kind: 'system' } as const;
  type Walk = { row: ConversationRow; snapshot: ReturnType<typeof initial<typeof conversationMachine>>['snapshot'] };

  const rowOf = (snapshot: Walk['snapshot']): ConversationRow => ({
    ...row({}, describeConversationState(snapshot)),
    snapshot: persist(conversationMachine, snapshot) as unknown as ConversationRow['snapshot'],
  });
  const start = (): Walk => {
    const { snapshot } = initial(conversationMachine, { id: 'c1', tenantId: 't1', channel: 'webchat', at: T0, actor });
    return { snapshot, row: rowOf(snapshot) };
  };
  /** Steps the machine and answers the plain effects of its intents, with a line timeout of 60 s. */
  const walk = (from: Walk, event: ConversationEventInput, at: number) => {
    const result = step(conversationMachine, from.snapshot, { ...event, at, actor } as ConversationEvent);
    if (!result.changed) throw new Error(`${event.type} refused`);
    const next: Walk = { snapshot: result.snapshot, row: rowOf(result.snapshot) };
    const queueWait = { attentionLineId: 'l1', lineSeconds: 60, tenantSeconds: null, defaultSeconds: 600 };
    const effects = conversationIntentEffects(from.row, next.row, result.intents, policy({ queueWait, now: at }));
    return { next, effects, intents: result.intents.map((intent) => intent.type) };
  };
  const jobIds = (effects: ReturnType<typeof conversationIntentEffects>) =>
    effects.map(
      (effect) =>
        `${effect.topic}:${(effect.payload as { jobId?: string; name?: string }).jobId ?? (effect.payload as { name: string }).name}`,
    );

  it('cancels exactly the timers it armed, through the queue, the agent and the survey', () => {
    const queued = walk(
      start(),
      { type: 'conversation.menuCompleted', queryTypeId: 'q', submenuId: 's', attentionLineId: 'l1', pollId: 'p1' },
      T0 + 1_000,
    );
    expect(jobIds(queued.effects)).toEqual(['job:line', `job:cqt.c1.${T0 + 1_000}`]);

    const active = walk(queued.next, { type: 'conversation.assigned', agentId: 'a1' }, T0 + 5_000);
    expect(active.intents).toContain('notifyAgent');
    expect(jobIds(active.effects)).toEqual(['job:line', `job.remove:cqt.c1.${T0 + 1_000}`, `job:cin.c1.${T0 + 5_000}`]);

    const inquest = walk(active.next, { type: 'conversation.closed', reason: 'resolved' }, T0 + 9_000);
    // releaseAgent and startInquest are the host's, in the transaction: no effect here.
    expect(inquest.intents).toEqual(expect.arrayContaining(['releaseAgent', 'startInquest']));
    expect(jobIds(inquest.effects)).toEqual([`job.remove:cin.c1.${T0 + 5_000}`, `job:csx.c1.${T0 + 9_000}`]);

    const closed = walk(inquest.next, { type: 'conversation.surveyExpired', armedAt: T0 + 9_000 }, T0 + 20_000);
    expect(jobIds(closed.effects)).toEqual([`job.remove:csx.c1.${T0 + 9_000}`]);
  });
});
