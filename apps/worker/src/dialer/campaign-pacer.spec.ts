import type { CallingWindows } from '@centralita/domain';
import { CampaignPacer } from './campaign-pacer';
import { RecordingReports, RecordingTelephony, recordingPlacer } from './dialer-doubles.fake';
import { FakeDialerRows, type FakeCampaign } from './dialer-rows.fake';

const TENANT = 'tenant-1';
/** A Wednesday, 11:00 in Madrid. */
const MORNING = Date.parse('2026-03-04T10:00:00Z');
/** The same Wednesday, 22:30 in Madrid. */
const NIGHT = Date.parse('2026-03-04T21:30:00Z');
/** Thursday 09:00 in Madrid: the window after NIGHT. */
const THURSDAY_OPENS = Date.parse('2026-03-05T08:00:00Z');
const DAYTIME = { from: '09:00', to: '21:00' };
const EVERY_DAY: CallingWindows = {
  sun: [DAYTIME],
  mon: [DAYTIME],
  tue: [DAYTIME],
  wed: [DAYTIME],
  thu: [DAYTIME],
  fri: [DAYTIME],
  sat: [DAYTIME],
};

function setUp(now = MORNING) {
  const rows = new FakeDialerRows();
  rows.now = () => now;
  const telephony = new RecordingTelephony();
  const reports = new RecordingReports();
  const pacer = new CampaignPacer({
    rows,
    placer: recordingPlacer(rows, telephony, reports),
    reports,
    owner: 'dialer-test',
    maxCallsPerTick: 50,
    now: () => now,
    stopping: () => false,
    log: () => undefined,
  });
  const campaign = (overrides: Partial<FakeCampaign> = {}) =>
    rows.addCampaign({ id: 'campaign-1', tenant_id: TENANT, calling_windows: EVERY_DAY, ...overrides });
  const contacts = (campaignId: string, count: number) => {
    for (let index = 1; index <= count; index++)
      rows.addContact({
        id: `${campaignId}-contact-${index}`,
        campaign_id: campaignId,
        phone: `+3460000${String(index).padStart(4, '0')}`,
      });
  };
  const waitingAgents = (count: number) => {
    for (let index = 1; index <= count; index++)
      rows.addAgent({ user_id: `agent-${index}`, tenant_id: TENANT, status: 'waitingOutboundCall' });
  };
  return { rows, telephony, reports, pacer, campaign, contacts, waitingAgents };
}

