import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { EPHEMERAL_EVENTS, emitEphemeral, emitEphemeralPerRoom } from './ephemeral';

const SRC = path.join(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [full] : [];
  });
}

describe('one way out for pushes', () => {
  it('pushes from nowhere but the outbox relay and emitEphemeral', () => {
    // Anything else that pushes must be an outbox effect (state) or go through emitEphemeral (listed there).
    const allowed = new Set(['modules/machine-host/outbox-relay.service.ts', 'modules/machine-host/ephemeral.ts']);
    const offenders = sources(SRC)
      .map((file) => path.relative(SRC, file).split(path.sep).join('/'))
      .filter((file) => !allowed.has(file) && /\brealtime\.(emit|emitPerRoom)\(/.test(readFileSync(path.join(SRC, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('passes an ephemeral push to the realtime service as given', () => {
    const calls: unknown[][] = [];
    const realtime = { emit: (...args: unknown[]) => void calls.push(args) };
    const data = { conversationId: 'c', senderKind: 'customer' as const, typing: true };
    emitEphemeral(realtime, { namespace: 'staff', rooms: ['conversation:c'], event: 'typing', data });
    expect(calls).toEqual([['staff', ['conversation:c'], 'typing', data]]);
  });

  it('passes per-room pushes to the realtime service as given, and refuses state', () => {
    const calls: unknown[][] = [];
    const realtime = { emitPerRoom: (...args: unknown[]) => void calls.push(args) };
    const data = { conversationId: 'c', attentionLineId: 'l', position: 2, estimatedWaitSeconds: 60, nobodyServing: false, version: 3 };
    emitEphemeralPerRoom(realtime, { namespace: 'visitor', event: 'queue.position', pushes: [{ room: 'conversation:c', data }] });
    expect(calls).toEqual([['visitor', 'queue.position', [{ room: 'conversation:c', data }]]]);
    emitEphemeralPerRoom(realtime, {
      namespace: 'staff',
      // @ts-expect-error a conversation's state is pushed by its outbox rows, never ephemerally
      event: 'conversation.updated',
      pushes: [],
    });
  });

  it('lists only events that are not state', () => {
    expect([...EPHEMERAL_EVENTS].sort()).toEqual([
      'campaignQueue.updated',
      'messageCampaign.board',
      'outbound.board',
      'queue.position',
      'queue.updated',
      'typing',
      'video.call',
      'video.signal',
    ]);
    // @ts-expect-error a conversation's state is pushed by its outbox rows, never ephemerally
    emitEphemeral({ emit: () => undefined }, { namespace: 'staff', rooms: [], event: 'conversation.updated', data: {} as never });
  });
});
