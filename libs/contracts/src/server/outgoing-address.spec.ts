import { OutgoingAddressError, OutgoingAddressPolicy, parseAllowedCidrs, parseHost, type HostLookup } from './outgoing-address';

describe(OutgoingAddressPolicy.name, () => {
  const policy = new OutgoingAddressPolicy();

  describe('a bare host (trunk host, SIP domain)', () => {
    it.each([
      ['127.0.0.1', 'loopback'],
      ['0x7f000001', 'loopback'],
      ['2130706433', 'loopback'],
      ['0177.0.0.1', 'loopback'],
      ['127.1', 'loopback'],
      ['0x7f.1', 'loopback'],
      ['127.0.0.1.', 'loopback'],
      ['１２７.０.０.１', 'loopback'],
      ['::1', 'loopback'],
      ['[::1]', 'loopback'],
      ['[::ffff:127.0.0.1]', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['[0:0:0:0:0:ffff:7f00:0001]', 'loopback'],
      ['localhost', 'loopback'],
      ['localhost.', 'loopback'],
      ['LOCALHOST', 'loopback'],
      ['api.localhost', 'loopback'],
      ['169.254.169.254', 'link-local'],
      ['0xa9fea9fe', 'link-local'],
      ['[fe80::1]', 'link-local'],
      ['[::ffff:169.254.169.254]', 'link-local'],
      ['10.0.0.1', 'private'],
      ['012.0.0.1', 'private'],
      ['172.16.5.4', 'private'],
      ['192.168.1.1', 'private'],
      ['100.64.0.1', 'private'],
      ['[fc00::1]', 'private'],
      ['fd12:3456::1', 'private'],
      ['0.0.0.0', 'unspecified'],
      ['0', 'unspecified'],
      ['[::]', 'unspecified'],
      ['224.0.0.1', 'multicast'],
      ['255.255.255.255', 'multicast'],
      ['[ff02::1]', 'multicast'],
      ['240.0.0.1', 'reserved'],
      ['192.0.2.10', 'reserved'],
      ['198.18.0.1', 'reserved'],
      ['[2001:db8::1]', 'reserved'],
      ['[2002:7f00:1::1]', 'reserved'],
      ['[64:ff9b::7f00:1]', 'reserved'],
      ['[::127.0.0.1]', 'reserved'],
    ])('refuses %s as %s', (host, reason) => {
      expect(policy.hostIssue('host', host)).toEqual({ field: 'host', key: 'blockedAddress', values: { reason } });
    });

    it.each(['user@127.0.0.1', '//127.0.0.1', 'http://127.0.0.1', '127.0.0.1/x', '127.0.0.1:5060', 'a b', '[fe80::1%25eth0]', ''])(
      'refuses %j as malformed',
      (host) => {
        expect(policy.hostIssue('host', host)).toEqual({ field: 'host', key: 'pattern' });
      },
    );

    it.each(['sip.carrier.example', '8.8.8.8', '2a00:1450:4001:80b::200e', '[2a00:1450:4001:80b::200e]', 'localhost.example.com'])(
      'accepts %s',
      (host) => {
        expect(policy.hostIssue('host', host)).toBeNull();
      },
    );
  });

  describe('a URL (softphone WebSocket, IVR audio, branding)', () => {
    const ws = { schemes: ['ws', 'wss'] };
    const web = { schemes: ['http', 'https'], allowPath: true };

    it.each([
      ['ws://127.0.0.1:5066', ws, 'loopback'],
      ['wss://0x7f000001:8443/ws', ws, 'loopback'],
      ['wss://[::ffff:127.0.0.1]/', ws, 'loopback'],
      ['ws://localhost./', ws, 'loopback'],
      ['http://169.254.169.254/latest/meta-data/', web, 'link-local'],
      ['http://user@127.0.0.1/logo.png', web, 'loopback'],
      ['http://evil.example@10.0.0.1/', web, 'private'],
      ['http://127.0.0.1#@evil.example/', web, 'loopback'],
      ['https://2130706433/', web, 'loopback'],
      ['https://0177.0.0.1/', web, 'loopback'],
      ['https://127.1/', web, 'loopback'],
      ['https://[fd00::1]/a.wav', web, 'private'],
      ['http://0.0.0.0:3000/', web, 'unspecified'],
    ])('refuses %s', (url, options, reason) => {
      expect(policy.urlIssue('url', url, options)).toEqual({ field: 'url', key: 'blockedAddress', values: { reason } });
    });

    it.each([
      ['//127.0.0.1/x.png', web],
      ['//evil.example/x.png', web],
      ['/\\evil.example/x.png', web],
      ['http://a.example\\@127.0.0.1/', web],
      ['ftp://files.example/a.wav', web],
      ['javascript:alert(1)', web],
      ['/path', ws],
      ['https://sip.example/', ws],
      ['not a url', web],
    ])('refuses %s as malformed', (url, options) => {
      expect(policy.urlIssue('url', url, options)).toEqual({ field: 'url', key: 'pattern' });
    });

    it.each([
      ['wss://sip.example.com:8443/ws', ws],
      ['https://cdn.example.com/prompts/welcome.wav', web],
      ['/assets/logo.png', web],
      ['http://8.8.8.8/a.png', web],
    ])('accepts %s', (url, options) => {
      expect(policy.urlIssue('url', url, options)).toBeNull();
    });
  });

  describe('an ICE server (STUN/TURN)', () => {
    it.each([
      ['turn:127.0.0.1:3478', 'loopback'],
      ['turn:0x7f000001?transport=udp', 'loopback'],
      ['turns:[::1]:5349?transport=tcp', 'loopback'],
      ['stun:169.254.169.254', 'link-local'],
      ['turn:10.1.2.3:3478', 'private'],
      ['stun:localhost:3478', 'loopback'],
    ])('refuses %s', (uri, reason) => {
      expect(policy.iceServerIssue('iceServers.0', uri)).toEqual({ field: 'iceServers.0', key: 'blockedAddress', values: { reason } });
    });

    it.each(['turn:user@turn.example.com', 'turn://turn.example.com', 'turn:turn.example.com:99999', 'stun:'])(
      'refuses %s as malformed',
      (uri) => {
        expect(policy.iceServerIssue('iceServers.0', uri)).toEqual({ field: 'iceServers.0', key: 'pattern' });
      },
    );

    it.each(['stun:stun.example.com:3478', 'turn:turn.example.com:3478?transport=udp', 'turns:turn.example.com:5349?transport=tcp'])(
      'accepts %s',
      (uri) => {
        expect(policy.iceServerIssue('iceServers.0', uri)).toBeNull();
      },
    );
  });

  describe('the operator allow-list', () => {
    const onPremises = new OutgoingAddressPolicy({ allowedCidrs: ['10.20.0.0/16', '127.0.0.1', 'fd00:1::/32'] });

    it('admits the allowed ranges only', () => {
      expect(onPremises.hostIssue('host', '10.20.3.4')).toBeNull();
      expect(onPremises.hostIssue('host', '[::ffff:10.20.3.4]')).toBeNull();
      expect(onPremises.hostIssue('host', '10.21.0.1')).toEqual({ field: 'host', key: 'blockedAddress', values: { reason: 'private' } });
      expect(onPremises.hostIssue('host', '127.0.0.1')).toBeNull();
      expect(onPremises.hostIssue('host', '127.0.0.2')).toEqual({ field: 'host', key: 'blockedAddress', values: { reason: 'loopback' } });
      expect(onPremises.hostIssue('host', 'fd00:1:2::5')).toBeNull();
      expect(onPremises.allowedRanges).toEqual(['10.20.0.0/16', '127.0.0.1/32', 'fd00:1::/32']);
    });

    it('parses OUTGOING_ALLOWED_CIDRS and reports every bad entry', () => {
      const problems: string[] = [];
      expect(parseAllowedCidrs(' 10.20.0.0/16, 192.168.50.7  fd12:3456::/48 ', problems)).toEqual([
        '10.20.0.0/16',
        '192.168.50.7',
        'fd12:3456::/48',
      ]);
      expect(problems).toEqual([]);
      parseAllowedCidrs('10.0.0.0/33,0x7f000001,private,fd00::/129,1.2.3.4/8/9', problems);
      expect(problems).toEqual([
        'OUTGOING_ALLOWED_CIDRS entry "10.0.0.0/33" is not an IP address or CIDR',
        'OUTGOING_ALLOWED_CIDRS entry "0x7f000001" is not an IP address or CIDR',
        'OUTGOING_ALLOWED_CIDRS entry "private" is not an IP address or CIDR',
        'OUTGOING_ALLOWED_CIDRS entry "fd00::/129" is not an IP address or CIDR',
        'OUTGOING_ALLOWED_CIDRS entry "1.2.3.4/8/9" is not an IP address or CIDR',
      ]);
    });
  });

  describe('connect time', () => {
    const resolver = (table: Record<string, string[]>): HostLookup =>
      jest.fn(async (name: string) => {
        const addresses = table[name];
        if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
        return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      });

    it('resolves a name and hands back every checked address to connect to', async () => {
      const lookup = resolver({ 'sip.carrier.example': ['203.0.114.10', '2a00:1450:4001:80b::200e'] });
      await expect(new OutgoingAddressPolicy({ lookup }).resolve('sip.carrier.example')).resolves.toEqual([
        { address: '203.0.114.10', family: 4 },
        { address: '2a00:1450:4001:80b::200e', family: 6 },
      ]);
    });

    it('refuses a name that resolves to loopback (a rebinding name, or localhost through the resolver)', async () => {
      const lookup = resolver({ 'rebind.example': ['127.0.0.1'] });
      const error = await new OutgoingAddressPolicy({ lookup }).resolve('rebind.example').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutgoingAddressError);
      expect(error).toMatchObject({ code: 'outgoing.refused', reason: 'loopback', host: 'rebind.example' });
      expect((error as Error).message).toBe('rebind.example (127.0.0.1) is a loopback address: outgoing connections to it are refused');
    });

    it('refuses a name when ANY of its addresses is refused', async () => {
      const lookup = resolver({ 'mixed.example': ['8.8.8.8', '::ffff:169.254.169.254'] });
      await expect(new OutgoingAddressPolicy({ lookup }).resolve('mixed.example')).rejects.toMatchObject({
        code: 'outgoing.refused',
        reason: 'link-local',
      });
    });

    it('refuses localhost without asking the resolver', async () => {
      const lookup = resolver({});
      await expect(new OutgoingAddressPolicy({ lookup }).resolve('localhost.')).rejects.toMatchObject({ reason: 'loopback' });
      expect(lookup).not.toHaveBeenCalled();
    });

    it('checks literal addresses in any form without resolving them', async () => {
      const lookup = resolver({});
      const strict = new OutgoingAddressPolicy({ lookup });
      await expect(strict.resolve('0x7f000001')).rejects.toMatchObject({ reason: 'loopback' });
      await expect(strict.resolve('8.8.8.8')).resolves.toEqual([{ address: '8.8.8.8', family: 4 }]);
      expect(lookup).not.toHaveBeenCalled();
    });

    it('admits a name resolving into an allowed range', async () => {
      const lookup = resolver({ 'pbx.office.lan': ['10.20.0.5'] });
      await expect(new OutgoingAddressPolicy({ lookup, allowedCidrs: ['10.20.0.0/16'] }).resolve('pbx.office.lan')).resolves.toEqual([
        { address: '10.20.0.5', family: 4 },
      ]);
    });

    it('reports a name that does not resolve, or not in time', async () => {
      await expect(new OutgoingAddressPolicy({ lookup: resolver({}) }).resolve('nowhere.example')).rejects.toMatchObject({
        code: 'outgoing.unresolvable',
      });
      const hanging: HostLookup = () => new Promise(() => undefined);
      await expect(new OutgoingAddressPolicy({ lookup: hanging, lookupTimeoutMs: 20 }).resolve('slow.example')).rejects.toMatchObject({
        code: 'outgoing.unresolvable',
        message: 'slow.example does not resolve: no answer within 20 ms',
      });
    });
  });

  it('reads hosts the way sockets do', () => {
    expect(parseHost('0x7f000001')).toEqual({ kind: 'ip', address: '127.0.0.1' });
    expect(parseHost('[::ffff:127.0.0.1]')).toEqual({ kind: 'ip', address: '::ffff:7f00:1' });
    expect(parseHost('SIP.Example.COM.')).toEqual({ kind: 'name', name: 'sip.example.com' });
    expect(parseHost('a@b')).toBeNull();
  });
});
