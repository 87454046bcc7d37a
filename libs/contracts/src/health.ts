/** GET /api/health: 200 when both are up, 503 (same data) when either is down. */
export interface HealthReport {
  database: 'up' | 'down';
  redis: 'up' | 'down';
  /**
   * The phone channel (inbound voice, issue #22): 'connected' while a worker's voice server (VOICE_SIP_PORT) keeps its
   * status fresh in Redis and reaches its rtpengine; 'notConnected' otherwise (e.g. `npm start` with no telephony).
   * Informational: it never turns the answer into a 503.
   */
  voice: 'connected' | 'notConnected';
}
