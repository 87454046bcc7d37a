import { DrachtioTelephony } from './drachtio-telephony';
import { SimulatedCarrier } from './simulated-carrier';
import type { Telephony } from './telephony';
import type { TelephonyConfig } from './telephony-config';

/** The configured implementation; for drachtio, resolves once connected and authenticated. */
export async function createTelephony(config: TelephonyConfig): Promise<Telephony> {
  switch (config.kind) {
    case 'simulator':
      return new SimulatedCarrier({
        seed: config.seed,
        timeFactor: config.timeFactor,
        maxCallsPerTrunk: config.maxCallsPerTrunk,
        ...(config.profile ? { profile: config.profile } : {}),
      });
    case 'drachtio':
      return DrachtioTelephony.connect({
        host: config.host,
        port: config.port,
        secret: config.secret,
        connectTimeoutMs: config.connectTimeoutMs,
      });
  }
}
