import { randomInt, randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { api, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../support/browser';

/**
 * Inbound voice set-up in the console (issue 22): a trunk's inbound numbers (/settings/troncals)
 * and an IVR's prompt language and recorded prompt (/settings/submitivr, /settings/ivrs). Works on
 * the demo tenant with a trunk and an IVR of its own, deleted afterwards.
 * IVR_SCREENSHOTS=1 refreshes docs/screenshots/trunk-numbers-, ivr-language- and ivr-recording-es/-en.png.
 */
jest.setTimeout(90_000);
const SHOTS = process.env.IVR_SCREENSHOTS === '1';
const shot = (name: string) => path.join(__dirname, `../../docs/screenshots/${name}.png`);

const tag = randomUUID().slice(0, 6);
/** Numbers are unique across the platform: random ones, so runs sharing a database never collide. */
const freshNumber = () => `+3491${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;

/** Picks an option of a PrimeReact Dropdown by its visible label. */
async function pick(page: Page, dropdown: Locator, label: string): Promise<void> {
  await dropdown.click();
  await page.locator(`li[role="option"][aria-label="${label}"]`).click();
}

/** One second of a 440 Hz tone, 16 kHz stereo 16-bit PCM: a recording the server must convert. */
function toneWav(): Buffer {
  const rate = 16000;
  const data = Buffer.alloc(rate * 2 * 2);
  for (let i = 0; i < rate; i++) {
    const v = Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 10000);
    data.writeInt16LE(v, i * 4);
    data.writeInt16LE(v, i * 4 + 2);
  }
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(2, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 4, 28);
  h.writeUInt16LE(4, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

describe('inbound voice set-up in the console', () => {
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let token: string;
  let trunkId: string;
  let ivrId: string;
  const ivrName = `Welcome ${tag}`;
  const trunkName = `Carrier ${tag}`;

  beforeAll(async () => {
    browser = await launchBrowser();
    token = (await api<{ accessToken: string }>('POST', '/api/auth/login', null, { email: DEMO.admin, password: DEMO_PASSWORD }))
      .accessToken;
    trunkId = (
      await api<{ id: string }>('POST', '/api/trunks', token, {
        name: trunkName,
        host: 'sip.inbound-carrier.example',
        port: 5060,
        transport: 'udp',
        maxConcurrentCalls: 10,
      })
    ).id;
    ivrId = (await api<{ id: string }>('POST', '/api/ivrs', token, { name: ivrName, language: 'en' })).id;
  }, 60_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    if (!token) return;
    // Deleting the trunk frees its numbers; then the IVR is no longer a number's target.
    if (trunkId) await api('DELETE', `/api/trunks/${trunkId}`, token).catch(() => undefined);
    if (ivrId) await api('DELETE', `/api/ivrs/${ivrId}`, token).catch(() => undefined);
  });

  const open = async (language: string): Promise<Page> => {
    const { context, page } = await newPage(browser, { language });
    contexts.push(context);
    await signIn(page, DEMO.admin);
    await page.waitForURL('**/dashboard/default');
    return page;
  };

  const screenshot = async (page: Page, name: string) => {
    await page.setViewportSize({ width: 1366, height: 1100 });
    await page.evaluate(() => {
      window.scrollTo(0, 0);
      (document.activeElement as HTMLElement | null)?.blur();
    });
    // The "number added" toasts would cover the header of the picture.
    await page.addStyleTag({ content: '.p-toast { display: none !important; }' });
    await page.screenshot({ path: shot(name), fullPage: true });
  };

  it('an administrator adds a trunk’s inbound numbers to an IVR and a line, is told a bad or taken number, and removes one', async () => {
    const page = await open('en');
    page.on('dialog', (dialog) => void dialog.accept());

    // A new trunk has no numbers yet: they come once it is saved.
    await page.goto('/settings/troncals?new=1');
    await page.getByText('Once the trunk is saved you can add its inbound numbers.').waitFor();

    await page.goto(`/settings/troncals?id=${trunkId}`);
    const section = page.getByTestId('trunk-numbers');
    await section.getByText('Inbound numbers').waitFor();
    await page.getByTestId('trunk-numbers-empty').waitFor();

    // The shared rule refuses a number that is not E.164 before anything is sent.
    await page.getByTestId('trunk-number-new').fill('12');
    await page.getByTestId('trunk-number-add').click();
    await section.getByText('Write the number in E.164 format, e.g. +34911222333.').waitFor();
    await section.getByText('Choose where calls to this number go.').waitFor();

    const first = freshNumber();
    await page.getByTestId('trunk-number-new').fill(`${first.slice(0, 3)} ${first.slice(3, 6)} ${first.slice(6)}`);
    await pick(page, page.getByTestId('trunk-number-target'), ivrName);
    await page.getByTestId('trunk-number-add').click();
    await section.getByTestId('trunk-number').filter({ hasText: first }).getByText(ivrName).waitFor();

    const second = freshNumber();
    await page.getByTestId('trunk-number-new').fill(second);
    await pick(page, page.getByTestId('trunk-number-type'), 'Service line');
    await pick(page, page.getByTestId('trunk-number-target'), 'Customer service');
    await page.getByTestId('trunk-number-add').click();
    await section.getByTestId('trunk-number').filter({ hasText: second }).getByText('Customer service').waitFor();

    // Taken: the server names the trunk that has it, in the console's language.
    await page.getByTestId('trunk-number-new').fill(first);
    await page.getByTestId('trunk-number-add').click();
    await page.getByTestId('trunk-numbers-error').getByText(`The trunk “${trunkName}” already answers the number ${first}.`).waitFor();

    if (SHOTS) await screenshot(page, 'trunk-numbers-en');

    await section.getByTestId('trunk-number').filter({ hasText: second }).getByTestId('trunk-number-remove').click();
    await section.getByTestId('trunk-number').filter({ hasText: second }).waitFor({ state: 'detached' });
    // Stored: after a reload only the first number is there.
    await page.reload();
    await section.getByTestId('trunk-number').filter({ hasText: first }).waitFor();
    expect(await section.getByTestId('trunk-number').count()).toBe(1);
  });

  it('an administrator sets the IVR’s language, uploads a recorded prompt and publishes it', async () => {
    const page = await open('en');
    await page.goto(`/settings/submitivr?id=${ivrId}`);
    await page.getByTestId('ivr-language').locator('.p-dropdown-label', { hasText: 'English' }).waitFor();
    await pick(page, page.getByTestId('ivr-language'), 'Deutsch');
    if (SHOTS) await screenshot(page, 'ivr-language-en');
    await page.getByTestId('admin-save').click();
    await page.waitForURL('**/settings/ivrMain');

    await page.goto(`/settings/ivrs?id=${ivrId}`);
    await page.getByTestId('ivr-editor').waitFor();
    await page.getByTestId('ivr-status').getByText('Deutsch').waitFor();

    // A wrong file is refused in the browser, naming it; a wav is converted by the server.
    await page.getByTestId('ivr-recording-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hi') });
    await page.getByTestId('ivr-recording-error').getByText('notes.txt is not a wav, mp3 or ogg file.').waitFor();
    await page.getByTestId('ivr-recording-input').setInputFiles({ name: 'welcome.wav', mimeType: 'audio/wav', buffer: toneWav() });
    await page.getByTestId('ivr-recording-set').waitFor();

    await page.getByTestId('ivr-add-option').click();
    await page.getByTestId('ivr-apply').click();
    await page.getByTestId('ivr-published-version').getByText('Published: version 1').waitFor();
    // The published tree names the audio the draft does not: still "up to date".
    await page.getByTestId('ivr-pending').getByText('Published and up to date').waitFor();
    if (SHOTS) await screenshot(page, 'ivr-recording-en');

    const detail = await api<{ language: string; publishedTree: { nodes: { promptAudioFileId?: string | null }[] } }>(
      'GET',
      `/api/ivrs/${ivrId}`,
      token,
    );
    expect(detail.language).toBe('de');
    expect(detail.publishedTree.nodes[0].promptAudioFileId).toMatch(/^[0-9a-f-]{36}$/);

    // The recording plays back from the editor.
    await page.getByRole('button', { name: 'Listen' }).click();
    await page.getByTestId('ivr-recording-player').waitFor();
  });

  it('shows the numbers and the IVR language in Spanish', async () => {
    const page = await open('es');
    await page.goto(`/settings/troncals?id=${trunkId}`);
    await page.getByTestId('trunk-numbers').getByText('Números entrantes').waitFor();
    await page.getByTestId('trunk-number').first().waitFor();
    if (SHOTS) await screenshot(page, 'trunk-numbers-es');
    await page.goto(`/settings/submitivr?id=${ivrId}`);
    await page.getByText('Idioma de los mensajes').waitFor();
    await page.getByTestId('ivr-language').locator('.p-dropdown-label', { hasText: 'Deutsch' }).waitFor();
    if (SHOTS) await screenshot(page, 'ivr-language-es');
    await page.goto(`/settings/ivrs?id=${ivrId}`);
    await page.getByTestId('ivr-recording-set').getByText('Grabación subida').waitFor();
    if (SHOTS) await screenshot(page, 'ivr-recording-es');
  });
});
