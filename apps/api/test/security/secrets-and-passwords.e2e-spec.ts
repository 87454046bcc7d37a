import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ConfigCrypto } from '@centralita/contracts/server';
import { Client as PgClient } from 'pg';
import { runMigrations } from '../../src/database/migrate';
import { PasswordResetToken } from '../../src/modules/auth/password-reset-token.entity';
import { sha256 } from '../../src/modules/auth/refresh-token.service';
import { User } from '../../src/modules/users/user.entity';
import { createTenant, createUser } from '../support/factories';
import { bearer, login, startTestApp, uniqueEmail, type TestApp } from '../support/test-app';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const REGISTER_TS = path.join(__dirname, '..', 'support', 'register-ts.cjs');

/** Runs a TypeScript entry point of the repo the way the built one runs; resolves with its exit and output. */
function run(entry: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', REGISTER_TS, path.join(ROOT, entry), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} did not exit within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** An environment for a production start, complete but for what a test leaves out. */
function productionEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    DATABASE_URL: process.env.DATABASE_URL,
    REDIS_URL: process.env.REDIS_URL,
    QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-prodstart`,
    PUBLIC_URL: 'https://cc.example.com',
    JWT_SECRET: randomBytes(32).toString('hex'),
    SMTP_URL: 'smtp://127.0.0.1:2525',
    PORT: '0',
    HOST: '127.0.0.1',
    ...extra,
  };
  return env;
}

/**
 * Issue 17 item 5, class "secrets at rest and passwords". Before: without CONFIG_ENCRYPTION_KEY
 * the API and worker derived a key published in the source (outside production), rotating it had
 * no tool, and any 8 characters were a password ('password1', 'qwerty123', one's own email).
 */
describe('Security: secrets at rest and passwords (e2e)', () => {
  describe('CONFIG_ENCRYPTION_KEY', () => {
    it('the API refuses to start in production without it, and says why', async () => {
      const { code, output } = await run('apps/api/src/main.ts', [], productionEnv());
      expect(code).not.toBe(0);
      expect(output).toMatch(/CONFIG_ENCRYPTION_KEY is required when NODE_ENV=production/);
      expect(output).not.toMatch(/listening on/);
    }, 90_000);

    it('the worker refuses to start in production without it, and says why', async () => {
      const { code, output } = await run('apps/worker/src/main.ts', [], productionEnv());
      expect(code).not.toBe(0);
      expect(output).toMatch(/CONFIG_ENCRYPTION_KEY is required when NODE_ENV=production/);
      expect(output).not.toMatch(/worker started/);
    }, 90_000);

    it('re-encrypt command: every secret moves to the new key in one run; a second run changes nothing', async () => {
      // A database of its own: the rotation rewrites every secret of the database it is given.
      const name = `centralita_rotate_${randomBytes(4).toString('hex')}`;
      const admin = new PgClient({ connectionString: process.env.CENTRALITA_ADMIN_DATABASE_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      const url = new URL(process.env.CENTRALITA_ADMIN_DATABASE_URL!);
      url.pathname = `/${name}`;
      const db = new PgClient({ connectionString: url.toString() });
      try {
        await runMigrations(url.toString());
        await db.connect();
        const oldKey = randomBytes(32).toString('hex');
        const newKey = randomBytes(32).toString('hex');
        const [{ id: resellerId }] = (await db.query(`INSERT INTO resellers (name) VALUES ('R') RETURNING id`)).rows;
        const [{ id: clientId }] = (await db.query(`INSERT INTO clients (reseller_id, name) VALUES ($1, 'T') RETURNING id`, [resellerId]))
          .rows;
        await db.query(
          `INSERT INTO trunks (client_id, name, host, transport, max_concurrent_calls, password_encrypted) VALUES ($1, 'C', 'sip.example.com', 'udp', 2, $2)`,
          [clientId, ConfigCrypto.fromKey(oldKey).encrypt('carrier-secret')],
        );
        const env = {
          PATH: process.env.PATH,
          DATABASE_URL: url.toString(),
          CONFIG_ENCRYPTION_KEY: newKey,
          OLD_CONFIG_ENCRYPTION_KEY: oldKey,
        };

        const first = await run('apps/api/src/database/cli.ts', ['reencrypt'], env);
        expect(first).toMatchObject({ code: 0 });
        expect(first.output).toMatch(/re-encrypted 1 secret\(s\)[^\n]*; 0 already used it/);
        const [{ password_encrypted: stored }] = (await db.query(`SELECT password_encrypted FROM trunks`)).rows;
        expect(ConfigCrypto.fromKey(newKey).decrypt(stored)).toBe('carrier-secret');

        const second = await run('apps/api/src/database/cli.ts', ['reencrypt'], env);
        expect(second.output).toMatch(/re-encrypted 0 secret\(s\)[^\n]*; 1 already used it/);
        expect((await db.query(`SELECT password_encrypted FROM trunks`)).rows[0].password_encrypted).toBe(stored);

        const wrong = await run('apps/api/src/database/cli.ts', ['reencrypt'], {
          ...env,
          CONFIG_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        });
        expect(wrong.code).not.toBe(0);
        expect(wrong.output).toMatch(/cannot be decrypted[^\n]*nothing was changed/);
      } finally {
        await db.end().catch(() => undefined);
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      }
    }, 120_000);
  });

  describe('passwords: common ones refused everywhere a password is set', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ selfRegistration: { enabled: true, resellerId: null } });
    });
    afterAll(() => t?.close());

    const weak = (email: string): string[] => ['password1', 'qwerty123', email];
    const passphrase = 'violet kettle drums at noon';

    const expectWeak = (body: { statusCode: number; errorCode?: string; data: unknown }): void => {
      expect(body.statusCode).toBe(400);
      expect(body.errorCode).toBe('weak_password');
      expect(body.data).toMatchObject({ fields: { password: [expect.any(String)] } });
    };

    it('on registration', async () => {
      const email = uniqueEmail('reg');
      for (const password of weak(email)) {
        const response = await t.http().post('/api/auth/register').send({ email, username: 'Reg', password }).expect(400);
        expectWeak(response.body);
      }
      await t.http().post('/api/auth/register').send({ email, username: 'Reg', password: passphrase }).expect(200);
    });

    it('on password reset: the link stays unspent and the password unchanged', async () => {
      const tenant = await createTenant(t.dataSource);
      const { user, email, password } = await createUser(t.dataSource, tenant);
      const token = randomBytes(32).toString('base64url');
      await t.dataSource
        .getRepository(PasswordResetToken)
        .insert({ userId: user.id, tokenHash: sha256(token), expiresAt: new Date(Date.now() + 600_000) });
      for (const candidate of weak(email)) {
        const response = await t.http().post('/Session/ResetPassword').send({ token, password: candidate }).expect(400);
        expectWeak(response.body);
      }
      await login(t, email, password);
      await t.http().post('/Session/ResetPassword').send({ token, password: passphrase }).expect(200);
      await login(t, email, passphrase);
    });

    it("on an administrator setting a user's password", async () => {
      const tenant = await createTenant(t.dataSource);
      const admin = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
      const target = await createUser(t.dataSource, tenant, { role: 'AGENT' });
      const { accessToken } = await login(t, admin.email, admin.password);
      const before = (await t.dataSource.getRepository(User).findOneByOrFail({ id: target.user.id })).passwordHash;
      const body = (password: string) => ({
        name: target.user.name,
        email: target.email,
        roleId: target.user.roleId,
        active: true,
        password,
      });
      for (const candidate of weak(target.email)) {
        const response = await t.http().put(`/api/users/${target.user.id}`).set(bearer(accessToken)).send(body(candidate)).expect(400);
        expectWeak(response.body);
      }
      expect((await t.dataSource.getRepository(User).findOneByOrFail({ id: target.user.id })).passwordHash).toBe(before);
      await t.http().put(`/api/users/${target.user.id}`).set(bearer(accessToken)).send(body(passphrase)).expect(200);
      await login(t, target.email, passphrase);
    });

    it('on accepting an invitation', async () => {
      const tenant = await createTenant(t.dataSource);
      const email = uniqueEmail('invited');
      const token = randomBytes(32).toString('base64url');
      await t.dataSource.query(
        `INSERT INTO user_invitations (client_id, email, name, role_id, token_hash, expires_at) VALUES ($1, $2, 'Invited Person', $3, $4, now() + interval '1 hour')`,
        [tenant.client.id, email, tenant.roles.get('AGENT')!.id, sha256(token)],
      );
      for (const candidate of weak(email)) {
        const response = await t.http().post('/api/invitations/accept').send({ token, password: candidate }).expect(400);
        expectWeak(response.body);
      }
      expect(await t.dataSource.getRepository(User).countBy({ email })).toBe(0);
      await t.http().post('/api/invitations/accept').send({ token, password: passphrase }).expect(200);
      await login(t, email, passphrase);
    });
  });
});
