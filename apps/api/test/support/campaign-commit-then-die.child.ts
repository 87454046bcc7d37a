/**
 * Child process of the campaign timer crash test: steps one campaign through the real outbound
 * campaign host, commits, and is SIGKILLed the moment the transaction hands its effects over after
 * commit (the outbox relay's kick, or any timer enqueue), so nothing it would do after commit is done.
 * Usage: campaign-commit-then-die.child.ts <campaignId> schedule <startInMs> <endInMs>
 *          (schedules a window from now + startInMs to now + endInMs; dies after that commit)
 *        campaign-commit-then-die.child.ts <campaignId> start <endInMs>
 *          (schedules a window ending at now + endInMs, then a supervisor starts the campaign at once;
 *           dies after the start's commit). Prints "committed <startsAt> <endsAt>" before dying.
 */
import 'reflect-metadata';
import { createDataSource } from '../../src/database/data-source';
import { MachineHostService } from '../../src/modules/machine-host/machine-host.service';
import type { OutboxRelay } from '../../src/modules/machine-host/outbox-relay.service';
import { loadRealtimeConfig } from '../../src/modules/machine-host/realtime-config';
import { CampaignHostService } from '../../src/modules/outbound/campaign-host.service';
import type { OutboundQueues } from '../../src/modules/outbound/outbound-queues.service';
import { OutboundTransactions } from '../../src/modules/outbound/outbound-transaction.service';

let window = { startsAt: 0, endsAt: 0 };
/** Only the step under test dies; the setup step before it commits and hands over normally. */
let armed = false;

function die(): void {
  if (!armed) return;
  process.stdout.write(`committed ${window.startsAt} ${window.endsAt}\n`, () => process.kill(process.pid, 'SIGKILL'));
}

async function main(): Promise<void> {
  const [campaignId, action, first, second] = process.argv.slice(2);
  const dataSource = createDataSource(process.env.DATABASE_URL!);
  await dataSource.initialize();
  const dyingRelay = { kick: () => die() } as unknown as OutboxRelay;
  const dyingQueues = { events: { add: () => Promise.resolve(die()) } } as unknown as OutboundQueues;
  const tx = new OutboundTransactions(new MachineHostService(dataSource, dyingRelay, loadRealtimeConfig(process.env)), dyingQueues);
  const campaigns = new CampaignHostService(tx);
  const supervisor = { kind: 'supervisor' as const, id: 'crash-test' };
  const now = Date.now();
  if (action === 'schedule') {
    window = { startsAt: now + Number(first), endsAt: now + Number(second) };
    armed = true;
    await campaigns.dispatchCampaign(campaignId, { type: 'campaign.scheduled', ...window }, supervisor);
  } else {
    // A window whose start the supervisor does not wait for: started at once, it must still end on time.
    window = { startsAt: now + Number(first) - 1, endsAt: now + Number(first) };
    await campaigns.dispatchCampaign(campaignId, { type: 'campaign.scheduled', ...window }, supervisor);
    armed = true;
    await campaigns.dispatchCampaign(campaignId, { type: 'campaign.started' }, supervisor);
  }
  // Never reached: the hand-off after commit kills the process.
  await new Promise(() => undefined);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
