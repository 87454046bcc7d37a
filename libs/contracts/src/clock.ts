/** Answer of GET /api/clock: the console estimates its offset from the server clock (NTP-style). */
export interface ClockReading {
  /** Server time when the request was handled (epoch ms). */
  serverTime: number;
  /** The `clientTime` the caller sent, echoed, so it can measure the round trip. */
  clientTime: number | null;
}

/**
 * Offset to add to the local clock to get server time, from one round trip: the server read its
 * clock about halfway between sending and receiving.
 */
export function clockOffset(reading: ClockReading, receivedAt: number): number {
  const sentAt = reading.clientTime ?? receivedAt;
  return reading.serverTime - (sentAt + receivedAt) / 2;
}
