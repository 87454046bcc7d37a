import { Logger, type Provider } from '@nestjs/common';
import { ConfigCrypto } from '@centralita/contracts/server';

/**
 * The API's ConfigCrypto (the implementation lives in @centralita/contracts/server, shared with the
 * worker's dialer). Built once at start-up: a missing production key stops the API before it
 * serves anything.
 */
export const configCryptoProvider: Provider = {
  provide: ConfigCrypto,
  useFactory: () => new ConfigCrypto(process.env, (message) => new Logger('ConfigCrypto').warn(message)),
};
