import { spawn } from 'node:child_process';
import path from 'node:path';
import type { DialerCampaignView, Envelope } from '@centralita/contracts';
import { eventually } from '../../../test/support/eventually';
import { twoTenants, type TwoTenants } from './support/factories';
import { ALWAYS_OPEN, createPhoneList } from './support/outbound';
import { bearer, startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(60_000);

function runChild(args: string[]): Promise<{ signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ['-r', path.join(__dirname, 'support/register-ts.cjs'), path.join(__dirname, 'support/campaign-commit-then-die.child.ts'), ...args],
    { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (_code, signal) => resolve({ signal, stdout, stderr })));
}

interface LogRow {
  from_state: string;
  to_state: string;
  event: string;
  actor_kind: string;
  at_ms: string;
  version: number;
}

/** Campaign timers are a deadline on the campaign row, written with the step: a crash after commit cannot lose them. */
describe('campaign start and end timers (issue 18 item 1)', () => {
  let t: TestApp;
  let f: TwoTenants;
  let list: string;

  beforeAll(async () => {
    t = await startTestApp();
    f = await twoTenants(t);
    list = await createPhoneList(t.dataSource, f.tenantA, [{ phone: '+34911000101', name: 'Ana' }]);
  });
  afterAll(() => t.close());

  const draft = async (name: string): Promise<DialerCampaignView> => {
    const response = await t
      .http()
      .post('/api/outbound/campaigns')
      .set(bearer(f.adminA))
      .send({ name, phoneListId: list, mode: 'progressive', callingWindows: ALWAYS_OPEN });
    expect(response.status).toBe(200);
    return (response.body as Envelope<DialerCampaignView>).data!;
  };
  const row = async (id: string) =>
    (
      (await t.dataSource.query(`SELECT status, version, timer_event, timer_at, snapshot FROM dialer_campaigns WHERE id = $1`, [id])) as {
        status: string;
        version: number;
        timer_event: string | null;
        timer_at: string | null;
        snapshot: { context: { endReason: string | null } };
      }[]
    )[0];
  const log = async (id: string) =>
    (await t.dataSource.query(
      `SELECT from_state, to_state, event, actor_kind, at_ms, version FROM transition_log WHERE entity_type = 'dialer_campaign' AND entity_id = $1
        ORDER BY version`,
      [id],
    )) as LogRow[];

  it('starts and ends a scheduled campaign on time though the process that scheduled it died right after commit', async () => {
    const campaign = await draft('Scheduled, then the API died');
    const child = await runChild([campaign.id, 'schedule', '2500', '4500']);
    expect(child.stderr).toBe('');
    expect(child.signal).toBe('SIGKILL');
    const [startsAt, endsAt] = /committed (\d+) (\d+)/.exec(child.stdout)!.slice(1).map(Number);

    // Committed by the dead process, deadline included.
    expect(await row(campaign.id)).toMatchObject({ status: 'scheduled', version: 2, timer_event: 'campaign.startTimeReached' });
    expect(Number((await row(campaign.id)).timer_at)).toBe(startsAt);

    const started = await eventually(
      async () => {
        const entry = (await log(campaign.id)).find((e) => e.event === 'campaign.startTimeReached');
        expect(entry).toBeDefined();
        return entry!;
      },
      { timeoutMs: 15_000 },
    );
    expect(started).toMatchObject({ from_state: 'scheduled', to_state: 'running', actor_kind: 'system', version: 3 });
    // Never early; late by a sweep period, plus the slack of a loaded machine (CI shares two cores with
    // every suite): the bound catches a timer that never fires on its own, not a slow one.
    expect(Number(started.at_ms)).toBeGreaterThanOrEqual(startsAt);
    expect(Number(started.at_ms) - startsAt).toBeLessThan(10_000);

    const ended = await eventually(
      async () => {
        expect(await row(campaign.id)).toMatchObject({ status: 'completed', timer_event: null, timer_at: null });
        return (await log(campaign.id)).at(-1)!;
      },
      { timeoutMs: 15_000 },
    );
    expect(ended).toMatchObject({ from_state: 'running', to_state: 'completed', event: 'campaign.endTimeReached', version: 4 });
    expect(Number(ended.at_ms)).toBeGreaterThanOrEqual(endsAt);
    expect((await row(campaign.id)).snapshot.context.endReason).toBe('windowEnded');
    // Fired once: nothing after it.
    expect((await log(campaign.id)).map((e) => e.event)).toEqual([
      'xstate.init',
      'campaign.scheduled',
      'campaign.startTimeReached',
      'campaign.endTimeReached',
    ]);
  });

  it('ends on time a campaign a supervisor started by a process that died right after commit', async () => {
    const campaign = await draft('Started, then the API died');
    const child = await runChild([campaign.id, 'start', '3000']);
    expect(child.stderr).toBe('');
    expect(child.signal).toBe('SIGKILL');
    const endsAt = Number(/committed \d+ (\d+)/.exec(child.stdout)![1]);
    expect(await row(campaign.id)).toMatchObject({ status: 'running', timer_event: 'campaign.endTimeReached' });

    const ended = await eventually(
      async () => {
        expect((await row(campaign.id)).status).toBe('completed');
        return (await log(campaign.id)).at(-1)!;
      },
      { timeoutMs: 15_000 },
    );
    expect(ended).toMatchObject({ from_state: 'running', to_state: 'completed', event: 'campaign.endTimeReached', actor_kind: 'system' });
    expect(Number(ended.at_ms)).toBeGreaterThanOrEqual(endsAt);
    expect(Number(ended.at_ms) - endsAt).toBeLessThan(10_000);
  });

  it('drops the timer with the state it guarded: an unscheduled or cancelled campaign never fires', async () => {
    const campaign = await draft('Scheduled, then cancelled');
    const from = new Date(Date.now() + 1500).toISOString();
    await t.http().put(`/api/outbound/campaigns/${campaign.id}`).set(bearer(f.adminA)).send({ scheduleFrom: from });
    expect((await t.http().post(`/api/outbound/campaigns/${campaign.id}/schedule`).set(bearer(f.adminA))).body.data.status).toBe(
      'scheduled',
    );
    expect((await row(campaign.id)).timer_event).toBe('campaign.startTimeReached');
    expect((await t.http().post(`/api/outbound/campaigns/${campaign.id}/cancel`).set(bearer(f.adminA))).body.data.status).toBe('cancelled');
    expect(await row(campaign.id)).toMatchObject({ timer_event: null, timer_at: null });
  });
});
