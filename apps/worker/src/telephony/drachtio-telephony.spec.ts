import { OutgoingAddressPolicy, type HostLookup } from '@centralita/contracts/server';
import { DrachtioTelephony, type DrachtioTelephonyOptions } from './drachtio-telephony';
import { FAKE_SDP, FakeDrachtioServer, header, type InviteScript } from './testing/fake-drachtio-server';
import type { OriginateRequest, TelephonyEvent } from './telephony';

const SECRET = 'cymru';
let sequence = 0;

describe(DrachtioTelephony.name, () => {
  let fake: FakeDrachtioServer;
  let telephony: DrachtioTelephony | undefined;
  let script: (uri: string) => InviteScript;

  const request = (overrides: Partial<OriginateRequest> = {}): OriginateRequest => ({
    callId: `call-${++sequence}`,
    tenantId: 'tenant-1',
    from: '+34910000000',
    to: '+34911234567',
    trunk: { host: '127.0.0.1', port: 5080, transport: 'udp' },
    ringTimeoutSec: 30,
    amd: false,
    ...overrides,
  });
  // The fake carrier and agents live on loopback: allowed explicitly, as an operator would (OUTGOING_ALLOWED_CIDRS).
  const loopbackAllowed = new OutgoingAddressPolicy({ allowedCidrs: ['127.0.0.0/8'] });
  const connect = async (options: Partial<DrachtioTelephonyOptions> = {}) =>
    (telephony = await DrachtioTelephony.connect({
      host: '127.0.0.1',
      port: fake.port,
      secret: SECRET,
      outgoing: loopbackAllowed,
      ...options,
    }));
  /** The destination drachtio was told to send each INVITE to (the `|proxy` field of its `sip` frame). */
  const inviteTargets = () =>
    fake.frames.filter((frame) => frame.kind === 'sip' && frame.sip?.method === 'INVITE').map((frame) => frame.leader[4]);
  const lookupFrom =
    (table: Record<string, string[]>): HostLookup =>
    async (name) => {
      if (!table[name]) throw new Error(`getaddrinfo ENOTFOUND ${name}`);
      return table[name].map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
  const types = (events: readonly TelephonyEvent[]) => events.map((event) => event.type);

  beforeEach(async () => {
    script = () => ({
      responses: [
        { status: 180, reason: 'Ringing' },
        { status: 200, reason: 'OK', body: FAKE_SDP },
      ],
    });
    fake = await FakeDrachtioServer.start({ secret: SECRET, script: (invite) => script(invite.uri!) });
  });
  afterEach(async () => {
    await telephony?.close();
    telephony = undefined;
    await fake.close();
    expect(fake.protocolErrors).toEqual([]);
  });

  it('authenticates with the secret over the framed control protocol', async () => {
    await connect();
    expect(fake.frames[0]).toMatchObject({ kind: 'authenticate', leader: [expect.any(String), 'authenticate', SECRET, ''] });
  });

  it('refuses a wrong secret with a clear error', async () => {
    const attempt = DrachtioTelephony.connect({ host: '127.0.0.1', port: fake.port, secret: 'wrong' });
    await expect(attempt).rejects.toMatchObject({ code: 'telephony.connection' });
    await expect(attempt).rejects.toThrow(/refused the connection.*DRACHTIO_SECRET/);
    expect(fake.authFailures).toEqual(['wrong']);
    await fake.until(() => fake.connections === 0);
  });

  it('sends the INVITE to the number at the trunk with the caller id', async () => {
    await connect();
    const handle = await telephony!.originate(request({ trunk: { host: '127.0.0.1', port: 5080, transport: 'tcp' } }));
    await handle.waitFor('answered');
    const [call] = fake.calls;
    expect(call.invite.uri).toBe('sip:+34911234567@127.0.0.1:5080;transport=tcp');
    expect(header(call.invite, 'From')).toMatch(/^<?sip:\+34910000000@/);
    expect(header(call.invite, 'P-Asserted-Identity')).toBe('<sip:+34910000000@127.0.0.1>');
    expect(header(call.invite, 'X-Centralita-Call-Id')).toBe(handle.callId);
  });

  it('reports 180 → 200 as ringing then answered, and a remote BYE as hungUp', async () => {
    await connect();
    const handle = await telephony!.originate(request());
    expect(await handle.waitFor('answered')).toMatchObject({ by: 'human' });
    const [call] = fake.calls;
    await fake.until(() => call.acks.length === 1);
    expect(telephony!.activeCalls()).toEqual([expect.objectContaining({ callId: handle.callId, answered: true })]);
    const answer = await fake.sendBye(call);
    expect(answer.status).toBe(200);
    expect(await handle.done).toMatchObject({ type: 'hungUp', by: 'remote' });
    expect(types(handle.events)).toEqual(['ringing', 'answered', 'hungUp']);
    expect(telephony!.activeCalls()).toEqual([]);
  });

  it('reports 183 Session Progress as ringing', async () => {
    script = () => ({
      responses: [
        { status: 183, reason: 'Session Progress' },
        { status: 486, reason: 'Busy Here' },
      ],
    });
    await connect();
    const handle = await telephony!.originate(request());
    await handle.done;
    expect(types(handle.events)).toEqual(['ringing', 'busy']);
  });

  it('reports 486 as busy', async () => {
    script = () => ({ responses: [{ status: 486, reason: 'Busy Here' }] });
    await connect();
    const handle = await telephony!.originate(request());
    expect(await handle.done).toMatchObject({ type: 'busy' });
    expect(types(handle.events)).toEqual(['busy']);
  });

  it('reports 600 as busy', async () => {
    script = () => ({ responses: [{ status: 600, reason: 'Busy Everywhere' }] });
    await connect();
    expect(await (await telephony!.originate(request())).done).toMatchObject({ type: 'busy' });
  });

  it('reports 503 as failed with the SIP status', async () => {
    script = () => ({ responses: [{ status: 503, reason: 'Service Unavailable' }] });
    await connect();
    const handle = await telephony!.originate(request());
    expect(await handle.done).toEqual({ type: 'failed', reason: 'Service Unavailable', sipStatus: 503, at: expect.any(Number) });
  });

  it('reports 480 as no answer', async () => {
    script = () => ({
      responses: [
        { status: 180, reason: 'Ringing' },
        { status: 480, reason: 'Temporarily Unavailable' },
      ],
    });
    await connect();
    const handle = await telephony!.originate(request());
    await handle.done;
    expect(types(handle.events)).toEqual(['ringing', 'noAnswer']);
  });

  it('cancels at the ring timeout and reports no answer', async () => {
    script = () => ({ responses: [{ status: 180, reason: 'Ringing' }] });
    await connect();
    const handle = await telephony!.originate(request({ ringTimeoutSec: 0.2 }));
    expect(await handle.done).toMatchObject({ type: 'noAnswer' });
    expect(fake.calls[0].cancels).toHaveLength(1);
    expect(types(handle.events)).toEqual(['ringing', 'noAnswer']);
  });

  it('sends a BYE when hanging up an answered call', async () => {
    await connect();
    const handle = await telephony!.originate(request());
    await handle.waitFor('answered');
    await telephony!.hangUp(handle.callId);
    expect(await handle.done).toMatchObject({ type: 'hungUp', by: 'local' });
    expect(fake.calls[0].byesReceived).toHaveLength(1);
    expect(fake.calls[0].state).toBe('ended');
    expect(telephony!.activeCalls()).toEqual([]);
  });

  it('sends a CANCEL when hanging up a ringing call', async () => {
    script = () => ({ responses: [{ status: 180, reason: 'Ringing' }] });
    await connect();
    const handle = await telephony!.originate(request());
    await handle.waitFor('ringing');
    await telephony!.hangUp(handle.callId);
    expect(await handle.done).toMatchObject({ type: 'hungUp', by: 'local' });
    await fake.until(() => fake.calls[0].state === 'cancelled');
    expect(fake.calls[0].cancels).toHaveLength(1);
  });

  it('answers the trunk digest challenge with the trunk credentials', async () => {
    script = () => ({
      digest: { realm: 'carrier.test', username: 'acme', password: 's3cret' },
      responses: [{ status: 200, reason: 'OK', body: FAKE_SDP }],
    });
    await connect();
    const handle = await telephony!.originate(
      request({ trunk: { host: '127.0.0.1', port: 5080, transport: 'udp', username: 'acme', password: 's3cret' } }),
    );
    await handle.waitFor('answered');
    expect(fake.calls[0].authorization).toMatch(/^Digest .*username="acme"/);
  });

  it('fails with 403 when the trunk credentials are wrong', async () => {
    script = () => ({
      digest: { realm: 'carrier.test', username: 'acme', password: 's3cret' },
      responses: [{ status: 200, reason: 'OK', body: FAKE_SDP }],
    });
    await connect();
    const handle = await telephony!.originate(
      request({ trunk: { host: '127.0.0.1', port: 5080, transport: 'udp', username: 'acme', password: 'nope' } }),
    );
    expect(await handle.done).toMatchObject({ type: 'failed', sipStatus: 403 });
  });

  it('reads answering-machine detection from X-AMD-Result when AMD was asked for', async () => {
    script = () => ({ responses: [{ status: 200, reason: 'OK', body: FAKE_SDP, headers: { 'X-AMD-Result': 'machine' } }] });
    await connect();
    const handle = await telephony!.originate(request({ amd: true }));
    expect(await handle.waitFor('answered')).toMatchObject({ by: 'machine' });
    expect(header(fake.calls[0].invite, 'X-AMD')).toBe('on');
  });

  it('bridges an answered call to the agent by INVITE and a re-INVITE of the contact', async () => {
    await connect();
    const handle = await telephony!.originate(request());
    await handle.waitFor('answered');
    await telephony!.bridge(handle.callId, 'sip:agent-7@127.0.0.1:5090');
    const [contact, agent] = fake.calls;
    expect(agent.invite.uri).toBe('sip:agent-7@127.0.0.1:5090');
    expect(agent.invite.body).toBe(FAKE_SDP);
    // The softphone recognises the dialer's call by this header, and shows the contact's number.
    expect(header(agent.invite, 'X-Outbound-Call-Id')).toBe(handle.callId);
    expect(header(agent.invite, 'From')).toMatch(/^<?sip:\+34911234567@/);
    expect(header(contact.invite, 'X-Outbound-Call-Id')).toBeUndefined();
    expect(contact.reInvites).toHaveLength(1);
    expect(telephony!.activeCalls()[0]).toMatchObject({ bridgedTo: 'sip:agent-7@127.0.0.1:5090' });
    await fake.sendBye(agent);
    expect(await handle.done).toMatchObject({ type: 'hungUp', by: 'local' });
    await fake.until(() => contact.byesReceived.length === 1);
  });

  it('refuses the bridge when the agent does not answer and keeps the contact on the line', async () => {
    const contactScript = script;
    script = (uri) => (uri.startsWith('sip:agent') ? { responses: [{ status: 486, reason: 'Busy Here' }] } : contactScript(uri));
    await connect();
    const handle = await telephony!.originate(request());
    await handle.waitFor('answered');
    await expect(telephony!.bridge(handle.callId, 'sip:agent-7@127.0.0.1:5090')).rejects.toMatchObject({ code: 'telephony.bridgeFailed' });
    expect(handle.ended).toBe(false);
    expect(fake.calls[0].reInvites).toHaveLength(0);
  });
  describe('outgoing addresses', () => {
    it('sends the INVITE to the checked trunk address while the Request-URI keeps the host name', async () => {
      await connect({
        outgoing: new OutgoingAddressPolicy({
          allowedCidrs: ['127.0.0.0/8'],
          lookup: lookupFrom({ 'sip.carrier.example': ['127.0.0.9'] }),
        }),
      });
      const handle = await telephony!.originate(request({ trunk: { host: 'sip.carrier.example', port: 5080, transport: 'tcp' } }));
      await handle.waitFor('answered');
      expect(fake.calls[0].invite.uri).toBe('sip:+34911234567@sip.carrier.example:5080;transport=tcp');
      expect(inviteTargets()).toEqual(['sip:127.0.0.9:5080;transport=tcp']);
    });

    it('uses the address the dialer pinned, checked again, without resolving the name', async () => {
      const lookup = jest.fn(lookupFrom({ 'sip.carrier.example': ['127.0.0.66'] }));
      await connect({ outgoing: new OutgoingAddressPolicy({ allowedCidrs: ['127.0.0.0/8'], lookup }) });
      const handle = await telephony!.originate(
        request({ trunk: { host: 'sip.carrier.example', address: '127.0.0.5', port: 5080, transport: 'udp' } }),
      );
      await handle.waitFor('answered');
      expect(inviteTargets()).toEqual(['sip:127.0.0.5:5080;transport=udp']);
      expect(lookup).not.toHaveBeenCalled();
    });

    it('refuses a trunk that is, or resolves to, a refused address: no INVITE leaves', async () => {
      await connect({ outgoing: new OutgoingAddressPolicy({ lookup: lookupFrom({ 'rebind.example': ['8.8.8.8', '127.0.0.1'] }) }) });
      await expect(telephony!.originate(request({ trunk: { host: '127.0.0.1', port: 5080, transport: 'udp' } }))).rejects.toMatchObject({
        code: 'telephony.addressRefused',
        message: '127.0.0.1 is a loopback address: outgoing connections to it are refused',
      });
      await expect(
        telephony!.originate(request({ trunk: { host: 'rebind.example', port: 5080, transport: 'udp' } })),
      ).rejects.toMatchObject({
        code: 'telephony.addressRefused',
      });
      // A pinned address is checked too: a stale or forged one cannot slip through.
      await expect(
        telephony!.originate(request({ trunk: { host: 'sip.carrier.example', address: '169.254.169.254', port: 5080, transport: 'udp' } })),
      ).rejects.toMatchObject({ code: 'telephony.addressRefused' });
      expect(inviteTargets()).toEqual([]);
      expect(telephony!.activeCalls()).toEqual([]);
    });

    it("finds the agent's SIP server through the domain's SRV record and checks its address", async () => {
      const resolveSrv = jest.fn(async (name: string) =>
        name === '_sip._udp.pbx.acme.example' ? [{ name: 'edge.acme.example', port: 5090, priority: 10, weight: 5 }] : [],
      );
      const lookup = lookupFrom({ 'edge.acme.example': ['127.0.0.7'] });
      await connect({ outgoing: new OutgoingAddressPolicy({ allowedCidrs: ['127.0.0.0/8'], lookup }), resolveSrv });
      const handle = await telephony!.originate(request());
      await handle.waitFor('answered');
      await telephony!.bridge(handle.callId, 'sip:agent-7@pbx.acme.example');
      expect(fake.calls[1].invite.uri).toBe('sip:agent-7@pbx.acme.example');
      expect(inviteTargets()).toEqual(['sip:127.0.0.1:5080;transport=udp', 'sip:127.0.0.7:5090;transport=udp']);
    });

    it('refuses to bridge to an agent domain that resolves to a refused address and keeps the contact on the line', async () => {
      const lookup = lookupFrom({ 'pbx.acme.example': ['10.0.0.8'] });
      await connect({ outgoing: new OutgoingAddressPolicy({ allowedCidrs: ['127.0.0.0/8'], lookup }), resolveSrv: async () => [] });
      const handle = await telephony!.originate(request());
      await handle.waitFor('answered');
      await expect(telephony!.bridge(handle.callId, 'sip:agent-7@pbx.acme.example')).rejects.toMatchObject({
        code: 'telephony.addressRefused',
        message: 'pbx.acme.example (10.0.0.8) is a private address: outgoing connections to it are refused',
      });
      expect(fake.calls).toHaveLength(1);
      expect(handle.ended).toBe(false);
    });
  });
});
