import { JwtService } from '@nestjs/jwt';
import { loadConfig } from '../../config/app-config';
import { AppException } from '../../common/app.exception';
import { AccessTokenService } from './access-token.service';

describe(AccessTokenService.name, () => {
  const config = loadConfig({ JWT_SECRET: 'unit-test-secret-unit-test-secret-1234' });
  const jwt = new JwtService({ secret: config.jwt.secret });
  const service = new AccessTokenService(jwt, config);
  const subject = { userId: 'u-1', clientId: 'c-1', sessionId: 's-1', tokenVersion: 2 };
  const codeOf = (fn: () => unknown): string => {
    try {
      fn();
      return 'none';
    } catch (error) {
      return (error as AppException).code;
    }
  };

  it('signs HS256 access tokens that verify to their claims', () => {
    const token = service.sign(subject);
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(service.verify(token)).toMatchObject({
      sub: 'u-1',
      cid: 'c-1',
      sid: 's-1',
      tv: 2,
      typ: 'access',
      iss: 'centralita',
      aud: 'centralita-console',
    });
  });

  it('tells expired tokens (session_expired) from bad ones (unauthorized)', () => {
    const expired = jwt.sign(
      { cid: 'c', sid: 's', tv: 0, typ: 'access' },
      { subject: 'u', expiresIn: -10, issuer: 'centralita', audience: 'centralita-console' },
    );
    expect(codeOf(() => service.verify(expired))).toBe('session_expired');
    expect(codeOf(() => service.verify('not.a.token'))).toBe('unauthorized');
  });

  it('refuses other token kinds, issuers and missing claims', () => {
    const sign = (payload: object, issuer = 'centralita'): string =>
      jwt.sign(payload, { subject: 'u', expiresIn: 60, issuer, audience: 'centralita-console' });
    expect(codeOf(() => service.verify(sign({ cid: 'c', sid: 's', tv: 0, typ: 'refresh' })))).toBe('unauthorized');
    expect(codeOf(() => service.verify(sign({ cid: 'c', sid: 's', tv: 0, typ: 'access' }, 'someone-else')))).toBe('unauthorized');
    expect(codeOf(() => service.verify(sign({ cid: 'c', typ: 'access' })))).toBe('unauthorized');
  });
});
