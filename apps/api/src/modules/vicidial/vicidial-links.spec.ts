import { OutgoingAddressPolicy } from '@centralita/contracts/server';
import {
  canonicalOrigin,
  checkCallback,
  keyFromHeaders,
  LINK_TOKEN_PATTERN,
  linkUrl,
  looksLikeKey,
  newIntegrationKey,
  newLinkToken,
  sha256Hex,
  signApiToken,
  verifyApiToken,
} from './vicidial-links';

describe('vicidial-links', () => {
  const policy = new OutgoingAddressPolicy();

  it('makes prefixed keys whose hint is their start, and different keys every time', () => {
    const a = newIntegrationKey();
    const b = newIntegrationKey();
    expect(a.key).toMatch(/^ctk_[A-Za-z0-9_-]{43}$/);
    expect(a.key.startsWith(a.hint)).toBe(true);
    expect(a.key).not.toBe(b.key);
    expect(looksLikeKey(a.key)).toBe(true);
    expect(looksLikeKey('eyJhbGciOiJIUzI1NiJ9.e30.x')).toBe(false);
  });

  it('makes 43-character URL-safe link ids and hashes them to 64 hex characters', () => {
    const token = newLinkToken();
    expect(LINK_TOKEN_PATTERN.test(token)).toBe(true);
    expect(sha256Hex(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(LINK_TOKEN_PATTERN.test('../../etc/passwd')).toBe(false);
  });

  it('reads the key from X-Api-Key first, else from a Bearer header', () => {
    expect(keyFromHeaders({ apiKey: ' ctk_a ', authorization: 'Bearer ctk_b' })).toBe('ctk_a');
    expect(keyFromHeaders({ authorization: 'bearer ctk_b' })).toBe('ctk_b');
    expect(keyFromHeaders({ authorization: 'Basic abc' })).toBeNull();
    expect(keyFromHeaders({})).toBeNull();
  });

  it('accepts only bare http(s) origins for allow-lists, canonicalised', () => {
    expect(canonicalOrigin('https://Dialer.Example.com:443/')).toBe('https://dialer.example.com');
    expect(canonicalOrigin('http://10.20.0.5:8080')).toBe('http://10.20.0.5:8080');
    expect(canonicalOrigin('https://dialer.example.com/agc')).toBeNull();
    expect(canonicalOrigin('ftp://dialer.example.com')).toBeNull();
    expect(canonicalOrigin('https://u:p@dialer.example.com')).toBeNull();
    expect(canonicalOrigin('not a url')).toBeNull();
  });

  it('lets console paths and public URLs through when the key lists no origins', () => {
    expect(checkCallback('/SoftPhoneNew/Phone', [], policy)).toEqual({ ok: true, callback: '/SoftPhoneNew/Phone' });
    expect(checkCallback('https://dialer.example.com/agc?x=1', [], policy)).toEqual({
      ok: true,
      callback: 'https://dialer.example.com/agc?x=1',
    });
  });

  it.each([
    ['http://127.0.0.1/', /loopback/],
    ['http://localhost:8080/', /loopback/],
    ['http://[::ffff:10.0.0.1]/', /private/],
    ['http://169.254.169.254/latest', /link-local/],
    ['http://0x7f000001/', /loopback/],
    ['javascript:alert(1)', /http or https/],
    ['data:text/html,hi', /http or https/],
    ['//evil.example/', /console path/],
    ['/\\evil.example', /backslashes/],
    ['https://u:p@dialer.example.com/', /user name or password/],
    ['https://dialer.example.com/a b', /spaces/],
    ['', /empty/],
  ])('refuses the callback %s', (callback, problem) => {
    const checked = checkCallback(callback, [], policy);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problem).toMatch(problem);
  });

  it('holds a key with an allow-list to its origins, private ones included', () => {
    const origins = ['http://10.20.0.5:8080'];
    expect(checkCallback('http://10.20.0.5:8080/agc/vicidial.php', origins, policy).ok).toBe(true);
    const other = checkCallback('https://dialer.example.com/', origins, policy);
    expect(other).toEqual({ ok: false, problem: "callback origin https://dialer.example.com is not one of this key's allowed origins" });
    expect(checkCallback('/desk', origins, policy).ok).toBe(true);
  });

  it('builds the link with the callback URL-encoded as one segment', () => {
    expect(linkUrl('https://c.example/', 'abc', null)).toBe('https://c.example/session/vicidial/abc');
    expect(linkUrl('https://c.example', 'abc', 'https://d.example/a?b=1')).toBe(
      'https://c.example/session/vicidial/abc/https%3A%2F%2Fd.example%2Fa%3Fb%3D1',
    );
  });

  it('signs API tokens that verify to their key until they expire, and refuses tampered, foreign or malformed ones', () => {
    const keyId = '0f8b2c1e-6d3a-4b5c-9e7f-1a2b3c4d5e6f';
    const now = 1_700_000_000_000;
    const token = signApiToken('server-secret', keyId, now + 900_000);
    expect(token).toMatch(/^cvt_/);
    expect(verifyApiToken('server-secret', token, now)).toBe(keyId);
    expect(verifyApiToken('server-secret', token, now + 900_000)).toBeNull();
    expect(verifyApiToken('another-secret', token, now)).toBeNull();
    // A later expiry, or another key, with the old signature: refused.
    const [, , signature] = token.slice(4).split('.');
    expect(verifyApiToken('server-secret', `cvt_${keyId}.${now + 9_000_000}.${signature}`, now)).toBeNull();
    expect(verifyApiToken('server-secret', `cvt_${keyId.replace('0f', '1f')}.${now + 900_000}.${signature}`, now)).toBeNull();
    for (const bad of ['', 'cvt_', `ctk_${keyId}.1.x`, `cvt_${keyId}.abc.${signature}`, `${token}.more`]) {
      expect(verifyApiToken('server-secret', bad, now)).toBeNull();
    }
  });
});
