import { createHmac } from 'node:crypto';
import { loadVideoConfig } from './video-config';
import { callLength } from './video-texts';
import { RecordingUrlSigner, TOKEN_PATTERN, hashToken, iceConfig, newToken, turnCredentials } from './video-tokens';
import { chunkDecision, linkProblem } from './video.service';
import { validSignal } from './video-signalling.service';

const CALL = '7f9c2b1e-3a4d-4e5f-8a9b-0c1d2e3f4a5b';

describe('video link tokens', () => {
  it('are 32 random bytes in base64url, different every time, stored only as their SHA-256', () => {
    const a = newToken();
    const b = newToken();
    expect(a).toMatch(TOKEN_PATTERN);
    expect(a).not.toBe(b);
    expect(hashToken(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(a)).not.toContain(a);
    expect(hashToken(a)).toBe(hashToken(a));
  });
});

describe(turnCredentials.name, () => {
  it("follows coturn's REST API scheme: username expiry:callId, credential base64 HMAC-SHA1 of it", () => {
    const { username, credential } = turnCredentials('a-long-shared-secret', CALL, 1_800_000_000, 3600);
    expect(username).toBe(`1800003600:${CALL}`);
    expect(credential).toBe(createHmac('sha1', 'a-long-shared-secret').update(`1800003600:${CALL}`).digest('base64'));
  });

  it('gives STUN URLs without credentials and TURN URLs with them', () => {
    const ice = iceConfig(
      {
        turnUrls: ['stun:stun.example.com:3478', 'turn:turn.example.com:3478?transport=udp'],
        turnSecret: 'a-long-shared-secret',
        turnTtlSeconds: 600,
      },
      CALL,
      100,
    );
    expect(ice.ttlSeconds).toBe(600);
    expect(ice.iceServers).toEqual([
      { urls: ['stun:stun.example.com:3478'] },
      { urls: ['turn:turn.example.com:3478?transport=udp'], username: `700:${CALL}`, credential: expect.any(String) },
    ]);
  });

  it('forces the relay when the operator asks (VIDEO_FORCE_RELAY)', () => {
    const settings = loadVideoConfig({ TURN_URLS: 'turn:127.0.0.1:3478', TURN_SECRET: 'a-long-shared-secret', VIDEO_FORCE_RELAY: 'on' });
    expect(iceConfig(settings, CALL, 0).iceTransportPolicy).toBe('relay');
    expect(iceConfig({ ...settings, forceRelay: false }, CALL, 0).iceTransportPolicy).toBe('all');
  });

  it('gives no servers when no relay is configured', () => {
    expect(iceConfig({ turnUrls: [], turnSecret: null, turnTtlSeconds: 3600 }, CALL, 0).iceServers).toEqual([]);
  });
});

describe(loadVideoConfig.name, () => {
  it('has working local defaults', () => {
    expect(loadVideoConfig({})).toEqual({
      turnUrls: [],
      turnSecret: null,
      turnTtlSeconds: 3600,
      linkTtlSeconds: 900,
      agentGraceSeconds: 15,
      forceRelay: false,
    });
  });

  it('refuses a TURN URL without a secret, a bad URL and a bad number, naming each variable', () => {
    expect(() => loadVideoConfig({ TURN_URLS: 'turn:relay.example.com:3478' })).toThrow(/TURN_SECRET is required/);
    expect(() => loadVideoConfig({ TURN_URLS: 'http://relay.example.com', TURN_SECRET: 'x'.repeat(20) })).toThrow(/TURN_URLS: "http/);
    expect(() => loadVideoConfig({ VIDEO_LINK_TTL_SECONDS: 'soon' })).toThrow(/VIDEO_LINK_TTL_SECONDS must be an integer/);
    expect(() => loadVideoConfig({ VIDEO_FORCE_RELAY: 'on' })).toThrow(/VIDEO_FORCE_RELAY=on needs a turn: URL/);
  });
});

describe(linkProblem.name, () => {
  const now = new Date('2026-11-26T10:00:00Z');
  const open = { status: 'offered' as const, used_at: null, expires_at: new Date('2026-11-26T10:10:00Z'), agent_id: 'a' };
  const active = { status: 'Active', agent_id: 'a' };

  it('lets a fresh link of an Active conversation through', () => {
    expect(linkProblem(open, active, now)).toBeNull();
  });

  it('names why a link cannot be used: unknown, ended, used, expired, conversation closed or moved', () => {
    expect(linkProblem(undefined, undefined, now)).toBe('unknown');
    expect(linkProblem({ ...open, status: 'ended' }, active, now)).toBe('ended');
    expect(linkProblem({ ...open, used_at: new Date() as never }, active, now)).toBe('used');
    expect(linkProblem({ ...open, expires_at: new Date('2026-11-26T10:00:00Z') }, active, now)).toBe('expired');
    expect(linkProblem(open, { status: 'Closed', agent_id: 'a' }, now)).toBe('conversation_closed');
    expect(linkProblem(open, { status: 'Active', agent_id: 'someone else' }, now)).toBe('conversation_closed');
  });
});

describe(chunkDecision.name, () => {
  it('takes chunks only in order, while recording', () => {
    expect(chunkDecision(null, 'h', { status: 'recording', chunks: 0 }, 0)).toBe('take');
    expect(chunkDecision(null, 'h', { status: 'recording', chunks: 3 }, 3)).toBe('take');
    expect(chunkDecision(null, 'h', { status: 'recording', chunks: 3 }, 5)).toBe('out_of_order');
    expect(chunkDecision(null, 'h', { status: 'finalising', chunks: 3 }, 3)).toBe('closed');
  });

  it('acknowledges a retried chunk with the same bytes and refuses different bytes at a stored index', () => {
    expect(chunkDecision('h', 'h', { status: 'recording', chunks: 3 }, 1)).toBe('duplicate');
    expect(chunkDecision('h', 'other', { status: 'recording', chunks: 3 }, 1)).toBe('mismatch');
    // A retry after the recording closed is still acknowledged: the upload did land.
    expect(chunkDecision('h', 'h', { status: 'ready', chunks: 3 }, 2)).toBe('duplicate');
  });
});

describe(RecordingUrlSigner.name, () => {
  const signer = new RecordingUrlSigner('jwt-secret-for-tests');
  const tenant = '11111111-1111-4111-8111-111111111111';

  it('signs a URL that verifies until it expires, for that tenant and recording only', () => {
    const url = new URL(signer.url(tenant, CALL, 1000, 60), 'http://x');
    const [t, e, s] = ['t', 'e', 's'].map((key) => url.searchParams.get(key)!);
    expect(url.pathname).toBe(`/api/video-recordings/${CALL}/content`);
    expect(signer.verify(t, CALL, Number(e), s, 1000)).toBe(true);
    expect(signer.verify(t, CALL, Number(e), s, 1061)).toBe(false);
    expect(signer.verify('22222222-2222-4222-8222-222222222222', CALL, Number(e), s, 1000)).toBe(false);
    expect(signer.verify(t, CALL, Number(e) + 1, s, 1000)).toBe(false);
    expect(new RecordingUrlSigner('another-secret').verify(t, CALL, Number(e), s, 1000)).toBe(false);
  });
});

describe(validSignal.name, () => {
  it('keeps a well-formed signal and drops the rest', () => {
    expect(validSignal({ callId: CALL, kind: 'offer', data: { sdp: 'v=0' } })).toEqual({
      callId: CALL,
      kind: 'offer',
      data: { sdp: 'v=0' },
    });
    expect(validSignal({ callId: 'nope', kind: 'offer', data: {} })).toBeNull();
    expect(validSignal({ callId: CALL, kind: 'exec', data: {} })).toBeNull();
    expect(validSignal({ callId: CALL, kind: 'candidate', data: 'x'.repeat(70_000) })).toBeNull();
    expect(validSignal(null)).toBeNull();
  });
});

describe(callLength.name, () => {
  it('writes m:ss, and h:mm:ss past an hour', () => {
    expect(callLength(65_400)).toBe('1:05');
    expect(callLength(3_725_000)).toBe('1:02:05');
  });
});
