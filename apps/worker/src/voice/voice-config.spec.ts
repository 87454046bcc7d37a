import { loadWorkerConfig, WorkerConfigError } from '../config/worker-config';
import { loadVoiceConfig, VoiceConfigError } from './voice-config';

describe(loadVoiceConfig.name, () => {
  it('is off (null) without VOICE_SIP_PORT, whatever else is set', () => {
    expect(loadVoiceConfig({})).toBeNull();
    expect(loadVoiceConfig({ RTPENGINE_NG: '127.0.0.1:2223' })).toBeNull();
    expect(loadWorkerConfig({ NODE_ENV: 'test' }).voice).toBeNull();
  });

  it('reads the SIP port, rtpengine, the media dir and the DTMF log address', () => {
    expect(
      loadVoiceConfig({
        VOICE_SIP_PORT: '5080',
        VOICE_SIP_HOST: '10.0.0.5',
        RTPENGINE_NG: 'rtp.internal:2223',
        VOICE_MEDIA_DIR: '/var/lib/centralita/voice',
      }),
    ).toEqual({
      sipHost: '10.0.0.5',
      sipPublicHost: '10.0.0.5',
      sipPort: 5080,
      rtpengine: { host: 'rtp.internal', port: 2223 },
      dtmfListen: { host: '127.0.0.1', port: 5081 },
      mediaDir: '/var/lib/centralita/voice',
      outboundProxy: null,
      agentMedia: 'webrtc',
      agentRingSeconds: 30,
      recordingDir: null,
      voicemailMaxSeconds: 120,
      sipTcpPort: null,
      sipTls: null,
    });
    expect(
      loadVoiceConfig({
        VOICE_SIP_PORT: '5060',
        VOICE_SIP_PUBLIC_HOST: '203.0.113.7',
        RTPENGINE_NG: '127.0.0.1:2223',
        VOICE_MEDIA_DIR: '/tmp/v',
        VOICE_DTMF_LISTEN: '0.0.0.0:9999',
        VOICE_RECORDING_DIR: '/var/spool/rtpengine',
        VOICE_VOICEMAIL_MAX_SECONDS: '300',
      }),
    ).toMatchObject({
      voicemailMaxSeconds: 300,
      sipHost: '0.0.0.0',
      sipPublicHost: '203.0.113.7',
      dtmfListen: { host: '0.0.0.0', port: 9999 },
      recordingDir: '/var/spool/rtpengine',
    });
  });

  it('lists every problem at once, and the worker refuses to start with them', () => {
    const env = { VOICE_SIP_PORT: '70000', RTPENGINE_NG: 'no-port', VOICE_DTMF_LISTEN: 'x', VOICE_VOICEMAIL_MAX_SECONDS: '5' };
    expect(() => loadVoiceConfig(env)).toThrow(VoiceConfigError);
    try {
      loadVoiceConfig(env);
    } catch (error) {
      expect((error as VoiceConfigError).problems).toEqual([
        'VOICE_SIP_PORT must be an integer between 1 and 65535 (got "70000")',
        'RTPENGINE_NG must be host:port (got "no-port")',
        'VOICE_SIP_PORT requires VOICE_MEDIA_DIR (a writable directory for the tone and hold-music files)',
        'VOICE_DTMF_LISTEN must be host:port (got "x")',
        'VOICE_VOICEMAIL_MAX_SECONDS must be an integer between 10 and 600 (got "5")',
      ]);
    }
    expect(() => loadWorkerConfig({ NODE_ENV: 'test', VOICE_SIP_PORT: '5060' })).toThrow(WorkerConfigError);
    expect(() => loadWorkerConfig({ NODE_ENV: 'test', VOICE_SIP_PORT: '5060' })).toThrow(/VOICE_SIP_PORT requires RTPENGINE_NG/);
  });

  it('turns on SIP over TCP and TLS with their own ports, and names what is missing', () => {
    const base = { VOICE_SIP_PORT: '5060', RTPENGINE_NG: '127.0.0.1:2223', VOICE_MEDIA_DIR: '/tmp/v' };
    expect(
      loadVoiceConfig({
        ...base,
        VOICE_SIP_TCP_PORT: '5060',
        VOICE_SIP_TLS_PORT: '5061',
        VOICE_SIP_TLS_CERT: '/c.pem',
        VOICE_SIP_TLS_KEY: '/k.pem',
      }),
    ).toMatchObject({ sipTcpPort: 5060, sipTls: { port: 5061, cert: '/c.pem', key: '/k.pem' } });
    expect(() => loadVoiceConfig({ ...base, VOICE_SIP_TLS_PORT: '5061' })).toThrow(
      /VOICE_SIP_TLS_PORT requires VOICE_SIP_TLS_CERT and VOICE_SIP_TLS_KEY/,
    );
    expect(() => loadVoiceConfig({ ...base, VOICE_SIP_TLS_CERT: '/c.pem' })).toThrow(/VOICE_SIP_TLS_PORT is not/);
    expect(() => loadVoiceConfig({ ...base, VOICE_SIP_TCP_PORT: 'tcp' })).toThrow(/VOICE_SIP_TCP_PORT must be an integer/);
  });
});
