import { ConfigCrypto, OutgoingAddressPolicy } from '@centralita/contracts/server';
import type { DataSource } from 'typeorm';
import {
  agentSipUri,
  chooseRoute,
  pinTrunkAddress,
  resolveCampaignTrunk,
  SIMULATOR_CALLER_ID,
  SIMULATOR_TRUNK,
  type CampaignTrunk,
  type TrunkLookup,
} from './dialing-route';

const trunk = (overrides: Partial<CampaignTrunk> = {}): CampaignTrunk => ({
  id: 'trunk-1',
  sip: { host: 'sip.carrier.test', port: 5061, transport: 'tls', username: 'acme', password: 's3cret' },
  callerId: '+34910000001',
  maxConcurrentCalls: 10,
  ...overrides,
});
const found = (overrides: Partial<CampaignTrunk> = {}): TrunkLookup => ({ status: 'found', trunk: trunk(overrides) });

describe('chooseRoute', () => {
  it('uses the campaign trunk and the campaign caller id before the trunk one, in both modes', () => {
    for (const kind of ['simulator', 'drachtio'] as const) {
      expect(chooseRoute(kind, '+34919999999', found())).toEqual({
        ok: true,
        trunk: trunk().sip,
        trunkId: 'trunk-1',
        from: '+34919999999',
        maxConcurrentCalls: 10,
      });
      expect(chooseRoute(kind, null, found())).toMatchObject({ ok: true, from: '+34910000001' });
      expect(chooseRoute(kind, '  ', found())).toMatchObject({ ok: true, from: '+34910000001' });
    }
  });

  it('gives the simulator its own trunk when the campaign has no usable one', () => {
    for (const lookup of [
      { status: 'none' },
      { status: 'unavailable', trunkId: 't' },
      { status: 'unreadable', trunkId: 't', error: 'bad' },
      { status: 'unsupported', trunkId: 't', transport: 'wss' },
    ] as TrunkLookup[]) {
      expect(chooseRoute('simulator', null, lookup)).toEqual({
        ok: true,
        trunk: SIMULATOR_TRUNK,
        trunkId: null,
        from: SIMULATOR_CALLER_ID,
        maxConcurrentCalls: null,
      });
    }
    expect(chooseRoute('simulator', '+34911111111', { status: 'none' })).toMatchObject({ from: '+34911111111' });
    expect(chooseRoute('simulator', null, found({ callerId: null }))).toMatchObject({ ok: true, from: SIMULATOR_CALLER_ID });
  });

  it('refuses a real carrier without a usable trunk or a caller id, naming why', () => {
    expect(chooseRoute('drachtio', '+34911111111', { status: 'none' })).toMatchObject({ ok: false, code: 'dialer.noTrunk' });
    expect(chooseRoute('drachtio', '+34911111111', { status: 'unavailable', trunkId: 't-9' })).toMatchObject({
      ok: false,
      code: 'dialer.trunkUnavailable',
      message: expect.stringContaining('t-9'),
    });
    expect(chooseRoute('drachtio', '+34911111111', { status: 'unreadable', trunkId: 't-9', error: 'auth' })).toMatchObject({
      ok: false,
      code: 'dialer.trunkUnreadable',
      message: expect.stringContaining('CONFIG_ENCRYPTION_KEY'),
    });
    expect(chooseRoute('drachtio', '+34911111111', { status: 'unsupported', trunkId: 't-9', transport: 'wss' })).toMatchObject({
      ok: false,
      code: 'dialer.trunkTransportUnsupported',
    });
    expect(chooseRoute('drachtio', null, found({ callerId: null }))).toMatchObject({ ok: false, code: 'dialer.noCallerId' });
  });
});

describe('agentSipUri', () => {
  it('is the softphone account at the tenant softphone domain', () => {
    expect(agentSipUri('1001', 'pbx.acme.test')).toBe('sip:1001@pbx.acme.test');
    expect(agentSipUri(' ana.lopez ', ' pbx.acme.test ')).toBe('sip:ana.lopez@pbx.acme.test');
  });

  it('escapes what a SIP user part cannot carry', () => {
    expect(agentSipUri('ana@acme', 'pbx.acme.test')).toBe('sip:ana%40acme@pbx.acme.test');
    expect(agentSipUri('josé luis', 'pbx')).toBe('sip:jos%C3%A9%20luis@pbx');
  });
});

