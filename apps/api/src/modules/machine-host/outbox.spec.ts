import { QUEUES } from '@centralita/contracts';
import { outboxColumns, type OutboxEffect } from './outbox';

const push = (event: string, rooms = ['tenant:t']): OutboxEffect => ({
  topic: 'socket',
  payload: { emits: [{ namespace: 'staff', rooms, event, data: { event } } as never] },
});
const job = (name: string): OutboxEffect => ({
  topic: 'job',
  payload: { queue: QUEUES.machineTimers, name, data: { entity: 'agent', id: 'a', event: { type: name } } },
});

describe(outboxColumns.name, () => {
  it('puts the socket pushes of one write in one row, their emits in order, where the first push stood', () => {
    const { topics, payloads } = outboxColumns([
      job('a'),
      push('conversation.updated'),
      job('b'),
      push('message.created', ['conversation:c']),
    ]);
    expect(topics).toEqual(['job', 'socket', 'job']);
    const emits = (JSON.parse(payloads[1]) as { emits: { event: string; rooms: string[] }[] }).emits;
    expect(emits.map((emit) => `${emit.event}→${emit.rooms.join(',')}`)).toEqual([
      'conversation.updated→tenant:t',
      'message.created→conversation:c',
    ]);
    expect(JSON.parse(payloads[0])).toMatchObject({ name: 'a' });
    expect(JSON.parse(payloads[2])).toMatchObject({ name: 'b' });
  });

  it('leaves jobs and removals one row each, and nothing for no effects', () => {
    expect(outboxColumns([]).topics).toEqual([]);
    expect(outboxColumns([job('a'), job('b')]).topics).toEqual(['job', 'job']);
    expect(outboxColumns([push('agent.updated')]).topics).toEqual(['socket']);
  });

  it('does not change the effects it was given', () => {
    const first = push('one');
    outboxColumns([first, push('two')]);
    expect((first as Extract<OutboxEffect, { topic: 'socket' }>).payload.emits).toHaveLength(1);
  });
});
