import { dtmfEventToDigit } from './dtmf-listener';
import { answerToAgentOffer, platformAnswerSdp, readAudioOffer } from './sdp';

const offer = (mLine: string, ...attributes: string[]) =>
  ['v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 'c=IN IP4 192.0.2.1', 't=0 0', mLine, ...attributes, ''].join('\r\n');

describe(readAudioOffer.name, () => {
  it("takes the caller's first G.711 codec and its telephone-event payload type", () => {
    expect(
      readAudioOffer(
        offer('m=audio 4000 RTP/AVP 9 8 0 96', 'a=rtpmap:9 G722/8000', 'a=rtpmap:8 PCMA/8000', 'a=rtpmap:96 telephone-event/8000'),
      ),
    ).toEqual({ codec: { payloadType: 8, name: 'PCMA' }, telephoneEvent: 96 });
    // Static payload types need no rtpmap; telephone-event at 48 kHz is not the 8 kHz one.
    expect(
      readAudioOffer(offer('m=audio 4000 RTP/AVP 0 101 110', 'a=rtpmap:110 telephone-event/48000', 'a=rtpmap:101 telephone-event/8000')),
    ).toEqual({
      codec: { payloadType: 0, name: 'PCMU' },
      telephoneEvent: 101,
    });
    expect(readAudioOffer(offer('m=audio 4000 RTP/AVP 0'))).toEqual({ codec: { payloadType: 0, name: 'PCMU' }, telephoneEvent: null });
  });

  it('is null without G.711 audio (the call gets 488)', () => {
    expect(readAudioOffer(offer('m=audio 4000 RTP/AVP 9 111', 'a=rtpmap:111 opus/48000/2'))).toBeNull();
    expect(readAudioOffer(offer('m=video 4000 RTP/AVP 96'))).toBeNull();
    expect(readAudioOffer('')).toBeNull();
  });
});

describe(platformAnswerSdp.name, () => {
  it("answers with exactly the caller's codec and telephone-event payload types at the sink", () => {
    const sdp = platformAnswerSdp(
      { codec: { payloadType: 8, name: 'PCMA' }, telephoneEvent: 96 },
      { address: '127.0.0.1', port: 40000 },
      2,
    );
    expect(sdp).toContain('m=audio 40000 RTP/AVP 8 96\r\n');
    expect(sdp).toContain('a=rtpmap:8 PCMA/8000\r\n');
    expect(sdp).toContain('a=rtpmap:96 telephone-event/8000\r\n');
    expect(sdp).toContain('o=centralita 2 2 IN IP4 127.0.0.1\r\n');
    expect(
      platformAnswerSdp({ codec: { payloadType: 0, name: 'PCMU' }, telephoneEvent: null }, { address: '127.0.0.1', port: 40000 }, 1),
    ).not.toContain('telephone-event');
  });
});

describe(dtmfEventToDigit.name, () => {
  it('maps RFC 4733 events 0-11 to keys and ignores A-D and the rest', () => {
    expect([0, 1, 9, 10, 11].map(dtmfEventToDigit)).toEqual(['0', '1', '9', '*', '#']);
    expect([12, 15, 16, -1, 1.5].map(dtmfEventToDigit)).toEqual([null, null, null, null, null]);
  });
});

describe(answerToAgentOffer.name, () => {
  const rtpengineOffer = offer(
    'm=audio 30000 UDP/TLS/RTP/SAVPF 0 101',
    'a=rtpmap:0 PCMU/8000',
    'a=sendrecv',
    'a=setup:actpass',
    'a=fingerprint:sha-256 AA:BB',
    'a=rtcp-mux',
  );

  it('mirrors a hold (sendonly → recvonly, inactive stays) and keeps the browser the DTLS client (actpass → passive)', () => {
    const held = answerToAgentOffer(rtpengineOffer, offer('m=audio 5000 UDP/TLS/RTP/SAVPF 0', 'a=sendonly', 'a=setup:actpass'));
    expect(held).toMatch(/^a=recvonly\r$/m);
    expect(held).not.toMatch(/^a=sendrecv/m);
    expect(held).toMatch(/^a=setup:passive\r$/m);
    expect(held).not.toMatch(/actpass/);
    expect(held).toMatch(/^a=fingerprint:sha-256 AA:BB\r$/m);
    expect(held.endsWith('\r\n')).toBe(true);
    expect(answerToAgentOffer(rtpengineOffer, offer('m=audio 5000 RTP/AVP 0', 'a=inactive'))).toMatch(/^a=inactive\r$/m);
  });

  it('answers a resume (sendrecv, or no direction at all) with sendrecv, once', () => {
    for (const agent of [offer('m=audio 5000 RTP/AVP 0', 'a=sendrecv'), offer('m=audio 5000 RTP/AVP 0')]) {
      const answer = answerToAgentOffer(rtpengineOffer, agent);
      expect(answer.match(/^a=(sendrecv|sendonly|recvonly|inactive)(?=\r$)/gm)).toEqual(['a=sendrecv']);
    }
  });
});
