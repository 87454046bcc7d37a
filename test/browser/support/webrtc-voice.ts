import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { VoiceCallEvent } from '@centralita/contracts';
import type { VoiceEventSink } from '../../../apps/worker/src/voice/voice-events';
import { VoiceServer } from '../../../apps/worker/src/voice/voice-server';
import { startKamailio, type RunningKamailio } from '../../support/kamailio';
import { freeUdpPort, startRtpengine, type RunningRtpengine } from '../../support/rtpengine';

export interface WebrtcVoiceStack {
  rtpengine: RunningRtpengine;
  kamailio: RunningKamailio;
  /** The voice server (VOICE_AGENT_MEDIA=webrtc, agents rung 20 s) in this process, started. */
  server: VoiceServer;
  /** Its SIP port on 127.0.0.1, for the test phone's INVITE. */
  sipPort: number;
  /** A temporary folder (the server's media under it): the suite removes it when done. */
  dir: string;
  /** What the voice server published, in order. */
  events: VoiceCallEvent[];
}

/**
 * A real rtpengine and kamailio (WebSocket for the browsers' sip.js, UDP on 127.0.0.3) and the voice
 * server between them, for the WebRTC browser suites: `number` rings straight into `tenant`'s line
 * 'line-direct' (Spanish, trunk 'trunk-1', no IVR). What was started is stopped again if a later step
 * fails; otherwise the suite stops it in its afterAll, in its own order.
 */
export async function startWebrtcVoiceStack(options: { dirPrefix: string; number: string; tenant: string }): Promise<WebrtcVoiceStack> {
  const dir = mkdtempSync(path.join(tmpdir(), options.dirPrefix));
  const events: VoiceCallEvent[] = [];
  const sink: VoiceEventSink = { publish: (event) => void events.push(event), flush: async () => undefined, close: async () => undefined };
  let rtpengine: RunningRtpengine | undefined;
  let kamailio: RunningKamailio | undefined;
  try {
    const dtmfPort = await freeUdpPort();
    rtpengine = await startRtpengine({ dtmfLogDest: { host: '127.0.0.1', port: dtmfPort } });
    kamailio = await startKamailio({ udpHost: '127.0.0.3' });
    const sipPort = await freeUdpPort();
    const server = new VoiceServer(
      {
        sipHost: '127.0.0.1',
        sipPublicHost: '127.0.0.1',
        sipPort,
        rtpengine: rtpengine.ng,
        dtmfListen: { host: '127.0.0.1', port: dtmfPort },
        mediaDir: path.join(dir, 'media'),
        outboundProxy: kamailio.udp,
        agentMedia: 'webrtc',
        agentRingSeconds: 20,
      },
      {
        resolveNumber: async (called) => {
          const number = called.startsWith('+') ? called : `+${called}`;
          return number === options.number
            ? { number, tenantId: options.tenant, trunkId: 'trunk-1', ivrId: null, attentionLineId: 'line-direct', language: 'es' }
            : null;
        },
        loadIvr: async () => null,
        promptFile: async () => null,
        events: sink,
      },
    );
    await server.start();
    return { rtpengine, kamailio, server, sipPort, dir, events };
  } catch (error) {
    await kamailio?.stop();
    await rtpengine?.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
