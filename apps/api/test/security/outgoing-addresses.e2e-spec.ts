import { OutgoingAddressPolicy } from '@centralita/contracts/server';
import { DrachtioTelephony } from '../../../worker/src/telephony/drachtio-telephony';
import { FAKE_SDP, FakeDrachtioServer } from '../../../worker/src/telephony/testing/fake-drachtio-server';
import { Client } from '../../src/modules/tenancy/client.entity';
import { createReseller, createUser, createTenant } from '../support/factories';
import { bearer, login, startTestApp, type TestApp } from '../support/test-app';

// Argon2 hashing and logins in beforeAll are slow on shared CI machines.
jest.setTimeout(60_000);

/**
 * Issue 17 §8: nothing a tenant saves makes the platform (or its agents' browsers) connect to
 * loopback, link-local, private or reserved networks, in any spelling, unless the operator allowed
 * the range for the whole deployment (here OUTGOING_ALLOWED_CIDRS=10.20.0.0/16).
 */

/** Loopback, cloud metadata, the platform's own networks and the spellings that reach them. */
const HOSTILE_HOSTS = [
  '127.0.0.1',
  '127.0.0.1.',
  '0x7f000001',
  '0x7f.1',
  '127.1',
  '2130706433',
  '0177.0.0.1',
  '::1',
  '[::1]',
  '[::ffff:127.0.0.1]',
  'localhost',
  'localhost.',
  'LocalHost',
  'db.localhost',
  '0.0.0.0',
  '169.254.169.254',
  '0xa9fea9fe',
  'fe80::1',
  '10.0.0.1',
  '10.21.0.1',
  '172.16.0.1',
  '192.168.1.10',
  '100.64.0.1',
  'fd00::1',
  '224.0.0.1',
  '240.0.0.1',
];

/** Every hostile host written into a URL, plus the URL-only tricks (userinfo, scheme-relative, backslashes). */
const hostileUrls = (scheme: string, path = '/'): string[] => [
  ...HOSTILE_HOSTS.map((host) => `${scheme}://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}${path}`),
  `${scheme}://user@127.0.0.1${path}`,
  `${scheme}://cdn.example.com@169.254.169.254${path}`,
  `${scheme}://127.0.0.1#@cdn.example.com${path}`,
  `${scheme}://%31%32%37.0.0.1${path}`,
  `${scheme}://１２７.０.０.１${path}`,
];

