import { OUTBOUND_SOCKET_EVENTS } from '@centralita/contracts';
import { OutgoingAddressPolicy, type HostLookup } from '@centralita/contracts/server';
import type { CarrierProfile } from '@centralita/domain';
import Redis from 'ioredis';
import { Dialer } from '../../worker/src/dialer/dialer';
import { SIMULATOR_TRUNK } from '../../worker/src/dialer/dialing-route';
import { DrachtioTelephony } from '../../worker/src/telephony/drachtio-telephony';
import { SimulatedCarrier } from '../../worker/src/telephony/simulated-carrier';
import type { CallHandle, OriginateRequest, Telephony } from '../../worker/src/telephony/telephony';
import { FAKE_SDP, FakeDrachtioServer, header, type InviteScript } from '../../worker/src/telephony/testing/fake-drachtio-server';
import { eventually as eventuallyWithin } from '../../../test/support/eventually';
import { createTenant, createUser, type TestTenant } from './support/factories';
import { ALWAYS_OPEN, createPhoneList } from './support/outbound';
import { connectStaff, record as recordEvents, type StaffSocket } from './support/realtime';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

const eventually = <T>(assertion: () => T | Promise<T>) => eventuallyWithin(assertion, { intervalMs: 50, timeoutMs: 20_000 });

/**
 * Where the dialer sends calls (the campaign's trunk, credentials decrypted with the API's key) and
 * where it bridges them (the agent's softphone registration), against the real API, PostgreSQL and
 * Redis: with the carrier simulator, and with the drachtio adapter against the fake drachtio server.
 */
// Own queues, like outbound-dialer.e2e-spec.ts: one consumer applies a call's carrier events in order.
const PREFIX = `${process.env.QUEUE_PREFIX ?? 'centralita'}-dialer-routing`;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DRACHTIO_SECRET = 'cymru';
/**
 * The test network: every *.test carrier and SIP domain is the fake on loopback, which this
 * deployment allows (OUTGOING_ALLOWED_CIDRS=127.0.0.0/8), as an on-premises operator would.
 */
const TEST_NETWORK = ['127.0.0.0/8'];
const testLookup: HostLookup = async (name) => {
  if (!name.endsWith('.test')) throw new Error(`getaddrinfo ENOTFOUND ${name}`);
  return [{ address: '127.0.0.1', family: 4 }];
};
const testNetwork = new OutgoingAddressPolicy({ allowedCidrs: TEST_NETWORK, lookup: testLookup });

/** The simulator, recording what the dialer asked of it. */
class RecordingCarrier implements Telephony {
  readonly originated: OriginateRequest[] = [];
  readonly bridged: { callId: string; uri: string }[] = [];
  constructor(private readonly inner: SimulatedCarrier) {}
  originate(request: OriginateRequest): Promise<CallHandle> {
    this.originated.push(request);
    return this.inner.originate(request);
  }
  async bridge(callId: string, uri: string): Promise<void> {
    await this.inner.bridge(callId, uri);
    this.bridged.push({ callId, uri });
  }
  hangUp(callId: string) {
    return this.inner.hangUp(callId);
  }
  activeCalls() {
    return this.inner.activeCalls();
  }
  close() {
    return this.inner.close();
  }
}

const humansTalkForever: Partial<CarrierProfile> = {
  answerRate: 1,
  machineRate: 0,
  busyRate: 0,
  failedRate: 0,
  ringSec: { min: 0.05, max: 0.1 },
  talkSec: { mean: 3600, sd: 1 },
};