describe('resolveCampaignTrunk', () => {
  const crypto = new ConfigCrypto({ CONFIG_ENCRYPTION_KEY: 'ab'.repeat(32), NODE_ENV: 'test' });
  const row = {
    id: 'trunk-1',
    host: 'sip.carrier.test',
    port: 5060,
    transport: 'udp',
    username: 'acme',
    password_encrypted: crypto.encrypt('s3cret'),
    caller_id: '+34910000001',
    max_concurrent_calls: 4,
  };
  const queries: unknown[][] = [];
  const db = (rows: unknown[]) =>
    ({
      query: async (...args: unknown[]) => {
        queries.push(args);
        return rows;
      },
    }) as unknown as DataSource;

  it('asks for the tenant active, not deleted trunk and decrypts its password', async () => {
    const lookup = await resolveCampaignTrunk(db([row]), crypto, 'tenant-1', 'trunk-1');
    expect(lookup).toEqual({
      status: 'found',
      trunk: {
        id: 'trunk-1',
        sip: { host: 'sip.carrier.test', port: 5060, transport: 'udp', username: 'acme', password: 's3cret' },
        callerId: '+34910000001',
        maxConcurrentCalls: 4,
      },
    });
    const [sql, params] = queries.at(-1)!;
    expect(sql).toMatch(/client_id = \$2 AND deleted_at IS NULL AND active = true/);
    expect(params).toEqual(['trunk-1', 'tenant-1']);
  });

  it('sends no credentials when the trunk has no password', async () => {
    const lookup = await resolveCampaignTrunk(db([{ ...row, password_encrypted: null }]), crypto, 'tenant-1', 'trunk-1');
    expect(lookup).toMatchObject({ status: 'found', trunk: { sip: { host: 'sip.carrier.test', port: 5060, transport: 'udp' } } });
    expect((lookup as Extract<TrunkLookup, { status: 'found' }>).trunk.sip).not.toHaveProperty('username');
  });

  it('tells a missing trunk from one whose password another key wrote', async () => {
    const before = queries.length;
    expect(await resolveCampaignTrunk(db([]), crypto, 'tenant-1', null)).toEqual({ status: 'none' });
    expect(queries.length).toBe(before);
    expect(await resolveCampaignTrunk(db([]), crypto, 'tenant-1', 'trunk-1')).toEqual({ status: 'unavailable', trunkId: 'trunk-1' });
    expect(await resolveCampaignTrunk(db([{ ...row, transport: 'wss' }]), crypto, 'tenant-1', 'trunk-1')).toEqual({
      status: 'unsupported',
      trunkId: 'trunk-1',
      transport: 'wss',
    });
    const other = new ConfigCrypto({ CONFIG_ENCRYPTION_KEY: 'cd'.repeat(32), NODE_ENV: 'test' });
    expect(await resolveCampaignTrunk(db([row]), other, 'tenant-1', 'trunk-1')).toMatchObject({ status: 'unreadable', trunkId: 'trunk-1' });
  });
});

describe('pinTrunkAddress', () => {
  const route = chooseRoute('drachtio', null, found());
  const policy = (addresses: string[], allowedCidrs: string[] = []) =>
    new OutgoingAddressPolicy({ allowedCidrs, lookup: async () => addresses.map((address) => ({ address, family: 4 })) });

  it('pins the first checked address of the trunk host', async () => {
    expect(await pinTrunkAddress(policy(['198.51.99.7', '198.51.99.8']), route)).toMatchObject({
      ok: true,
      trunk: { host: 'sip.carrier.test', address: '198.51.99.7', port: 5061, transport: 'tls' },
    });
  });

  it('refuses the campaign (nothing is dialled) when the host resolves to a refused address', async () => {
    expect(await pinTrunkAddress(policy(['198.51.99.7', '127.0.0.1']), route)).toEqual({
      ok: false,
      code: 'dialer.trunkAddressRefused',
      message: 'trunk trunk-1: sip.carrier.test (127.0.0.1) is a loopback address: outgoing connections to it are refused',
    });
  });

  it('admits a private trunk inside the operator allow-list', async () => {
    expect(await pinTrunkAddress(policy(['10.20.0.5'], ['10.20.0.0/16']), route)).toMatchObject({
      ok: true,
      trunk: { address: '10.20.0.5' },
    });
  });
});