describe('outgoing addresses (security)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ outgoingAllowedCidrs: ['10.20.0.0/16'] });
  });
  afterAll(() => t.close());

  async function tenantAdmin() {
    const tenant = await createTenant(t.dataSource);
    const { email, password } = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
    return { tenant, token: (await login(t, email, password)).accessToken };
  }

  /** Every issue of a 400 answer is about `field`, and says why (a refused address) or that the form is wrong. */
  function expectRefused(
    response: { status: number; body: { data?: { fields?: Record<string, string[]> } } },
    field: string,
    value: string,
  ) {
    if (response.status !== 400) throw new Error(`${field}=${JSON.stringify(value)} answered ${response.status}, not 400`);
    const messages = response.body.data?.fields?.[field];
    expect(messages).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${field.replace(/\./g, '\\.')} (must point to a public address: .+ addresses are refused for outgoing connections|is not in the expected format)$`,
        ),
      ),
    ]);
  }

  describe('SIP trunk host (the dialer connects to it)', () => {
    const trunk = (host: string) => ({ name: `Trunk ${host}`, host, port: 5060, transport: 'udp', maxConcurrentCalls: 5 });

    it('refuses every hostile form with 400 naming the field, and stores nothing', async () => {
      const { tenant, token } = await tenantAdmin();
      for (const host of HOSTILE_HOSTS) {
        const response = await t.http().post('/api/trunks').set(bearer(token)).send(trunk(host));
        expectRefused(response, 'host', host);
      }
      const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM trunks WHERE client_id = $1`, [tenant.client.id]);
      expect(count).toBe(0);
    });

    it('says why in the message for a literal address', async () => {
      const { token } = await tenantAdmin();
      const metadata = await t.http().post('/api/trunks').set(bearer(token)).send(trunk('169.254.169.254')).expect(400);
      expect(metadata.body.data.fields).toEqual({
        host: ['host must point to a public address: link-local addresses are refused for outgoing connections'],
      });
      expect(metadata.body.data.issues).toEqual([{ field: 'host', key: 'blockedAddress', values: { reason: 'link-local' } }]);
      const hex = await t.http().post('/api/trunks').set(bearer(token)).send(trunk('0x7f000001')).expect(400);
      expect(hex.body.data.fields.host).toEqual([
        'host must point to a public address: loopback addresses are refused for outgoing connections',
      ]);
    });

    it('refuses an edit that points an existing trunk at a refused address and keeps the stored host', async () => {
      const { token } = await tenantAdmin();
      const created = (await t.http().post('/api/trunks').set(bearer(token)).send(trunk('sip.carrier.example')).expect(200)).body.data;
      await t.http().put(`/api/trunks/${created.id}`).set(bearer(token)).send(trunk('[::ffff:127.0.0.1]')).expect(400);
      expect((await t.http().get(`/api/trunks/${created.id}`).set(bearer(token)).expect(200)).body.data.host).toBe('sip.carrier.example');
    });

    it('accepts a public host name (checked again, resolved, when the dialer connects) and a public address', async () => {
      const { token } = await tenantAdmin();
      await t.http().post('/api/trunks').set(bearer(token)).send(trunk('sip.carrier.example')).expect(200);
      await t.http().post('/api/trunks').set(bearer(token)).send(trunk('8.8.4.4')).expect(200);
    });

    it("admits the operator's allowed private range, and only that range", async () => {
      const { token } = await tenantAdmin();
      const onPremises = await t.http().post('/api/trunks').set(bearer(token)).send(trunk('10.20.3.4')).expect(200);
      expect(onPremises.body.data.host).toBe('10.20.3.4');
      const outside = await t.http().post('/api/trunks').set(bearer(token)).send(trunk('10.21.0.1')).expect(400);
      expect(outside.body.data.issues).toEqual([{ field: 'host', key: 'blockedAddress', values: { reason: 'private' } }]);
    });
  });

  describe('softphone server (the agents’ browsers and the dialer connect to it)', () => {
    const config = (overrides: Record<string, unknown>) => ({
      wsUrl: 'wss://sip.example.com:8443',
      domain: 'sip.example.com',
      iceServers: [],
      ...overrides,
    });
    const stored = async (clientId: string) =>
      (await t.dataSource.query(`SELECT count(*)::int AS count FROM softphone_configs WHERE client_id = $1`, [clientId]))[0].count;

    it('refuses every hostile WebSocket URL and stores nothing', async () => {
      const { tenant, token } = await tenantAdmin();
      for (const wsUrl of [...hostileUrls('ws'), ...hostileUrls('wss', '/ws')]) {
        const response = await t.http().put('/api/softphone/config').set(bearer(token)).send(config({ wsUrl }));
        expectRefused(response, 'wsUrl', wsUrl);
      }
      expect(await stored(tenant.client.id)).toBe(0);
    });

    it('refuses every hostile STUN/TURN server and stores nothing', async () => {
      const { tenant, token } = await tenantAdmin();
      const hosts = HOSTILE_HOSTS.filter((host) => !host.endsWith('.')).map((host) =>
        host.includes(':') && !host.startsWith('[') ? `[${host}]` : host,
      );
      for (const host of hosts) {
        for (const iceServer of [`turn:${host}:3478?transport=udp`, `stun:${host}`, `turns:${host}:5349`]) {
          const response = await t
            .http()
            .put('/api/softphone/config')
            .set(bearer(token))
            .send(config({ iceServers: ['stun:stun.example.com', iceServer] }));
          expectRefused(response, 'iceServers.1', iceServer);
        }
      }
      expect(await stored(tenant.client.id)).toBe(0);
    });

    it('refuses a SIP domain on a refused address (the dialer sends agents’ calls there)', async () => {
      const { tenant, token } = await tenantAdmin();
      for (const domain of ['127.0.0.1', '127.0.0.1:5060', 'localhost', '169.254.169.254', '10.0.0.1:5080', '0x7f000001']) {
        const response = await t.http().put('/api/softphone/config').set(bearer(token)).send(config({ domain }));
        expectRefused(response, 'domain', domain);
      }
      expect(await stored(tenant.client.id)).toBe(0);
    });

    it('accepts public servers and the allowed on-premises range', async () => {
      const { token } = await tenantAdmin();
      await t
        .http()
        .put('/api/softphone/config')
        .set(bearer(token))
        .send(config({ iceServers: ['stun:stun.example.com:3478', 'turn:turn.example.com:3478?transport=udp'] }))
        .expect(200);
      await t
        .http()
        .put('/api/softphone/config')
        .set(bearer(token))
        .send(config({ wsUrl: 'ws://10.20.0.8:5066', domain: '10.20.0.8:5060', iceServers: ['turn:10.20.0.9:3478'] }))
        .expect(200);
    });
  });

  describe('IVR prompt audio URL', () => {
    const tree = (promptAudioUrl: string) => ({
      rootNodeId: 'main',
      nodes: [
        {
          id: 'main',
          name: 'Main',
          promptText: null,
          promptAudioUrl,
          timeoutSeconds: 5,
          maxRetries: 2,
          fallback: { type: 'hangup', targetId: null },
          options: [{ digit: '1', label: null, destination: { type: 'hangup', targetId: null } }],
        },
      ],
    });

    it('refuses every hostile URL, scheme-relative and backslash forms included, and keeps the draft', async () => {
      const { token } = await tenantAdmin();
      const ivr = (await t.http().post('/api/ivrs').set(bearer(token)).send({ name: 'Audio' }).expect(200)).body.data;
      const field = 'tree.nodes.0.promptAudioUrl';
      for (const url of [
        ...hostileUrls('http', '/a.wav'),
        ...hostileUrls('https', '/a.wav'),
        '//127.0.0.1/a.wav',
        '//evil.example/a.wav',
        '/\\evil.example/a.wav',
      ]) {
        const response = await t
          .http()
          .put(`/api/ivrs/${ivr.id}/tree`)
          .set(bearer(token))
          .send({ tree: tree(url) });
        expectRefused(response, field, url);
      }
      const after = (await t.http().get(`/api/ivrs/${ivr.id}`).set(bearer(token)).expect(200)).body.data;
      expect(after.draftTree).toEqual(ivr.draftTree);
    });

    it('accepts a public URL and a path on the platform', async () => {
      const { token } = await tenantAdmin();
      const ivr = (await t.http().post('/api/ivrs').set(bearer(token)).send({ name: 'Audio ok' }).expect(200)).body.data;
      await t
        .http()
        .put(`/api/ivrs/${ivr.id}/tree`)
        .set(bearer(token))
        .send({ tree: tree('https://cdn.example.com/welcome.wav') })
        .expect(200);
      await t
        .http()
        .put(`/api/ivrs/${ivr.id}/tree`)
        .set(bearer(token))
        .send({ tree: tree('/prompts/welcome.wav') })
        .expect(200);
    });
  });

  describe('branding URLs (every user’s browser loads them)', () => {
    const FIELDS = ['bannerUrl', 'loginImageUrl', 'menuLogoUrl', 'completeMenuLogoUrl'] as const;

    async function resellerStaff() {
      const { staff, tenants } = await createReseller(t.dataSource, 1);
      const { email, password } = await createUser(t.dataSource, staff, { role: 'RESELLER_ADMIN' });
      return { tenant: tenants[0], token: (await login(t, email, password)).accessToken };
    }

    it('refuses every hostile URL in each field and leaves the tenant unchanged', async () => {
      const { tenant, token } = await resellerStaff();
      const before = await t.dataSource.getRepository(Client).findOneByOrFail({ id: tenant.client.id });
      const urls = [
        ...hostileUrls('https', '/logo.png'),
        ...hostileUrls('http', '/logo.png'),
        '//127.0.0.1/logo.png',
        '/\\evil.example/logo.png',
      ];
      for (const field of FIELDS) {
        for (const url of urls) {
          const response = await t
            .http()
            .put(`/api/clients/${tenant.client.id}`)
            .set(bearer(token))
            .send({ name: tenant.client.name, [field]: url });
          expectRefused(response, field, url);
        }
      }
      expect(await t.dataSource.getRepository(Client).findOneByOrFail({ id: tenant.client.id })).toEqual(before);
    });

    it('accepts public URLs and paths on the console', async () => {
      const { tenant, token } = await resellerStaff();
      await t
        .http()
        .put(`/api/clients/${tenant.client.id}`)
        .set(bearer(token))
        .send({ name: tenant.client.name, bannerUrl: 'https://cdn.example.com/banner.png', menuLogoUrl: '/assets/logo.svg' })
        .expect(200);
    });
  });

  describe('connect time (the worker resolves, checks every address and connects to the checked one)', () => {
    let fake: FakeDrachtioServer;
    let telephony: DrachtioTelephony | undefined;

    beforeEach(async () => {
      fake = await FakeDrachtioServer.start({
        secret: 'cymru',
        script: () => ({ responses: [{ status: 200, reason: 'OK', body: FAKE_SDP }] }),
      });
    });
    afterEach(async () => {
      await telephony?.close();
      telephony = undefined;
      await fake.close();
    });

    const originate = (host: string) =>
      telephony!.originate({
        callId: `call-${host}`,
        tenantId: 'tenant-1',
        from: '+34910000000',
        to: '+34911234567',
        trunk: { host, port: 5060, transport: 'udp' },
        ringTimeoutSec: 30,
        amd: false,
      });
    const invites = () => fake.frames.filter((frame) => frame.kind === 'sip' && frame.sip?.method === 'INVITE');

    it('refuses a trunk named localhost, and a name that resolves to loopback, before any INVITE leaves', async () => {
      // The policy as the worker builds it from OUTGOING_ALLOWED_CIDRS, with a resolver where a
      // once-public name now answers loopback (DNS rebinding) next to a public address.
      const lookup = async (name: string) =>
        name === 'rebind.example'
          ? [
              { address: '198.51.99.20', family: 4 },
              { address: '127.0.0.1', family: 4 },
            ]
          : [{ address: '198.51.99.21', family: 4 }];
      telephony = await DrachtioTelephony.connect({
        host: '127.0.0.1',
        port: fake.port,
        secret: 'cymru',
        outgoing: new OutgoingAddressPolicy({ allowedCidrs: ['10.20.0.0/16'], lookup }),
      });
      await expect(originate('localhost')).rejects.toMatchObject({ code: 'telephony.addressRefused' });
      await expect(originate('rebind.example')).rejects.toMatchObject({
        code: 'telephony.addressRefused',
        message: 'rebind.example (127.0.0.1) is a loopback address: outgoing connections to it are refused',
      });
      expect(invites()).toEqual([]);

      // A public name goes out, to the address that was checked.
      const handle = await originate('sip.carrier.example');
      await handle.waitFor('answered');
      expect(invites().map((frame) => frame.leader[4])).toEqual(['sip:198.51.99.21:5060;transport=udp']);
      expect(fake.calls[0].invite.uri).toBe('sip:+34911234567@sip.carrier.example:5060;transport=udp');
    });

    it('refuses localhost through the real system resolver too', async () => {
      telephony = await DrachtioTelephony.connect({ host: '127.0.0.1', port: fake.port, secret: 'cymru' });
      await expect(originate('localhost')).rejects.toMatchObject({ code: 'telephony.addressRefused' });
      await expect(originate('0x7f000001')).rejects.toMatchObject({ code: 'telephony.addressRefused' });
      expect(invites()).toEqual([]);
    });
  });
});
