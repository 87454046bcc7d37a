import { DEFAULT_EMOTICONS, SECRET_MASK } from '@centralita/contracts';
import { AuditLog } from '../src/modules/admin/audit-log.entity';
import { ChannelConfig } from '../src/modules/platform-settings/platform-settings.entities';
import { PlatformSettingsService } from '../src/modules/platform-settings/platform-settings.service';
import { type TestTenant, twoTenants } from './support/factories';
import { bearer, startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(30_000);

describe('Platform settings and channels (e2e)', () => {
  let t: TestApp;
  let tenantA: TestTenant;
  let adminA: string;
  let adminB: string;
  let agentA: string;

  beforeAll(async () => {
    t = await startTestApp();
    ({ tenantA, adminA, adminB, agentA } = await twoTenants(t));
  });
  afterAll(() => t.close());

  const settings = {
    welcomeMessage: 'Hi!',
    offHoursMessage: 'Closed',
    idleLogoutMinutes: 20,
    maxQueueWaitSeconds: 600,
    emoticons: ['👍', '🙂'],
    callRecording: true,
    announceCallRecording: false,
    callRecordingRetentionDays: 30,
  };

  it('shows, before anything is saved, the values in effect: no tenant texts, the desk emoticons, the queue wait applied', async () => {
    const unsaved = (await t.http().get('/api/platform-settings').set(bearer(adminB)).expect(200)).body.data;
    // Empty messages: the widget uses its own texts in the visitor's language (webchat line info answers '').
    expect(unsaved).toEqual({
      welcomeMessage: '',
      offHoursMessage: '',
      idleLogoutMinutes: 30,
      maxQueueWaitSeconds: Number(process.env.QUEUE_TIMEOUT_SECONDS ?? 1800),
      emoticons: [...DEFAULT_EMOTICONS],
      // Calls are not recorded until the tenant says so; when it does, callers are told, and recordings kept 90 days.
      callRecording: false,
      announceCallRecording: true,
      callRecordingRetentionDays: 90,
    });
    // A tenant that saved an empty list gets the list the desk then offers, not an empty field.
    const cleared = (
      await t
        .http()
        .put('/api/platform-settings')
        .set(bearer(adminB))
        .send({ ...unsaved, emoticons: [] })
        .expect(200)
    ).body.data;
    expect(cleared.emoticons).toEqual([...DEFAULT_EMOTICONS]);
  });

  it('saves settings per tenant with validation and an audit row', async () => {
    const saved = (await t.http().put('/api/platform-settings').set(bearer(adminA)).send(settings).expect(200)).body.data;
    expect(saved).toEqual(settings);
    const other = (await t.http().get('/api/platform-settings').set(bearer(adminB)).expect(200)).body.data;
    expect(other.welcomeMessage).not.toBe('Hi!');
    const bad = await t
      .http()
      .put('/api/platform-settings')
      .set(bearer(adminA))
      .send({ ...settings, idleLogoutMinutes: 2, welcomeMessage: 'x'.repeat(501), callRecordingRetentionDays: 0 })
      .expect(400);
    expect(Object.keys(bad.body.data.fields).sort()).toEqual(['callRecordingRetentionDays', 'idleLogoutMinutes', 'welcomeMessage']);
    expect(await t.dataSource.getRepository(AuditLog).countBy({ entityType: 'platform-settings', entityId: tenantA.client.id })).toBe(1);
  });

  it('gives every user of the tenant its idle sign-out in the session user, which needs no settings.manage', async () => {
    await t
      .http()
      .put('/api/platform-settings')
      .set(bearer(adminA))
      .send({ ...settings, idleLogoutMinutes: 7 })
      .expect(200);
    await t.http().get('/api/platform-settings').set(bearer(agentA)).expect(403);
    const agent = (await t.http().get('/api/auth/user-info').set(bearer(agentA)).expect(200)).body.data;
    expect(agent.idleLogoutMinutes).toBe(7);
    const profile = (await t.http().get('/api/auth/profile').set(bearer(agentA)).expect(200)).body.data;
    expect(profile.idleLogoutMinutes).toBe(7);
    // Another tenant that never saved its settings has the default.
    const other = (await t.http().get('/api/auth/user-info').set(bearer(adminB)).expect(200)).body.data;
    expect(other.idleLogoutMinutes).toBe(30);
  });

  it('stores channel secrets encrypted, answers them masked, and keeps them when the mask comes back', async () => {
    const put = await t
      .http()
      .put('/api/channels-config/WhatsApp')
      .set(bearer(adminA))
      .send({ enabled: true, settings: { phoneNumberId: '1234' }, secrets: { accessToken: 'EAAG-very-secret', appSecret: 'app-secret-1' } })
      .expect(200);
    expect(put.body.data.secrets).toEqual({ accessToken: SECRET_MASK, appSecret: SECRET_MASK, verifyToken: '' });
    expect(JSON.stringify(put.body)).not.toContain('EAAG-very-secret');
    const row = await t.dataSource.getRepository(ChannelConfig).findOneByOrFail({ clientId: tenantA.client.id, channel: 'WhatsApp' });
    expect(JSON.stringify(row.secrets)).not.toContain('EAAG');
    const list = await t.http().get('/api/channels-config').set(bearer(adminA)).expect(200);
    expect(JSON.stringify(list.body)).not.toContain('EAAG-very-secret');
    await t
      .http()
      .put('/api/channels-config/WhatsApp')
      .set(bearer(adminA))
      .send({ enabled: true, settings: { phoneNumberId: '1234' }, secrets: { accessToken: SECRET_MASK, appSecret: '' } })
      .expect(200);
    const secrets = await t.app.get(PlatformSettingsService).channelSecrets(tenantA.client.id, 'WhatsApp');
    expect(secrets).toEqual({ accessToken: 'EAAG-very-secret' });
    const audits = await t.dataSource.getRepository(AuditLog).findBy({ entityType: 'channel-config', entityId: row.id });
    expect(JSON.stringify(audits)).not.toContain('EAAG');
  });

  it('refuses unknown channels and fields, other tenants see their own, agents get 403', async () => {
    await t.http().put('/api/channels-config/Fax').set(bearer(adminA)).send({ enabled: true }).expect(404);
    await t
      .http()
      .put('/api/channels-config/Telegram')
      .set(bearer(adminA))
      .send({ secrets: { password: 'x' } })
      .expect(400);
    const b = (await t.http().get('/api/channels-config').set(bearer(adminB)).expect(200)).body.data;
    expect(b.find((c: { channel: string }) => c.channel === 'WhatsApp')).toMatchObject({ enabled: false, secrets: { accessToken: '' } });
    await t.http().put('/api/platform-settings').set(bearer(agentA)).send(settings).expect(403);
    await t.http().put('/api/channels-config/WhatsApp').set(bearer(agentA)).send({ enabled: false }).expect(403);
  });
});
