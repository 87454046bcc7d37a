import {
  baseStringUri,
  hmacSha1Signature,
  oauth1AuthorizationHeader,
  oauth1Parameters,
  percentEncode,
  signatureBaseString,
} from './oauth1';

/**
 * X's "Creating a signature" page signs POST https://api.twitter.com/1.1/statuses/update.json?include_entities=true
 * with body status=Hello Ladies + Gentlemen, a signed OAuth request! and documents every intermediate
 * value; the signature must come out exactly as documented.
 */
const documented = {
  credentials: {
    consumerKey: 'xvz1evFS4wEEPTGEFPHBog',
    consumerSecret: 'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw',
    accessToken: '370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb',
    accessTokenSecret: 'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE',
  },
  nonce: 'kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg',
  timestamp: '1318622958',
  formParameters: { status: 'Hello Ladies + Gentlemen, a signed OAuth request!' },
};

describe('OAuth 1.0a signing (X "Creating a signature")', () => {
  it('produces the documented signature hCtSmYh+iHYCEqBWrE7C7hYmtUk=', () => {
    const parameters = oauth1Parameters({
      method: 'POST',
      url: 'https://api.twitter.com/1.1/statuses/update.json?include_entities=true',
      ...documented,
    });
    expect(parameters.oauth_signature).toBe('hCtSmYh+iHYCEqBWrE7C7hYmtUk=');
    expect(parameters).toMatchObject({
      oauth_consumer_key: 'xvz1evFS4wEEPTGEFPHBog',
      oauth_nonce: documented.nonce,
      oauth_signature_method: 'HMAC-SHA1',
      oauth_timestamp: '1318622958',
      oauth_token: documented.credentials.accessToken,
      oauth_version: '1.0',
    });
  });

  it('produces the documented signature of the older /1/ example (tnnArxj06cWHq44gCs1OSKk/jLY=)', () => {
    const parameters = oauth1Parameters({
      method: 'POST',
      url: 'https://api.twitter.com/1/statuses/update.json?include_entities=true',
      ...documented,
    });
    expect(parameters.oauth_signature).toBe('tnnArxj06cWHq44gCs1OSKk/jLY=');
  });

  it('builds the documented parameter string and base string', () => {
    const base = signatureBaseString('post', new URL('https://api.twitter.com/1.1/statuses/update.json?include_entities=true'), [
      ['include_entities', 'true'],
      ['status', documented.formParameters.status],
      ['oauth_version', '1.0'],
      ['oauth_token', documented.credentials.accessToken],
      ['oauth_timestamp', documented.timestamp],
      ['oauth_signature_method', 'HMAC-SHA1'],
      ['oauth_nonce', documented.nonce],
      ['oauth_consumer_key', documented.credentials.consumerKey],
    ]);
    expect(base).toBe(
      'POST&https%3A%2F%2Fapi.twitter.com%2F1.1%2Fstatuses%2Fupdate.json&include_entities%3Dtrue%26oauth_consumer_key%3Dxvz1evFS4wEEPTGEFPHBog%26oauth_nonce%3DkYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1318622958%26oauth_token%3D370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb%26oauth_version%3D1.0%26status%3DHello%2520Ladies%2520%252B%2520Gentlemen%252C%2520a%2520signed%2520OAuth%2520request%2521',
    );
    expect(hmacSha1Signature(base, documented.credentials.consumerSecret, documented.credentials.accessTokenSecret)).toBe(
      'hCtSmYh+iHYCEqBWrE7C7hYmtUk=',
    );
  });

  it("percent-encodes per RFC 3986 (reserved !*'() and non-ASCII as UTF-8, unreserved kept)", () => {
    expect(percentEncode('Ladies + Gentlemen')).toBe('Ladies%20%2B%20Gentlemen');
    expect(percentEncode("An encoded string!*'()")).toBe('An%20encoded%20string%21%2A%27%28%29');
    expect(percentEncode('Dogs, Cats & Mice')).toBe('Dogs%2C%20Cats%20%26%20Mice');
    expect(percentEncode('☃')).toBe('%E2%98%83');
    expect(percentEncode('-._~AZaz09')).toBe('-._~AZaz09');
  });

  it('normalizes the base string URI: lower-case scheme/host, default port dropped, other ports kept, no query', () => {
    expect(baseStringUri(new URL('HTTPS://API.X.COM:443/2/users/me?x=1#f'))).toBe('https://api.x.com/2/users/me');
    expect(baseStringUri(new URL('http://127.0.0.1:8123/2/users/me'))).toBe('http://127.0.0.1:8123/2/users/me');
  });

  it('signs query parameters and writes a sorted, quoted Authorization header', () => {
    const header = oauth1AuthorizationHeader({
      method: 'GET',
      url: 'https://api.x.com/2/media/upload?command=STATUS&media_id=123',
      credentials: documented.credentials,
      nonce: 'abc',
      timestamp: '1318622958',
    });
    expect(header).toMatch(
      /^OAuth oauth_consumer_key="xvz1evFS4wEEPTGEFPHBog", oauth_nonce="abc", oauth_signature="[^"]+", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1318622958", oauth_token="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", oauth_version="1.0"$/,
    );
    const withoutQuery = oauth1AuthorizationHeader({
      method: 'GET',
      url: 'https://api.x.com/2/media/upload',
      credentials: documented.credentials,
      nonce: 'abc',
      timestamp: '1318622958',
    });
    expect(withoutQuery).not.toBe(header);
    // Fresh nonces per request unless fixed.
    const a = oauth1Parameters({ method: 'GET', url: 'https://api.x.com/2/users/me', credentials: documented.credentials });
    const b = oauth1Parameters({ method: 'GET', url: 'https://api.x.com/2/users/me', credentials: documented.credentials });
    expect(a.oauth_nonce).not.toBe(b.oauth_nonce);
    expect(a.oauth_nonce).toMatch(/^[A-Za-z0-9]{20,}$/);
  });
});
