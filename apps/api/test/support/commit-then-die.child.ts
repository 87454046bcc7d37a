/**
 * Child process of the outbox crash test: dispatches one event through the real machine host,
 * commits, and is SIGKILLed the moment the host hands the outbox rows to its relay, so nothing
 * is ever published from here. Usage: commit-then-die.child.ts <conversationId> <attentionLineId>
 */
import 'reflect-metadata';
import { createDataSource } from '../../src/database/data-source';
import { MachineHostService } from '../../src/modules/machine-host/machine-host.service';
import type { OutboxRelay } from '../../src/modules/machine-host/outbox-relay.service';
import { loadRealtimeConfig } from '../../src/modules/machine-host/realtime-config';

async function main(): Promise<void> {
  const [conversationId] = process.argv.slice(2);
  const dataSource = createDataSource(process.env.DATABASE_URL!);
  await dataSource.initialize();
  const dyingRelay = {
    kick: (ids: string[]) => {
      process.stdout.write(`committed ${ids.join(',')}\n`, () => process.kill(process.pid, 'SIGKILL'));
    },
  } as unknown as OutboxRelay;
  const host = new MachineHostService(dataSource, dyingRelay, loadRealtimeConfig(process.env));
  await host.dispatch(
    'conversation',
    conversationId,
    { type: 'conversation.menuCompleted', queryTypeId: 'q', submenuId: 's', attentionLineId: process.argv[3], pollId: null },
    { kind: 'customer' },
  );
  // Never reached: the relay hand-off kills the process.
  await new Promise(() => undefined);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