describe(CampaignPacer.name, () => {
  it('dials one contact per waiting agent in a progressive campaign inside its calling window', async () => {
    const { rows, telephony, reports, pacer, campaign, contacts, waitingAgents } = setUp();
    const running = campaign({ mode: 'progressive', idle_reason: 'noAgentWaiting' });
    contacts(running.id, 5);
    waitingAgents(2);
    rows.addAgent({ user_id: 'agent-paused', tenant_id: TENANT, status: 'paused' });

    await pacer.pace(running);

    expect(telephony.originated.map((call) => call.to)).toEqual(['+34600000001', '+34600000002']);
    const reserved = rows.reservedContacts(running.id);
    expect(reserved.map((contact) => [contact.id, contact.attempts, contact.dialer_owner])).toEqual([
      ['campaign-1-contact-1', 1, 'dialer-test'],
      ['campaign-1-contact-2', 1, 'dialer-test'],
    ]);
    // Each call is reported to the API under the id it was reserved with, then originated with it.
    expect(reports.ofKind('create').map((job) => job.callId)).toEqual(reserved.map((contact) => contact.active_call_id));
    expect(telephony.originated.map((call) => call.callId)).toEqual(reserved.map((contact) => contact.active_call_id));
    expect(rows.campaigns.get(running.id)!.idle_reason).toBeNull();
  });

  it('dials ahead of the waiting agents by the answer rate in a predictive campaign', async () => {
    const { rows, telephony, pacer, campaign, contacts, waitingAgents } = setUp();
    const running = campaign({ mode: 'predictive' });
    contacts(running.id, 10);
    waitingAgents(2);
    // 40 resolved attempts, 20 answered by a person and none abandoned: two lines per agent.
    for (let index = 0; index < 40; index++)
      rows.addCall({ id: `past-${index}`, campaign_id: running.id, status: index < 20 ? 'done' : 'noAnswer' });

    await pacer.pace(running);

    expect(telephony.originated).toHaveLength(4);
    expect(rows.reservedContacts(running.id)).toHaveLength(4);
  });

  it('dials nothing outside the calling window and records why until the window opens', async () => {
    const { rows, telephony, reports, pacer, campaign, contacts, waitingAgents } = setUp(NIGHT);
    const running = campaign();
    contacts(running.id, 3);
    waitingAgents(2);

    await pacer.pace(running);

    expect(telephony.originated).toEqual([]);
    expect(rows.reservedContacts(running.id)).toEqual([]);
    const { idle_reason, idle_until } = rows.campaigns.get(running.id)!;
    expect({ idle_reason, idle_until }).toEqual({ idle_reason: 'outsideCallingWindow', idle_until: new Date(THURSDAY_OPENS) });
    expect(reports.idle).toEqual([running.id]);
  });

  it('tells the API about an idle reason only when it changes', async () => {
    const { rows, reports, pacer, campaign, contacts, waitingAgents } = setUp(NIGHT);
    const running = campaign();
    contacts(running.id, 1);
    waitingAgents(1);

    await pacer.pace(running);
    await pacer.pace(running);

    expect(rows.idleWrites).toHaveLength(1);
    expect(reports.idle).toEqual([running.id]);
  });

  it('reopens the contact of a callback that came due for one more attempt', async () => {
    const { rows, telephony, pacer, campaign, waitingAgents } = setUp();
    const running = campaign({ max_attempts: 3 });
    waitingAgents(2);
    rows.addContact({ id: 'called-back', campaign_id: running.id, phone: '+34600000001', finished: true, attempts: 3 });
    rows.addContact({ id: 'later', campaign_id: running.id, phone: '+34600000002', finished: true, attempts: 1 });
    rows.addCallback({ contact_id: 'called-back', campaign_id: running.id, status: 'pending', due_at: MORNING - 60_000 });
    rows.addCallback({ contact_id: 'later', campaign_id: running.id, status: 'pending', due_at: MORNING + 3_600_000 });

    await pacer.pace(running);

    expect(telephony.originated.map((call) => call.to)).toEqual(['+34600000001']);
    expect(rows.contacts.get('called-back')).toMatchObject({ finished: false, attempts: 3 });
    expect(rows.contacts.get('later')).toMatchObject({ finished: true, active_call_id: null });
    expect(rows.callbacks.map((callback) => callback.status)).toEqual(['dialed', 'pending']);
  });

  it('holds calls back when the trunk is at its channel limit', async () => {
    const { rows, telephony, pacer, campaign, contacts, waitingAgents } = setUp();
    rows.addTrunk(TENANT, 'trunk-1', {
      status: 'found',
      trunk: {
        id: 'trunk-1',
        sip: { host: 'sip.carrier.test', port: 5060, transport: 'udp' },
        callerId: '+34910000000',
        maxConcurrentCalls: 2,
      },
    });
    const running = campaign({ trunk_id: 'trunk-1' });
    // Another campaign of the tenant holds both lines of the same trunk.
    const other = campaign({ id: 'campaign-2', trunk_id: 'trunk-1' });
    rows.addContact({ id: 'other-1', campaign_id: other.id, phone: '+34700000001', active_call_id: 'call-a', dialer_owner: 'dialer-x' });
    rows.addContact({ id: 'other-2', campaign_id: other.id, phone: '+34700000002', active_call_id: 'call-b', dialer_owner: 'dialer-x' });
    rows.addCall({ id: 'call-b', campaign_id: other.id, status: 'connected' });
    contacts(running.id, 3);
    waitingAgents(3);

    await pacer.pace(running);

    expect(telephony.originated).toEqual([]);
    expect(rows.campaigns.get(running.id)!.idle_reason).toBe('trunkBusy');

    // One line frees: one call goes out, on the campaign's trunk, whatever the agents could take.
    rows.calls.get('call-b')!.status = 'done';
    await pacer.pace(running);

    expect(telephony.originated).toHaveLength(1);
    expect(telephony.originated[0]).toMatchObject({ from: '+34910000000', trunk: { host: 'sip.carrier.test' } });
    expect(rows.campaigns.get(running.id)!.idle_reason).toBeNull();
  });

  it('reports a campaign with no contact left as exhausted', async () => {
    const { rows, reports, pacer, campaign, waitingAgents } = setUp();
    const running = campaign();
    waitingAgents(1);
    rows.addContact({ id: 'done-1', campaign_id: running.id, phone: '+34600000001', finished: true, attempts: 1 });

    await pacer.pace(running);

    expect(reports.exhausted).toEqual([running.id]);
    expect(rows.campaigns.get(running.id)!.idle_reason).toBe('noContactDue');
  });

  it('does not report a campaign exhausted while a callback is pending', async () => {
    const { rows, reports, pacer, campaign, waitingAgents } = setUp();
    const running = campaign();
    waitingAgents(1);
    rows.addContact({ id: 'done-1', campaign_id: running.id, phone: '+34600000001', finished: true, attempts: 1 });
    rows.addCallback({ contact_id: 'done-1', campaign_id: running.id, status: 'pending', due_at: MORNING + 3_600_000 });

    await pacer.pace(running);

    expect(reports.exhausted).toEqual([]);
    const { idle_reason, idle_until } = rows.campaigns.get(running.id)!;
    expect({ idle_reason, idle_until }).toEqual({ idle_reason: 'noContactDue', idle_until: new Date(MORNING + 3_600_000) });
  });

  it('records that no agent waits when nobody can take a call', async () => {
    const { rows, telephony, pacer, campaign, contacts } = setUp();
    const running = campaign();
    contacts(running.id, 2);

    await pacer.pace(running);

    expect(telephony.originated).toEqual([]);
    expect(rows.campaigns.get(running.id)!.idle_reason).toBe('noAgentWaiting');
  });
});
