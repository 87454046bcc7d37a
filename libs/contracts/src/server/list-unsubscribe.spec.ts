import { describe, expect, it } from '@jest/globals';
import { maskMailAddress } from '../mail-blacklist';
import { UnsubscribeSigner, unsubscribeHeaders, unsubscribeTokenFromSubject } from './list-unsubscribe';

const KEY = 'ab'.repeat(32);
const TENANT = '0b9d3c52-6f0e-4a8e-9d7c-2f8a4e1b6c3d';
const OTHER_TENANT = '7e1f0a9b-3c2d-4e5f-8a6b-9c0d1e2f3a4b';

describe(UnsubscribeSigner.name, () => {
  const signer = UnsubscribeSigner.fromKey(KEY);

  it('verifies its own token for the same address, whatever its letter case, and names the tenant', () => {
    const token = signer.sign(TENANT, 'Ana.Perez@Example.com');
    expect(token).toMatch(/^u1\.[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/);
    expect(signer.verify(token, 'ana.perez@example.com')).toEqual({ tenantId: TENANT });
  });

  it('refuses the token for another address, another tenant, another key, or altered bytes', () => {
    const token = signer.sign(TENANT, 'ana@example.com');
    expect(signer.verify(token, 'eve@example.com')).toBeNull();
    expect(signer.verify(token.replace(TENANT, OTHER_TENANT), 'ana@example.com')).toBeNull();
    expect(UnsubscribeSigner.fromKey('cd'.repeat(32)).verify(token, 'ana@example.com')).toBeNull();
    const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expect(signer.verify(flipped, 'ana@example.com')).toBeNull();
    expect(signer.verify('u1.garbage', 'ana@example.com')).toBeNull();
  });

  it('cannot sign or verify without CONFIG_ENCRYPTION_KEY', () => {
    const none = new UnsubscribeSigner({});
    expect(none.configured).toBe(false);
    expect(() => none.sign(TENANT, 'ana@example.com')).toThrow(/CONFIG_ENCRYPTION_KEY/);
    expect(none.verify(signer.sign(TENANT, 'ana@example.com'), 'ana@example.com')).toBeNull();
  });
});

describe(unsubscribeHeaders.name, () => {
  const signer = UnsubscribeSigner.fromKey(KEY);

  it('gives the https page link with a token, a mailto and the RFC 8058 one-click header', () => {
    const headers = unsubscribeHeaders({
      tenantId: TENANT,
      address: 'Ana@Example.com',
      publicUrl: 'https://contact.example.org/',
      mailtoDomain: 'mail.example.org',
      signer,
    });
    expect(headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    const [https, mailto] = headers['List-Unsubscribe'].split(', ');
    expect(https).toMatch(/^<https:\/\/contact\.example\.org\/session\/Unsubscribe\/ana%40example\.com\?token=u1\.[^>]+>$/);
    const token = new URL(https.slice(1, -1)).searchParams.get('token')!;
    expect(signer.verify(token, 'ana@example.com')).toEqual({ tenantId: TENANT });
    expect(mailto).toMatch(/^<mailto:unsubscribe@mail\.example\.org\?subject=unsubscribe%20u1\.[^>]+>$/);
    expect(unsubscribeTokenFromSubject(decodeURIComponent(mailto.split('subject=')[1].slice(0, -1)))).toBe(token);
  });

  it('refuses anything but one address', () => {
    expect(() =>
      unsubscribeHeaders({ tenantId: TENANT, address: 'a@b.com, c@d.com', publicUrl: 'https://x.org', mailtoDomain: 'x.org', signer }),
    ).toThrow(/not one mail address/);
  });
});

describe(maskMailAddress.name, () => {
  it('keeps the first letters and the top-level domain only', () => {
    expect(maskMailAddress('Ana.Perez@Example.com')).toBe('a***@e***.com');
  });
});
