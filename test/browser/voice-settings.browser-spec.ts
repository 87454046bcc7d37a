import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { api } from '../support/browser';
import { adminConsole, createDemoTrunk, demoAdminSession } from './support/voice';

/**
 * The tenant's phone settings under the IVR list (/settings/ivrMain: own hold music, queue position announcements)
 * and a trunk's country code and national prefix (/settings/troncals), on the demo tenant; its settings are put back
 * to the defaults afterwards and the trunk deleted.
 * VOICE_SCREENSHOTS=1 refreshes docs/screenshots/voice-settings- and trunk-national-es/-en.png.
 */
jest.setTimeout(90_000);
const SHOTS = process.env.VOICE_SCREENSHOTS === '1';
const shot = (name: string) => path.join(__dirname, `../../docs/screenshots/${name}.png`);
const tag = randomUUID().slice(0, 6);

/** Two seconds of a 330 Hz tone, 16 kHz mono 16-bit PCM: music the server must convert to 8 kHz. */
function musicWav(): Buffer {
  const rate = 16000;
  const data = Buffer.alloc(rate * 2 * 2);
  for (let i = 0; i < rate * 2; i++) data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 330 * i) / rate) * 9000), i * 2);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

describe('phone settings and national numbers in the console', () => {
  const admin = adminConsole();
  let token: string;
  let trunkId: string;

  beforeAll(async () => {
    await admin.launch();
    token = (await demoAdminSession()).admin;
    trunkId = await createDemoTrunk(token, `National ${tag}`, 'sip.national-carrier.example');
  }, 60_000);

  afterAll(async () => {
    await admin.close();
    if (!token) return;
    await api('DELETE', '/api/voice-settings/hold-music', token).catch(() => undefined);
    await api('PUT', '/api/voice-settings', token, { queueAnnouncementSeconds: 60 }).catch(() => undefined);
    if (trunkId) await api('DELETE', `/api/trunks/${trunkId}`, token).catch(() => undefined);
  });

  const open = admin.open;

  const screenshot = async (page: Page, name: string) => {
    await page.setViewportSize({ width: 1366, height: 1100 });
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.addStyleTag({ content: '.p-toast { display: none !important; }' });
    await page.screenshot({ path: shot(name), fullPage: true });
  };

  it('an administrator uploads hold music, listens to it, sets the position announcements and goes back to the built-in music', async () => {
    const page = await open('en');
    await page.goto('/settings/ivrMain');
    const section = page.getByTestId('voice-settings');
    await section.getByText('Phone settings').waitFor();
    await section.getByTestId('voice-hold-music-default').getByText('Built-in music').waitFor();

    await page
      .getByTestId('voice-hold-music-input')
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hi') });
    await page.getByTestId('voice-settings-error').getByText('notes.txt is not a wav, mp3 or ogg file.').waitFor();
    await page.getByTestId('voice-hold-music-input').setInputFiles({ name: 'music.wav', mimeType: 'audio/wav', buffer: musicWav() });
    await section.getByTestId('voice-hold-music-own').getByText('Own music').waitFor();
    await section.getByRole('button', { name: 'Listen' }).click();
    await page.getByTestId('voice-hold-music-player').waitFor();

    const seconds = page.getByTestId('voice-announcement-seconds');
    await seconds.fill('601');
    await seconds.blur();
    await section.getByText('Between 0 and 600 seconds').waitFor();
    expect(await page.getByTestId('voice-settings-save').isDisabled()).toBe(true);
    await seconds.fill('45');
    await seconds.blur();
    await page.getByTestId('voice-settings-save').click();
    await page.getByText('Phone settings saved').waitFor();
    if (SHOTS) await screenshot(page, 'voice-settings-en');

    const saved = await api<{ holdMusicFileId: string | null; queueAnnouncementSeconds: number }>('GET', '/api/voice-settings', token);
    expect(saved.queueAnnouncementSeconds).toBe(45);
    expect(saved.holdMusicFileId).toMatch(/^[0-9a-f-]{36}$/);

    await page.getByTestId('voice-hold-music-clear').click();
    await section.getByTestId('voice-hold-music-default').waitFor();
    expect((await api<{ holdMusicFileId: string | null }>('GET', '/api/voice-settings', token)).holdMusicFileId).toBeNull();
  });

  it('an administrator gives a trunk its country code and national prefix, refused when malformed', async () => {
    const page = await open('en');
    await page.goto(`/settings/troncals?id=${trunkId}`);
    await page.getByText('Country code', { exact: true }).waitFor();
    await page.getByTestId('trunk-country-code').fill('+44');
    await page.getByTestId('trunk-national-prefix').fill('0');
    await page.getByTestId('trunk-country-code').blur();
    await page.getByTestId('admin-save').click();
    expect(await page.locator('.field--invalid #trunk-country-code, #trunk-country-code[aria-invalid="true"]').count()).toBeGreaterThan(0);
    await page.getByTestId('trunk-country-code').fill('44');
    if (SHOTS) await screenshot(page, 'trunk-national-en');
    await page.getByTestId('admin-save').click();
    await page.waitForURL('**/settings/troncals');
    const trunk = await api<{ countryCode: string | null; nationalPrefix: string | null }>('GET', `/api/trunks/${trunkId}`, token);
    expect(trunk).toMatchObject({ countryCode: '44', nationalPrefix: '0' });
  });

  it('shows the phone settings and the trunk fields in Spanish', async () => {
    const page = await open('es');
    await page.goto('/settings/ivrMain');
    await page.getByTestId('voice-settings').getByText('Ajustes de teléfono').waitFor();
    await page.getByText('Anunciar la posición en la cola cada (segundos)').waitFor();
    if (SHOTS) await screenshot(page, 'voice-settings-es');
    await page.goto(`/settings/troncals?id=${trunkId}`);
    await page.getByText('Prefijo nacional', { exact: true }).waitFor();
    if (SHOTS) await screenshot(page, 'trunk-national-es');
  });
});
