/** The inbound voice server's settings (issue #22), read once at start-up; null when voice is off. */
export interface VoiceConfig {
  /** Address the SIP server binds (VOICE_SIP_HOST, default 0.0.0.0) and the one it writes in Via/Contact (VOICE_SIP_PUBLIC_HOST, default the bind address). */
  sipHost: string;
  sipPublicHost: string;
  /** VOICE_SIP_PORT: the UDP port carriers send INVITEs to. */
  sipPort: number;
  /** RTPENGINE_NG host:port: rtpengine's ng control socket (UDP). */
  rtpengine: { host: string; port: number };
  /**
   * VOICE_DTMF_LISTEN host:port (default 127.0.0.1:<VOICE_SIP_PORT + 1>): where this worker receives rtpengine's DTMF
   * log (rtpengine must run with --dtmf-log-dest=<this address>).
   */
  dtmfListen: { host: string; port: number };
  /** VOICE_MEDIA_DIR: the tone and hold-music files generated at start-up (sox) live here. */
  mediaDir: string;
  /**
   * VOICE_OUTBOUND_PROXY host:port (UDP): the SIP proxy / registrar (kamailio) the agents' softphones register at; the
   * 'connect' INVITE to an agent's SIP URI is sent there (Route ;lr). Unset: sent to the URI's own host.
   */
  outboundProxy: { host: string; port: number } | null;
  /**
   * VOICE_AGENT_MEDIA: the media profile of the agent's leg. 'webrtc' (default: the console's sip.js softphone —
   * DTLS-SRTP, ICE, rtcp-mux) or 'rtp' (plain RTP/AVP desk phones and SIP clients).
   */
  agentMedia: 'webrtc' | 'rtp';
  /** VOICE_AGENT_RING_SECONDS (default 30, 5–120): how long an agent's softphone rings before the call goes back to hold. */
  agentRingSeconds: number;
  /**
   * VOICE_RECORDING_DIR: rtpengine's --recording-dir (it must run with --recording-method=pcap), readable and writable
   * by this worker. Unset: no call is recorded, whatever the tenants' settings say.
   */
  recordingDir?: string | null;
  /** VOICE_VOICEMAIL_MAX_SECONDS (default 120, 10–600): the longest voicemail message; recording stops there. */
  voicemailMaxSeconds?: number;
  /**
   * VOICE_SIP_TCP_PORT: SIP over TCP on this port as well (off when unset). Responses go back on the caller's connection,
   * and so do requests to the caller (BYE) while it is open.
   */
  sipTcpPort?: number | null;
  /** VOICE_SIP_TLS_PORT with VOICE_SIP_TLS_CERT and VOICE_SIP_TLS_KEY (PEM files): SIP over TLS (off when unset). */
  sipTls?: { port: number; cert: string; key: string } | null;
}

/** The longest voicemail message when VOICE_VOICEMAIL_MAX_SECONDS is unset. */
export const DEFAULT_VOICEMAIL_MAX_SECONDS = 120;

export class VoiceConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid voice configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'VoiceConfigError';
  }
}

function hostPort(raw: string, name: string, problems: string[]): { host: string; port: number } | null {
  const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(raw);
  const port = match ? Number(match[2]) : NaN;
  if (!match || !(port >= 1 && port <= 65535)) {
    problems.push(`${name} must be host:port (got "${raw}")`);
    return null;
  }
  return { host: match[1]!, port };
}

/**
 * VOICE_SIP_PORT switches the voice server on; it then needs RTPENGINE_NG and VOICE_MEDIA_DIR. Without VOICE_SIP_PORT
 * the worker runs without voice (the phone channel is "not connected"). Every problem is reported at once.
 */