describe('outbound dialer routing: campaign trunks and agent softphones (e2e)', () => {
  let t: TestApp;
  let redis: Redis;
  const dialers: Dialer[] = [];
  const telephonies: Telephony[] = [];
  const fakes: FakeDrachtioServer[] = [];
  const sockets: StaffSocket[] = [];

  beforeAll(async () => {
    // As in outbound-dialer.e2e-spec.ts: this prefix's outbox rows all go by the fast path.
    const poll = process.env.OUTBOX_POLL_MS;
    process.env.OUTBOX_POLL_MS = '3600000';
    t = await startTestApp({ queuePrefix: PREFIX, outgoingAllowedCidrs: TEST_NETWORK }, { ownDatabase: true });
    if (poll === undefined) delete process.env.OUTBOX_POLL_MS;
    else process.env.OUTBOX_POLL_MS = poll;
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    for (const dialer of dialers) await dialer.stop();
    for (const telephony of telephonies) await telephony.close();
    for (const fake of fakes) await fake.close();
    redis.disconnect();
    await t.close();
  });

  function startDialer(
    tenant: TestTenant,
    telephony: Telephony,
    telephonyKind: 'simulator' | 'drachtio',
    log: string[] = [],
    outgoing: OutgoingAddressPolicy = testNetwork,
  ): Dialer {
    telephonies.push(telephony);
    const dialer = new Dialer({
      outgoing,
      dataSource: t.dataSource,
      redis,
      redisUrl: REDIS_URL,
      queuePrefix: PREFIX,
      telephony,
      telephonyKind,
      tickMs: 100,
      ringTimeoutSec: 25,
      maxCallsPerTick: 20,
      tenantIds: [tenant.client.id],
      driver: 'interval',
      log: (message) => log.push(message),
    });
    dialers.push(dialer);
    return dialer;
  }

  const simulator = () => new RecordingCarrier(new SimulatedCarrier({ seed: 11, profile: humansTalkForever, timeFactor: 1 }));

  async function staff(tenant: TestTenant, role: 'ADMIN' | 'AGENT') {
    const { user, email, password } = await createUser(t.dataSource, tenant, { role });
    return { id: user.id, token: (await login(t, email, password)).accessToken };
  }

  /** A tenant with an administrator and an agent. */
  async function scene() {
    const tenant = await createTenant(t.dataSource);
    return { tenant, admin: await staff(tenant, 'ADMIN'), agent: await staff(tenant, 'AGENT') };
  }

  async function trunk(token: string, body: object): Promise<string> {
    const response = await t.http().post('/api/trunks').set(bearer(token)).send(body);
    if (response.status !== 200) throw new Error(JSON.stringify(response.body));
    return response.body.data.id as string;
  }

  async function softphone(adminToken: string, agentId: string, domain: string, authUser: string): Promise<void> {
    await t
      .http()
      .put('/api/softphone/config')
      .set(bearer(adminToken))
      .send({ wsUrl: `wss://${domain}:8443`, domain, iceServers: [] })
      .expect(200);
    await t
      .http()
      .put(`/api/softphone/accounts/${agentId}`)
      .set(bearer(adminToken))
      .send({ extension: '1001', authUser, password: 'sip-secret' })
      .expect(200);
  }

  async function campaign(token: string, body: object): Promise<string> {
    const response = await t.http().post('/api/outbound/campaigns').set(bearer(token)).send(body);
    if (response.status !== 200) throw new Error(JSON.stringify(response.body));
    const id = response.body.data.id as string;
    expect((await t.http().post(`/api/outbound/campaigns/${id}/start`).set(bearer(token))).status).toBe(200);
    return id;
  }

  /** A started progressive campaign, calling at any hour, over a new phone list of these contacts. */
  async function progressiveCampaign(
    tenant: TestTenant,
    token: string,
    contacts: { phone: string; name?: string }[],
    fields: { name: string; trunkId?: string; callerId?: string },
  ): Promise<string> {
    const list = await createPhoneList(t.dataSource, tenant, contacts);
    return campaign(token, { ...fields, phoneListId: list, mode: 'progressive', callingWindows: ALWAYS_OPEN });
  }

  async function waitForCall(token: string): Promise<void> {
    expect((await t.http().post('/api/agent/presence/login').set(bearer(token)).send({})).status).toBe(200);
    expect((await t.http().post('/api/outbound/agent/waiting').set(bearer(token))).status).toBe(200);
  }

  const calls = (campaignId: string) =>
    t.dataSource.query(`SELECT id, phone, status, agent_id FROM outbound_calls WHERE campaign_id = $1 ORDER BY created_at`, [
      campaignId,
    ]) as Promise<{ id: string; phone: string; status: string; agent_id: string | null }[]>;

  it("simulator: dials through the campaign's trunk with its decrypted credentials and caller id, and bridges to the agent's softphone", async () => {
    const { tenant, admin, agent } = await scene();
    const trunkId = await trunk(admin.token, {
      name: 'Carrier',
      host: 'sip.carrier.test',
      port: 5061,
      transport: 'tls',
      username: 'acme',
      password: 'trunk-s3cret',
      callerId: '+34910000001',
      maxConcurrentCalls: 5,
    });
    await softphone(admin.token, agent.id, 'pbx.acme.test', 'ana');
    const id = await progressiveCampaign(tenant, admin.token, [{ phone: '+34912000101', name: 'Contact' }], { name: 'Trunked', trunkId });
    const carrier = simulator();
    await startDialer(tenant, carrier, 'simulator').start();
    await waitForCall(agent.token);

    await eventually(async () => expect((await calls(id)).map((call) => call.status)).toEqual(['connected']));
    expect(carrier.originated).toHaveLength(1);
    expect(carrier.originated[0]).toMatchObject({
      from: '+34910000001',
      to: '+34912000101',
      trunk: { host: 'sip.carrier.test', port: 5061, transport: 'tls', username: 'acme', password: 'trunk-s3cret' },
    });
    const [call] = await calls(id);
    await eventually(() => expect(carrier.bridged).toEqual([{ callId: call.id, uri: 'sip:ana@pbx.acme.test' }]));
  });

  it("keeps to the trunk's call limit across its campaigns", async () => {
    const tenant = await createTenant(t.dataSource);
    const admin = await staff(tenant, 'ADMIN');
    const agents = [await staff(tenant, 'AGENT'), await staff(tenant, 'AGENT'), await staff(tenant, 'AGENT')];
    const trunkId = await trunk(admin.token, { name: 'Small', host: 'sip.small.test', callerId: '+34910000009', maxConcurrentCalls: 2 });
    const lists = [
      await createPhoneList(t.dataSource, tenant, [{ phone: '+34912000601' }, { phone: '+34912000602' }], 'A'),
      await createPhoneList(t.dataSource, tenant, [{ phone: '+34912000603' }, { phone: '+34912000604' }], 'B'),
    ];
    const ids = [
      await campaign(admin.token, { name: 'A', phoneListId: lists[0], mode: 'progressive', callingWindows: ALWAYS_OPEN, trunkId }),
      await campaign(admin.token, { name: 'B', phoneListId: lists[1], mode: 'progressive', callingWindows: ALWAYS_OPEN, trunkId }),
    ];
    const carrier = simulator();
    await startDialer(tenant, carrier, 'simulator').start();
    for (const agent of agents) await waitForCall(agent.token);
    await eventually(async () => {
      const all = [...(await calls(ids[0])), ...(await calls(ids[1]))];
      expect(all.filter((call) => call.status === 'connected')).toHaveLength(2);
    });
    // A third agent waits, but the trunk carries two calls at most.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(carrier.originated).toHaveLength(2);
    expect([...(await calls(ids[0])), ...(await calls(ids[1]))]).toHaveLength(2);
  });

  it("a preview dial waits for a free line on the campaign's trunk, then takes the first one that frees", async () => {
    const tenant = await createTenant(t.dataSource);
    const admin = await staff(tenant, 'ADMIN');
    const [talking, previewing] = [await staff(tenant, 'AGENT'), await staff(tenant, 'AGENT')];
    const trunkId = await trunk(admin.token, { name: 'One line', host: 'sip.one.test', callerId: '+34910000010', maxConcurrentCalls: 1 });
    const busy = await progressiveCampaign(tenant, admin.token, [{ phone: '+34912000701' }], { name: 'Busy', trunkId });
    const previewList = await createPhoneList(t.dataSource, tenant, [{ phone: '+34912000702', name: 'Preview contact' }], 'P');
    const preview = await campaign(admin.token, {
      name: 'Preview',
      phoneListId: previewList,
      mode: 'preview',
      callingWindows: ALWAYS_OPEN,
      trunkId,
    });
    const carrier = simulator();
    const log: string[] = [];
    const dialer = startDialer(tenant, carrier, 'simulator', log);
    await dialer.start();
    // The progressive campaign's call holds the trunk's only line.
    await waitForCall(talking.token);
    await eventually(async () => expect((await calls(busy)).map((call) => call.status)).toEqual(['connected']));

    expect((await t.http().post('/api/agent/presence/login').set(bearer(previewing.token)).send({})).status).toBe(200);
    const desk = await connectStaff(t.url, previewing.token);
    sockets.push(desk);
    const pushes = recordEvents(desk);
    const previewed = (await t.http().post('/api/outbound/agent/preview').set(bearer(previewing.token))).body.data as { callId: string };
    expect((await t.http().post(`/api/outbound/agent/preview/${previewed.callId}/dial`).set(bearer(previewing.token))).status).toBe(200);
    // The dialer sees the request and holds it: nothing placed beyond the trunk's one line.
    await eventually(() => expect(dialer.previewsAwaitingLine.get(previewed.callId)).toBe(trunkId));
    // Logged once the wait is recorded on the contact, a statement after the dialer holds the call.
    await eventually(() =>
      expect(log).toContainEqual(`preview call ${previewed.callId} waits for a line on trunk ${trunkId} (1 of 1 in use)`),
    );
    expect(carrier.originated.map((call) => call.to)).toEqual(['+34912000701']);
    expect(await calls(preview)).toEqual([]);
    // The agent's desk is told, by a push and on asking again.
    const linePushes = () => pushes.filter((push) => push.event === OUTBOUND_SOCKET_EVENTS.preview).map((push) => push.data);
    await eventually(() =>
      expect(linePushes()).toEqual([{ callId: previewed.callId, waitingForLineSince: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) }]),
    );
    const since = (linePushes()[0] as { waitingForLineSince: string }).waitingForLineSince;
    const again = (await t.http().post('/api/outbound/agent/preview').set(bearer(previewing.token))).body.data;
    expect(again).toMatchObject({ callId: previewed.callId, dialRequested: true, waitingForLineSince: since });

    // The first call ends: the waiting preview call takes the line.
    const [first] = await calls(busy);
    await t.http().post(`/api/outbound/calls/${first.id}/hangup`).set(bearer(talking.token)).expect(200);
    await eventually(async () =>
      expect(await calls(preview)).toEqual([
        expect.objectContaining({ id: previewed.callId, status: 'connected', agent_id: previewing.id }),
      ]),
    );
    expect(carrier.originated.map((call) => call.to)).toEqual(['+34912000701', '+34912000702']);
    expect(dialer.previewsAwaitingLine.has(previewed.callId)).toBe(false);
    // The desk hears that the call has its line now.
    await eventually(() => expect(linePushes().at(-1)).toEqual({ callId: previewed.callId, waitingForLineSince: null }));
    const [contact] = (await t.dataSource.query(`SELECT preview_line_wait_since FROM outbound_contacts WHERE active_call_id = $1`, [
      previewed.callId,
    ])) as { preview_line_wait_since: Date | null }[];
    expect(contact.preview_line_wait_since).toBeNull();
  });

  it('simulator: a campaign without a trunk still dials, through the simulator trunk', async () => {
    const { tenant, admin, agent } = await scene();
    const id = await progressiveCampaign(tenant, admin.token, [{ phone: '+34912000201' }], { name: 'No trunk', callerId: '+34910000002' });
    const carrier = simulator();
    await startDialer(tenant, carrier, 'simulator').start();
    await waitForCall(agent.token);
    await eventually(async () => expect((await calls(id)).map((call) => call.status)).toEqual(['connected']));
    expect(carrier.originated[0]).toMatchObject({ from: '+34910000002', trunk: SIMULATOR_TRUNK });
    // Simulated agents do not register: without a softphone account the simulator records a placeholder.
    await eventually(() => expect(carrier.bridged).toEqual([{ callId: expect.any(String), uri: `sip:${agent.id}@agents.invalid` }]));
  });

  it('drachtio: a campaign without a trunk dials nothing and the dialer says why', async () => {
    const { tenant, admin, agent } = await scene();
    const id = await progressiveCampaign(tenant, admin.token, [{ phone: '+34912000301' }], { name: 'No trunk', callerId: '+34910000003' });
    const carrier = simulator();
    const log: string[] = [];
    const dialer = startDialer(tenant, carrier, 'drachtio', log);
    await dialer.start();
    await waitForCall(agent.token);
    await eventually(() => expect(dialer.refusals.get(id)).toBe('dialer.noTrunk'));
    // Several ticks later: still nothing reserved or dialled, and the reason logged once.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await calls(id)).toEqual([]);
    expect(carrier.originated).toEqual([]);
    const [contact] = (await t.dataSource.query(`SELECT attempts, active_call_id FROM outbound_contacts WHERE campaign_id = $1`, [id])) as {
      attempts: number;
      active_call_id: string | null;
    }[];
    expect(contact).toEqual({ attempts: 0, active_call_id: null });
    expect(log.filter((line) => line.includes('dialer.noTrunk'))).toEqual([expect.stringContaining(`campaign ${id} not dialled`)]);
  });

  it('drachtio: a trunk whose host resolves to a refused address dials nothing and the dialer says why', async () => {
    const { tenant, admin, agent } = await scene();
    // Saved while the name was harmless; now it resolves to loopback, which this deployment does not allow.
    const trunkId = await trunk(admin.token, { name: 'Rebound', host: 'rebind.test', callerId: '+34910000006', maxConcurrentCalls: 2 });
    const id = await progressiveCampaign(tenant, admin.token, [{ phone: '+34912000601' }], { name: 'Refused host', trunkId });
    const carrier = simulator();
    const log: string[] = [];
    const dialer = startDialer(tenant, carrier, 'drachtio', log, new OutgoingAddressPolicy({ lookup: testLookup }));
    await dialer.start();
    await waitForCall(agent.token);
    await eventually(() => expect(dialer.refusals.get(id)).toBe('dialer.trunkAddressRefused'));
    expect(await calls(id)).toEqual([]);
    expect(carrier.originated).toEqual([]);
    const [contact] = (await t.dataSource.query(`SELECT attempts FROM outbound_contacts WHERE campaign_id = $1`, [id])) as {
      attempts: number;
    }[];
    expect(contact.attempts).toBe(0);
    expect(log).toContainEqual(
      expect.stringContaining('rebind.test (127.0.0.1) is a loopback address: outgoing connections to it are refused'),
    );
  });

  it('drachtio: an agent without a softphone account cannot be bridged; the contact is hung up and the call goes to wrap-up', async () => {
    const { tenant, admin, agent } = await scene();
    const trunkId = await trunk(admin.token, {
      name: 'Carrier',
      host: 'sip.carrier.test',
      callerId: '+34910000004',
      maxConcurrentCalls: 2,
    });
    const id = await progressiveCampaign(tenant, admin.token, [{ phone: '+34912000401' }], { name: 'No softphone', trunkId });
    const carrier = simulator();
    const log: string[] = [];
    const dialer = startDialer(tenant, carrier, 'drachtio', log);
    await dialer.start();
    await waitForCall(agent.token);

    await eventually(async () => expect((await calls(id)).map((call) => call.status)).toEqual(['wrapUp']));
    const [call] = await calls(id);
    expect(call.agent_id).toBe(agent.id);
    expect(dialer.bridgeFailures.get(call.id)).toBe('dialer.noSoftphoneAccount');
    expect(carrier.bridged).toEqual([]);
    expect(carrier.originated[0]).toMatchObject({
      from: '+34910000004',
      trunk: { host: 'sip.carrier.test', port: 5060, transport: 'udp' },
    });
    expect(log).toContainEqual(
      expect.stringMatching(new RegExp(`call ${call.id}: bridge to the agent failed \\(dialer.noSoftphoneAccount\\)`)),
    );
    // The agent dispositions the call as usual (UpdDISPO).
    const dispo = await t
      .http()
      .post(`/api/outbound/calls/${call.id}/disposition`)
      .set(bearer(agent.token))
      .send({ disposition: 'notInterested' });
    expect(dispo.body.data).toMatchObject({ status: 'done', disposition: 'notInterested' });
  });

  it("drachtio against a drachtio server: the trunk's digest credentials, and the agent's INVITE names the outbound call", async () => {
    const { tenant, admin, agent } = await scene();
    const agentScript: InviteScript = { responses: [{ status: 200, reason: 'OK', body: FAKE_SDP }] };
    const carrierScript: InviteScript = {
      digest: { realm: 'carrier.test', username: 'acme', password: 'trunk-s3cret' },
      responses: [
        { status: 180, reason: 'Ringing' },
        { status: 200, reason: 'OK', body: FAKE_SDP },
      ],
    };
    const fake = await FakeDrachtioServer.start({
      secret: DRACHTIO_SECRET,
      script: (invite) => (invite.uri!.startsWith('sip:ana@') ? agentScript : carrierScript),
    });
    fakes.push(fake);
    const trunkId = await trunk(admin.token, {
      name: 'Carrier',
      host: '127.0.0.1',
      port: 5080,
      transport: 'udp',
      username: 'acme',
      password: 'trunk-s3cret',
      maxConcurrentCalls: 2,
    });
    await softphone(admin.token, agent.id, 'pbx.acme.test', 'ana');
    const id = await progressiveCampaign(tenant, admin.token, [{ phone: '+34912000501', name: 'Contact' }], {
      name: 'Real carrier',
      trunkId,
      callerId: '+34910000005',
    });
    const telephony = await DrachtioTelephony.connect({
      host: '127.0.0.1',
      port: fake.port,
      secret: DRACHTIO_SECRET,
      outgoing: testNetwork,
      resolveSrv: async () => [],
    });
    await startDialer(tenant, telephony, 'drachtio').start();
    await waitForCall(agent.token);

    await eventually(async () => expect((await calls(id)).map((call) => call.status)).toEqual(['connected']));
    const [call] = await calls(id);
    const [contactLeg, agentLeg] = await fake.until(() => fake.calls.length === 2 && fake.calls, 10_000);
    expect(contactLeg.invite.uri).toBe('sip:+34912000501@127.0.0.1:5080;transport=udp');
    expect(header(contactLeg.invite, 'From')).toMatch(/^<?sip:\+34910000005@/);
    expect(contactLeg.authorization).toMatch(/^Digest .*username="acme"/);
    expect(agentLeg.invite.uri).toBe('sip:ana@pbx.acme.test');
    // Each INVITE went to the address the outgoing-address policy checked, not to a name resolved again.
    const targets = fake.frames.filter((frame) => frame.kind === 'sip' && frame.sip?.method === 'INVITE').map((frame) => frame.leader[4]);
    expect(targets.slice(0, 1)).toEqual(['sip:127.0.0.1:5080;transport=udp']);
    expect(targets).toContain('sip:127.0.0.1:5060');
    expect(header(agentLeg.invite, 'X-Outbound-Call-Id')).toBe(call.id);
    expect(header(agentLeg.invite, 'From')).toMatch(/^<?sip:\+34912000501@/);
    await fake.until(() => contactLeg.reInvites.length === 1, 5000);

    // The agent hangs up in the console: the dialer ends both legs.
    await t.http().post(`/api/outbound/calls/${call.id}/hangup`).set(bearer(agent.token)).expect(200);
    await fake.until(() => contactLeg.byesReceived.length === 1 && agentLeg.byesReceived.length === 1, 10_000);
    expect(fake.protocolErrors).toEqual([]);
  });
});
