import type { OutgoingAddressPolicy } from '@centralita/contracts/server';
import { DrachtioTelephony } from './drachtio-telephony';
import { SimulatedCarrier } from './simulated-carrier';
import type { Telephony } from './telephony';
import type { TelephonyConfig } from './telephony-config';

/**
 * The configured implementation; for drachtio, resolves once connected and authenticated. `outgoing`
 * is the policy drachtio checks trunk and agent addresses with (default: no non-public range allowed).
 */
export async function createTelephony(
  config: TelephonyConfig,
  options: { outgoing?: Pick<OutgoingAddressPolicy, 'resolve'> } = {},
): Promise<Telephony> {
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
        ...(options.outgoing ? { outgoing: options.outgoing } : {}),
      });
  }
}
