import { amzDateOf, canonicalRequestOf, EMPTY_PAYLOAD_SHA256, sha256Hex, signSigV4, stringToSignOf, uriEncode } from './sigv4';

/**
 * AWS's published examples, not values computed here: the SigV4 test suite's `get-vanilla` case
 * (files get-vanilla.req/.creq/.sts/.authz of aws-sig-v4-test-suite, credentials AKIDEXAMPLE) and
 * the S3 developer guide's header-signed GetObject example ("Example: GET Object", examplebucket).
 */
describe('signSigV4', () => {
  it('signs the test suite’s get-vanilla request exactly as AWS publishes it', () => {
    const signed = signSigV4(
      {
        method: 'GET',
        path: '/',
        headers: { Host: 'example.amazonaws.com', 'X-Amz-Date': '20150830T123600Z' },
        payloadHash: EMPTY_PAYLOAD_SHA256,
      },
      { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
      { region: 'us-east-1', service: 'service', amzDate: '20150830T123600Z' },
    );
    expect(signed.canonicalRequest).toBe(
      ['GET', '/', '', 'host:example.amazonaws.com', 'x-amz-date:20150830T123600Z', '', 'host;x-amz-date', EMPTY_PAYLOAD_SHA256].join('\n'),
    );
    // get-vanilla.sts: its last line is the hash of the canonical request above.
    expect(signed.stringToSign).toBe(
      'AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nbb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63',
    );
    expect(signed.signature).toBe('5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31');
    expect(signed.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
  });

  it('signs S3’s GetObject example (range, x-amz-content-sha256) as the S3 guide shows', () => {
    const signed = signSigV4(
      {
        method: 'GET',
        path: '/test.txt',
        headers: {
          Host: 'examplebucket.s3.amazonaws.com',
          Range: 'bytes=0-9',
          'x-amz-content-sha256': EMPTY_PAYLOAD_SHA256,
          'x-amz-date': '20130524T000000Z',
        },
        payloadHash: EMPTY_PAYLOAD_SHA256,
      },
      { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
      { region: 'us-east-1', service: 's3', amzDate: '20130524T000000Z' },
    );
    expect(sha256Hex(signed.canonicalRequest)).toBe('7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972');
    expect(signed.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  it('trims header values, folds their inner spaces and joins repeated names (the suite’s get-header-value-trim rule)', () => {
    const { canonicalRequest, signedHeaders } = canonicalRequestOf({
      method: 'get',
      path: '/',
      headers: { Host: 'example.amazonaws.com', 'My-Header1': ' value1', 'My-Header2': '"a   b   c"', 'X-Amz-Date': '20150830T123600Z' },
      payloadHash: EMPTY_PAYLOAD_SHA256,
    });
    expect(signedHeaders).toBe('host;my-header1;my-header2;x-amz-date');
    expect(canonicalRequest).toContain('my-header1:value1\nmy-header2:"a b c"\n');
    expect(stringToSignOf(canonicalRequest, { region: 'us-east-1', service: 'service', amzDate: '20150830T123600Z' })).toBe(
      'AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\na726db9b0df21c14f559d0a978e563112acb1b9e05476f0a6a1c7d68f28605c7',
    );
  });

  it('encodes keys once, segment by segment, keeping the slashes (S3 does not double-encode)', () => {
    expect(uriEncode('/b/centralita/ñ a+b=c~d_e.f-g', true)).toBe('/b/centralita/%C3%B1%20a%2Bb%3Dc~d_e.f-g');
    expect(uriEncode('a/b', false)).toBe('a%2Fb');
    expect(
      canonicalRequestOf({ method: 'GET', path: '/k', query: { b: '2', a: 'x y' }, headers: { host: 'h' }, payloadHash: 'p' })
        .canonicalRequest,
    ).toContain('\na=x%20y&b=2\n');
  });

  it('formats the request time as x-amz-date wants it', () => {
    expect(amzDateOf(new Date('2015-08-30T12:36:00.123Z'))).toBe('20150830T123600Z');
  });
});
