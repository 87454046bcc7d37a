/**
 * Child process of the sentiment crash test: stores one customer message through the real message
 * store and machine host, commits, and is SIGKILLed the moment the host hands the outbox rows to its
 * relay, so nothing is ever published from here (no push, no sentiment job).
 * Usage: message-then-die.child.ts <conversationId> <tenantId> <text>
 */
import 'reflect-metadata';
import { createDataSource } from '../../src/database/data-source';
import { MessagesService } from '../../src/modules/conversations/messages.service';
import { MachineHostService } from '../../src/modules/machine-host/machine-host.service';
import type { OutboxRelay } from '../../src/modules/machine-host/outbox-relay.service';
import { loadRealtimeConfig } from '../../src/modules/machine-host/realtime-config';
import type { RealtimeService } from '../../src/modules/realtime/realtime.service';

async function main(): Promise<void> {
  const [conversationId, tenantId, text] = process.argv.slice(2);
  const dataSource = createDataSource(process.env.DATABASE_URL!);
  await dataSource.initialize();
  const dyingRelay = {
    kick: (ids: string[]) => {
      process.stdout.write(`committed ${ids.join(',')}\n`, () => process.kill(process.pid, 'SIGKILL'));
    },
  } as unknown as OutboxRelay;
  const host = new MachineHostService(dataSource, dyingRelay, loadRealtimeConfig(process.env));
  // Storing a message pushes nothing itself (its pushes are outbox rows): no socket server here.
  const messages = new MessagesService(dataSource, host, {} as RealtimeService);
  await messages.send({ conversationId, tenantId, sender: { kind: 'customer' }, text }, () => undefined);
  // Never reached: the relay hand-off kills the process.
  await new Promise(() => undefined);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