export function loadVoiceConfig(env: NodeJS.ProcessEnv = process.env): VoiceConfig | null {
  const read = (name: string): string | undefined => env[name]?.trim() || undefined;
  const portRaw = read('VOICE_SIP_PORT');
  if (portRaw === undefined) return null;
  const problems: string[] = [];
  const sipPort = Number(portRaw);
  if (!(Number.isInteger(sipPort) && sipPort >= 1 && sipPort <= 65535))
    problems.push(`VOICE_SIP_PORT must be an integer between 1 and 65535 (got "${portRaw}")`);
  const sipHost = read('VOICE_SIP_HOST') ?? '0.0.0.0';
  const sipPublicHost = read('VOICE_SIP_PUBLIC_HOST') ?? (sipHost === '0.0.0.0' ? '127.0.0.1' : sipHost);
  const ngRaw = read('RTPENGINE_NG');
  const rtpengine = ngRaw ? hostPort(ngRaw, 'RTPENGINE_NG', problems) : null;
  if (!ngRaw) problems.push('VOICE_SIP_PORT requires RTPENGINE_NG (host:port of rtpengine --listen-ng)');
  const mediaDir = read('VOICE_MEDIA_DIR');
  if (!mediaDir) problems.push('VOICE_SIP_PORT requires VOICE_MEDIA_DIR (a writable directory for the tone and hold-music files)');
  const dtmfRaw = read('VOICE_DTMF_LISTEN') ?? `127.0.0.1:${sipPort + 1}`;
  const dtmfListen = hostPort(dtmfRaw, 'VOICE_DTMF_LISTEN', problems);
  const proxyRaw = read('VOICE_OUTBOUND_PROXY');
  const outboundProxy = proxyRaw ? hostPort(proxyRaw, 'VOICE_OUTBOUND_PROXY', problems) : null;
  const agentMedia = (read('VOICE_AGENT_MEDIA') ?? 'webrtc').toLowerCase();
  if (agentMedia !== 'webrtc' && agentMedia !== 'rtp') problems.push(`VOICE_AGENT_MEDIA must be webrtc or rtp (got "${agentMedia}")`);
  const ringRaw = read('VOICE_AGENT_RING_SECONDS') ?? '30';
  const agentRingSeconds = Number(ringRaw);
  if (!(Number.isInteger(agentRingSeconds) && agentRingSeconds >= 5 && agentRingSeconds <= 120))
    problems.push(`VOICE_AGENT_RING_SECONDS must be an integer between 5 and 120 (got "${ringRaw}")`);
  const voicemailRaw = read('VOICE_VOICEMAIL_MAX_SECONDS') ?? String(DEFAULT_VOICEMAIL_MAX_SECONDS);
  const voicemailMaxSeconds = Number(voicemailRaw);
  if (!(Number.isInteger(voicemailMaxSeconds) && voicemailMaxSeconds >= 10 && voicemailMaxSeconds <= 600))
    problems.push(`VOICE_VOICEMAIL_MAX_SECONDS must be an integer between 10 and 600 (got "${voicemailRaw}")`);
  const optionalPort = (name: string): number | null => {
    const raw = read(name);
    if (raw === undefined) return null;
    const value = Number(raw);
    if (!(Number.isInteger(value) && value >= 1 && value <= 65535)) {
      problems.push(`${name} must be an integer between 1 and 65535 (got "${raw}")`);
      return null;
    }
    return value;
  };
  const sipTcpPort = optionalPort('VOICE_SIP_TCP_PORT');
  const tlsPort = optionalPort('VOICE_SIP_TLS_PORT');
  const tlsCert = read('VOICE_SIP_TLS_CERT');
  const tlsKey = read('VOICE_SIP_TLS_KEY');
  if (read('VOICE_SIP_TLS_PORT') !== undefined && (!tlsCert || !tlsKey))
    problems.push('VOICE_SIP_TLS_PORT requires VOICE_SIP_TLS_CERT and VOICE_SIP_TLS_KEY (PEM files of the certificate and its key)');
  else if (read('VOICE_SIP_TLS_PORT') === undefined && (tlsCert || tlsKey))
    problems.push('VOICE_SIP_TLS_CERT / VOICE_SIP_TLS_KEY are set but VOICE_SIP_TLS_PORT is not');
  if (tlsPort !== null && tlsPort === sipTcpPort) problems.push('VOICE_SIP_TLS_PORT and VOICE_SIP_TCP_PORT must differ');
  if (problems.length) throw new VoiceConfigError(problems);
  return {
    sipHost,
    sipPublicHost,
    sipPort,
    rtpengine: rtpengine!,
    dtmfListen: dtmfListen!,
    mediaDir: mediaDir!,
    outboundProxy,
    agentMedia: agentMedia as 'webrtc' | 'rtp',
    agentRingSeconds,
    recordingDir: read('VOICE_RECORDING_DIR') ?? null,
    voicemailMaxSeconds,
    sipTcpPort,
    sipTls: tlsPort !== null ? { port: tlsPort, cert: tlsCert!, key: tlsKey! } : null,
  };
}
