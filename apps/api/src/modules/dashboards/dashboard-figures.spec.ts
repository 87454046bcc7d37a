import { DEFAULT_DASHBOARD_SETTINGS } from '@centralita/contracts';
import { agentScope, matches, queueSettings, scheduledShifts, sentimentGroups, toLogRecords, type StoredLogRow } from './dashboard-figures';

const row = (overrides: Partial<StoredLogRow>): StoredLogRow => ({
  entity_type: 'conversation',
  entity_id: 'c1',
  tenant_id: 't1',
  from_state: 'Transitory',
  to_state: 'LiningUp',
  event: 'conversation.menuCompleted',
  actor_kind: 'customer',
  actor_id: null,
  at_ms: '1768467600000',
  data: { channel: 'webchat', attentionLineId: 'l1', agentId: null },
  ...overrides,
});

describe('dashboard figures glue', () => {
  it('maps stored rows to KPI records, split by entity, bigint times as numbers', () => {
    const records = toLogRecords([
      row({}),
      row({
        entity_type: 'agent',
        entity_id: 'a1',
        from_state: 'available',
        to_state: 'paused',
        data: { pauseReasonId: 'break' },
        actor_id: 'a1',
      }),
    ]);
    expect(records.conversations).toEqual([
      {
        entityId: 'c1',
        tenantId: 't1',
        from: 'Transitory',
        to: 'LiningUp',
        event: 'conversation.menuCompleted',
        at: 1768467600000,
        actor: { kind: 'customer' },
        data: { channel: 'webchat', attentionLineId: 'l1', agentId: null },
      },
    ]);
    expect(records.agents[0]).toMatchObject({
      entityId: 'a1',
      to: 'paused',
      actor: { kind: 'customer', id: 'a1' },
      data: { pauseReasonId: 'break' },
    });
  });

  it('leaves out the rows of other machines in the log (a dialer campaign is not an agent)', () => {
    const records = toLogRecords([
      row({ entity_type: 'dialer_campaign', entity_id: 'd1', from_state: 'draft', to_state: 'running', data: null }),
      row({ entity_type: 'agent', entity_id: 'a1', from_state: 'available', to_state: 'paused', data: null }),
    ]);
    expect(records.agents.map((record) => record.entityId)).toEqual(['a1']);
    expect(records.conversations).toEqual([]);
  });

  it('filters by line, channel and agent; a stay nobody answered has no agent', () => {
    const item = { attentionLineId: 'l1', channel: 'webchat', agentId: null };
    expect(matches(item, {})).toBe(true);
    expect(matches(item, { lineIds: new Set(['l1']), channel: 'webchat' })).toBe(true);
    expect(matches(item, { lineIds: new Set(['l2']) })).toBe(false);
    expect(matches(item, { channel: 'whatsapp' })).toBe(false);
    expect(matches(item, { agentIds: new Set(['a1']) })).toBe(false);
    // A campaign's staff only narrows the agents' own figures.
    expect(matches(item, { staffIds: new Set(['a1']) })).toBe(true);
    expect(agentScope({ agentIds: new Set(['a1', 'a2']), staffIds: new Set(['a2', 'a3']) })).toEqual(new Set(['a2']));
    expect(agentScope({})).toBeUndefined();
  });

  it('translates the short-abandon mode', () => {
    expect(queueSettings(DEFAULT_DASHBOARD_SETTINGS)).toEqual({ thresholdSec: 20 });
    expect(queueSettings({ ...DEFAULT_DASHBOARD_SETTINGS, shortAbandonMode: 'exclude', shortAbandonSec: 7 })).toEqual({
      thresholdSec: 20,
      shortAbandon: { underSec: 7, treatment: 'exclude' },
    });
  });

  it('lays the weekly schedule out in the client time zone, daylight saving included', () => {
    const schedule = [{ day: 0, from: '09:00', to: '11:00' }];
    // Sunday 29 March 2026: Madrid moves from UTC+1 to UTC+2 at 02:00, so 09:00 local is 07:00 UTC.
    const window = { from: Date.UTC(2026, 2, 28), to: Date.UTC(2026, 2, 30) };
    expect(scheduledShifts(schedule, ['a1'], window, 'Europe/Madrid')).toEqual([
      { agentId: 'a1', start: Date.UTC(2026, 2, 29, 7), end: Date.UTC(2026, 2, 29, 9) },
    ]);
    expect(scheduledShifts(schedule, ['a1', 'a2'], window, 'UTC').map((shift) => shift.agentId)).toEqual(['a1', 'a2']);
    expect(scheduledShifts([{ day: 1, from: '09:00', to: '11:00' }], ['a1'], window, 'UTC')).toEqual([]);
  });

  it('counts sentiment labels and averages the scores per group', () => {
    expect(
      sentimentGroups([
        { score: 0.5, label: 'positive', key: 'l1', name: 'Sales' },
        { score: -0.25, label: 'negative', key: 'l1', name: 'Sales' },
        { score: 0, label: 'neutral', key: 'l2', name: 'Billing' },
      ]),
    ).toEqual([
      { key: 'l1', name: 'Sales', messages: 2, average: 0.125, positive: 1, neutral: 0, negative: 1 },
      { key: 'l2', name: 'Billing', messages: 1, average: 0, positive: 0, neutral: 1, negative: 0 },
    ]);
  });
});
