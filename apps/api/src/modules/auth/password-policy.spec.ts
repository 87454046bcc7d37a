import { LIMITS, PASSWORD_POLICY } from '@centralita/contracts';
import { AppException } from '../../common/app.exception';
import { DEMO_ACCOUNTS } from '../../database/seed';
import { assertStrongPassword, passwordIssues, passwordProblem } from './password-policy';

describe('password policy', () => {
  const ana = { email: 'ana.lopez@example.com', name: 'Ana López' };

  it.each(['password1', 'qwerty123', 'Password123', 'iloveyou1', '12345678', 'letmein!', 'abc12345', 'P@ssw0rd'])(
    'refuses the common password %j',
    (password) => expect(passwordProblem(password, ana)).toBe('weakPassword'),
  );

  it.each(['ana.lopez@example.com', 'ANA.LOPEZ@example.com', 'ana.lopez@example.com1', 'ana.lopez2024', 'Ana López!!'])(
    'refuses %j: made from the account email or name, whatever its length',
    (password) => expect(passwordProblem(password, ana)).toBe('personalPassword'),
  );

  it('keeps the minimum length', () => {
    expect(passwordProblem('Zx9!k', ana)).toBe('minLength');
    expect(LIMITS.minPasswordLength).toBe(8);
  });

  it('accepts long passphrases and strong short passwords', () => {
    expect(passwordProblem('correct horse battery staple', ana)).toBeNull();
    expect(passwordProblem('a'.repeat(PASSWORD_POLICY.passphraseLength - 1) + 'b', ana)).toBeNull();
    expect(passwordProblem('Tq7#vRm2pLx', ana)).toBeNull();
  });

  it('passes the demo accounts and the test factories (they must sign in under the rule)', () => {
    for (const account of DEMO_ACCOUNTS) expect(passwordProblem(account.password, account)).toBeNull();
    expect(passwordProblem('correct horse battery staple', { email: 'x@test.centralita.io', name: 'Test User' })).toBeNull();
  });

  it('stays fast whatever it is sent (the estimator only sees short passwords)', () => {
    // CPU time, not wall-clock: a loaded machine delays the test without making the work slower.
    const started = process.cpuUsage();
    for (let i = 0; i < 20; i++) passwordProblem('ab1!'.repeat(256), ana);
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(500);
  });

  it('throws the envelope error with the field issue the console translates', () => {
    expect(passwordIssues('qwerty123', ana)).toEqual([{ field: 'password', key: 'weakPassword', values: { count: 16 } }]);
    try {
      assertStrongPassword('qwerty123', ana);
      throw new Error('not thrown');
    } catch (error) {
      expect(error).toBeInstanceOf(AppException);
      expect((error as AppException).code).toBe('weak_password');
      expect((error as AppException).status).toBe(400);
      expect((error as AppException).data).toMatchObject({ fields: { password: [expect.stringMatching(/too common/)] } });
    }
    expect(() => assertStrongPassword('correct horse battery staple', ana)).not.toThrow();
  });
});
