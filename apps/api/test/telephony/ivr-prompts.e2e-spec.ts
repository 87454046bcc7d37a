import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresFileStore } from '@centralita/contracts/server';
import type { IvrNode, IvrTree } from '@centralita/contracts';
import { readWavInfo } from '../../src/modules/ivrs/prompt-audio';
import { PromptFiles } from '../../../worker/src/voice/prompt-files';
import { loadPublishedIvr } from '../../../worker/src/voice/inbound-numbers';
import { twoTenants } from '../support/factories';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

// espeak-ng and sox run for real (.ci/run installs them); each render takes a fraction of a second.
jest.setTimeout(60_000);

const node = (id: string, overrides: Partial<IvrNode> = {}): IvrNode => ({
  id,
  name: `Menu ${id}`,
  promptText: null,
  promptAudioUrl: null,
  timeoutSeconds: 5,
  maxRetries: 2,
  fallback: { type: 'hangup', targetId: null },
  options: [{ digit: '1', label: null, destination: { type: 'hangup', targetId: null } }],
  ...overrides,
});

/** A 16-bit PCM WAV of a sine tone (what a browser or a phone recorder would send). */
function sineWav(sampleRate: number, channels: number, seconds: number, frequency = 440): Buffer {
  const frames = Math.round(sampleRate * seconds);
  const data = Buffer.alloc(frames * channels * 2);
  for (let i = 0; i < frames; i++) {
    const v = Math.round(Math.sin((2 * Math.PI * frequency * i) / sampleRate) * 12000);
    for (let c = 0; c < channels; c++) data.writeInt16LE(v, (i * channels + c) * 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** Asserts telephony WAV (RIFF, PCM, 8000 Hz, mono, 16-bit) with audible samples; answers its seconds. */
function expectTelephonyAudio(bytes: Buffer): number {
  expect(bytes.toString('ascii', 0, 4)).toBe('RIFF');
  expect(bytes.toString('ascii', 8, 12)).toBe('WAVE');
  const info = readWavInfo(bytes)!;
  expect(info).toMatchObject({ audioFormat: 1, sampleRate: 8000, channels: 1, bitsPerSample: 16 });
  expect(info.dataBytes).toBeGreaterThan(1600);
  let sum = 0;
  const samples = info.dataBytes / 2;
  for (let i = 0; i < samples; i++) sum += bytes.readInt16LE(info.dataOffset + i * 2) ** 2;
  expect(Math.sqrt(sum / samples)).toBeGreaterThan(300);
  return info.dataBytes / 16000;
}

describe('IVR prompt audio (e2e)', () => {
  let t: TestApp;
  let adminA: string;
  let adminB: string;
  let tenantA: string;
  let store: PostgresFileStore;
  let workDir: string;

  const create = async (token: string, body: Record<string, unknown>) =>
    (await t.http().post('/api/ivrs').set(bearer(token)).send(body).expect(200)).body.data as { id: string; language: string };
  const saveTree = (token: string, id: string, tree: IvrTree) => t.http().put(`/api/ivrs/${id}/tree`).set(bearer(token)).send({ tree });
  const apply = async (token: string, id: string) =>
    (await t.http().post(`/api/ivrs/${id}/apply`).set(bearer(token)).expect(200)).body.data;
  const fileBytes = async (fileId: string) => {
    const file = await store.open(tenantA, fileId);
    const chunks: Buffer[] = [];
    for await (const chunk of file!.stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  const promptFileCount = async () =>
    Number(
      (await t.dataSource.query(`SELECT count(*) AS n FROM stored_files WHERE tenant_id = $1 AND kind = 'ivr-prompt'`, [tenantA]))[0].n,
    );

  beforeAll(async () => {
    // The audio-URL test serves its files on loopback, which the operator allows here (outgoing-addresses covers refusals).
    t = await startTestApp({ outgoingAllowedCidrs: ['127.0.0.0/8'] });
    let a;
    ({ adminA, adminB, tenantA: a } = await twoTenants(t));
    tenantA = a.client.id;
    await t.dataSource.query(`UPDATE clients SET language = 'it' WHERE id = $1`, [tenantA]);
    store = new PostgresFileStore((text, values) => t.dataSource.query(text, values));
    workDir = mkdtempSync(join(tmpdir(), 'ivr-prompts-e2e-'));
  });
  afterAll(async () => {
    rmSync(workDir, { recursive: true, force: true });
    await t.close();
  });

  it("gives a new IVR its tenant's language, takes another of the seven and refuses any other", async () => {
    expect((await create(adminA, { name: 'Italian by default' })).language).toBe('it');
    const greek = await create(adminA, { name: 'Greek', language: 'el' });
    expect(greek.language).toBe('el');
    const bad = await t.http().post('/api/ivrs').set(bearer(adminA)).send({ name: 'Klingon', language: 'tlh' }).expect(400);
    expect(Object.keys(bad.body.data.fields)).toEqual(['language']);
    const edited = (
      await t.http().put(`/api/ivrs/${greek.id}`).set(bearer(adminA)).send({ name: 'Greek', language: 'sr', active: true }).expect(200)
    ).body.data;
    expect(edited.language).toBe('sr');
    // Editing other fields keeps the language.
    const kept = (await t.http().put(`/api/ivrs/${greek.id}`).set(bearer(adminA)).send({ name: 'Serbian' }).expect(200)).body.data;
    expect(kept.language).toBe('sr');
  });

  it('renders each text prompt to 8 kHz mono speech at publish, keeps the draft as text, and reuses unchanged prompts on republish', async () => {
    const ivr = await create(adminA, { name: 'Spoken menu', language: 'es' });
    const tree: IvrTree = {
      rootNodeId: 'main',
      nodes: [
        node('main', {
          promptText: 'Bienvenido. Para ventas pulse uno, para soporte pulse dos.',
          options: [
            { digit: '1', label: null, destination: { type: 'hangup', targetId: null } },
            { digit: '2', label: null, destination: { type: 'node', targetId: 'support' } },
          ],
        }),
        node('support', { promptText: 'Soporte. Pulse uno para colgar.' }),
      ],
    };
    await saveTree(adminA, ivr.id, tree).expect(200);
    const before = await promptFileCount();
    const first = await apply(adminA, ivr.id);
    expect(first).toMatchObject({ promptsRendered: true, hasUnpublishedChanges: false, publishedVersion: 1 });
    expect(first.draftTree.nodes.map((n: IvrNode) => n.promptAudioFileId)).toEqual([undefined, undefined]);
    const [mainId, supportId] = first.publishedTree.nodes.map((n: IvrNode) => n.promptAudioFileId as string);
    expect(mainId).not.toBe(supportId);
    const seconds = expectTelephonyAudio(await fileBytes(mainId));
    expect(seconds).toBeGreaterThan(1.5);
    expectTelephonyAudio(await fileBytes(supportId));
    expect(await promptFileCount()).toBe(before + 2);

    // The worker's view: the published tree names the audio, and the cache copy is the same bytes.
    const published = await loadPublishedIvr({ query: (sql, params) => t.dataSource.query(sql, params) }, tenantA, ivr.id);
    expect(published).toMatchObject({ version: 1, language: 'es' });
    expect(published!.tree.nodes[0].promptAudioFileId).toBe(mainId);
    const local = await new PromptFiles(store, workDir).path(tenantA, mainId);
    expect(readFileSync(local!)).toEqual(await fileBytes(mainId));

    // One prompt changed: only it is rendered again.
    tree.nodes[1].promptText = 'Soporte técnico. Pulse uno.';
    expect((await saveTree(adminA, ivr.id, tree).expect(200)).body.data.hasUnpublishedChanges).toBe(true);
    const second = await apply(adminA, ivr.id);
    expect(second.publishedTree.nodes[0].promptAudioFileId).toBe(mainId);
    expect(second.publishedTree.nodes[1].promptAudioFileId).not.toBe(supportId);
    expect(await promptFileCount()).toBe(before + 3);

    // Another language is other speech, and is an unapplied change until published.
    const english = (
      await t.http().put(`/api/ivrs/${ivr.id}`).set(bearer(adminA)).send({ name: 'Spoken menu', language: 'en' }).expect(200)
    ).body.data;
    expect(english.hasUnpublishedChanges).toBe(true);
    const third = await apply(adminA, ivr.id);
    expect(third.publishedTree.nodes[0].promptAudioFileId).not.toBe(mainId);
    expect(third.hasUnpublishedChanges).toBe(false);
  });

  it('publishes without espeak-ng and sox, saying the prompts were not rendered', async () => {
    const ivr = await create(adminA, { name: 'Bare machine' });
    await saveTree(adminA, ivr.id, { rootNodeId: 'main', nodes: [node('main', { promptText: `Texto nunca oído ${Date.now()}` })] }).expect(
      200,
    );
    const path = process.env.PATH;
    process.env.PATH = workDir; // nothing to run in there
    let published;
    try {
      published = await apply(adminA, ivr.id);
    } finally {
      process.env.PATH = path;
    }
    expect(published).toMatchObject({ publishedVersion: 1, promptsRendered: false });
    expect(published.publishedTree.nodes[0].promptAudioFileId).toBeNull();
    // Once the tools are there, the next publish renders.
    expect((await apply(adminA, ivr.id)).promptsRendered).toBe(true);
  });

  it('converts an uploaded wav, mp3 or ogg recording to 8 kHz mono, and publishes it instead of speech', async () => {
    const ivr = await create(adminA, { name: 'Recorded menu' });
    const upload = (name: string, bytes: Buffer) =>
      t.http().post(`/api/ivrs/${ivr.id}/prompt-audio`).set(bearer(adminA)).attach('file', bytes, name);

    const wav = (await upload('welcome.wav', sineWav(44100, 2, 1.5)).expect(200)).body.data;
    expect(wav.seconds).toBeCloseTo(1.5, 1);
    expectTelephonyAudio(await fileBytes(wav.fileId));

    // Real mp3 and ogg files, made by sox from a tone.
    const source = join(workDir, 'tone.wav');
    writeFileSync(source, sineWav(16000, 1, 1));
    for (const ext of ['mp3', 'ogg']) {
      const out = join(workDir, `tone.${ext}`);
      execFileSync('sox', [source, out]);
      const up = (await upload(`tone.${ext}`, readFileSync(out)).expect(200)).body.data;
      expectTelephonyAudio(await fileBytes(up.fileId));
    }

    const tree: IvrTree = { rootNodeId: 'main', nodes: [node('main', { promptText: null, promptAudioFileId: wav.fileId })] };
    const saved = (await saveTree(adminA, ivr.id, tree).expect(200)).body.data;
    expect(saved.draftTree.nodes[0].promptAudioFileId).toBe(wav.fileId);
    const published = await apply(adminA, ivr.id);
    expect(published.publishedTree.nodes[0].promptAudioFileId).toBe(wav.fileId);
    expect(published.promptsRendered).toBeNull();

    const played = await t.http().get(`/api/ivrs/${ivr.id}/prompt-audio/${wav.fileId}`).set(bearer(adminA)).buffer(true).expect(200);
    expect(played.headers['content-type']).toBe('audio/wav');
    await t.http().get(`/api/ivrs/${ivr.id}/prompt-audio/${wav.fileId}`).set(bearer(adminB)).expect(404);
  });

  it("downloads a node's audio URL at publish and converts it; a URL that fails falls back to the node's text", async () => {
    const source = join(workDir, 'url-tone.wav');
    writeFileSync(source, sineWav(22050, 1, 1.2));
    const ogg = join(workDir, 'url-tone.ogg');
    execFileSync('sox', [source, ogg]);
    const served: string[] = [];
    const server = createServer((req, res) => {
      served.push(req.url ?? '');
      if (req.url === '/welcome.ogg') res.writeHead(200, { 'content-type': 'audio/ogg' }).end(readFileSync(ogg));
      else if (req.url === '/page') res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const ivr = await create(adminA, { name: 'Menu from a URL' });
      const tree: IvrTree = {
        rootNodeId: 'main',
        nodes: [
          node('main', {
            promptAudioUrl: `${base}/welcome.ogg`,
            options: [{ digit: '1', label: null, destination: { type: 'node', targetId: 'gone' } }],
          }),
          node('gone', { promptAudioUrl: `${base}/missing.wav`, promptText: `Texto de respaldo ${Date.now()}` }),
        ],
      };
      await saveTree(adminA, ivr.id, tree).expect(200);
      const published = await apply(adminA, ivr.id);
      const [main, gone] = published.publishedTree.nodes as IvrNode[];
      expect(served).toEqual(expect.arrayContaining(['/welcome.ogg', '/missing.wav']));
      expect(expectTelephonyAudio(await fileBytes(main!.promptAudioFileId!))).toBeCloseTo(1.2, 1);
      // The 404 URL: the node's text is spoken instead.
      expect(gone!.promptAudioFileId).toMatch(/^[0-9a-f-]{36}$/);
      expect(gone!.promptAudioFileId).not.toBe(main!.promptAudioFileId);
      expectTelephonyAudio(await fileBytes(gone!.promptAudioFileId!));
      expect(published.promptsRendered).toBe(true);
      // The draft keeps the URL, not a file id.
      expect(published.draftTree.nodes[0].promptAudioFileId ?? null).toBeNull();

      // Same audio again: stored once (cached by its bytes).
      const files = await promptFileCount();
      expect((await apply(adminA, ivr.id)).publishedTree.nodes[0].promptAudioFileId).toBe(main!.promptAudioFileId);
      expect(await promptFileCount()).toBe(files);

      // Not audio, with no text to fall back to: no file, and the publish says prompts are missing.
      const bad = await create(adminA, { name: 'Menu from a page' });
      await saveTree(adminA, bad.id, { rootNodeId: 'main', nodes: [node('main', { promptAudioUrl: `${base}/page` })] }).expect(200);
      const refused = await apply(adminA, bad.id);
      expect(refused.publishedTree.nodes[0].promptAudioFileId).toBeNull();
      expect(refused.promptsRendered).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("keeps the tenant's hold music (converted like a recording) and queue announcement interval, the defaults otherwise", async () => {
    const settings = (token: string) => t.http().get('/api/voice-settings').set(bearer(token));
    expect((await settings(adminA).expect(200)).body.data).toEqual({ holdMusicFileId: null, queueAnnouncementSeconds: 60 });
    await t.http().get('/api/voice-settings/hold-music').set(bearer(adminA)).expect(404);

    const saved = await t.http().put('/api/voice-settings').set(bearer(adminA)).send({ queueAnnouncementSeconds: 30 }).expect(200);
    expect(saved.body.data).toEqual({ holdMusicFileId: null, queueAnnouncementSeconds: 30 });
    const refused = await t.http().put('/api/voice-settings').set(bearer(adminA)).send({ queueAnnouncementSeconds: 601 }).expect(400);
    expect(refused.body.data.fields).toEqual({ queueAnnouncementSeconds: ['queueAnnouncementSeconds must be between 0 and 600'] });

    const music = (
      await t
        .http()
        .post('/api/voice-settings/hold-music')
        .set(bearer(adminA))
        .attach('file', sineWav(44100, 2, 3, 330), 'music.wav')
        .expect(200)
    ).body.data;
    expect(music).toMatchObject({ queueAnnouncementSeconds: 30, seconds: 3 });
    expect(expectTelephonyAudio(await fileBytes(music.holdMusicFileId))).toBeCloseTo(3, 1);
    const played = await t.http().get('/api/voice-settings/hold-music').set(bearer(adminA)).buffer(true).expect(200);
    expect(played.headers['content-type']).toBe('audio/wav');
    expect(Number(played.headers['content-length'])).toBeGreaterThan(40_000);
    await t.http().post('/api/voice-settings/hold-music').set(bearer(adminA)).attach('file', Buffer.from('nope'), 'music.txt').expect(400);

    // Another tenant keeps its own (default) settings.
    expect((await settings(adminB).expect(200)).body.data).toEqual({ holdMusicFileId: null, queueAnnouncementSeconds: 60 });
    await t.http().get('/api/voice-settings/hold-music').set(bearer(adminB)).expect(404);

    expect((await t.http().delete('/api/voice-settings/hold-music').set(bearer(adminA)).expect(200)).body.data).toEqual({
      holdMusicFileId: null,
      queueAnnouncementSeconds: 30,
    });
    const audit = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM audit_log WHERE entity_type = 'voiceSettings' AND entity_id = $1`,
      [tenantA],
    );
    expect(audit[0].n).toBe(3);
  });

  it('answers 400 naming the file for a wrong type, an unreadable file, an empty part, and a prompt file that is not the tenant’s', async () => {
    const ivr = await create(adminA, { name: 'Strict uploads' });
    const upload = (name: string, bytes: Buffer) =>
      t.http().post(`/api/ivrs/${ivr.id}/prompt-audio`).set(bearer(adminA)).attach('file', bytes, name);
    const txt = await upload('notes.txt', Buffer.from('hello')).expect(400);
    expect(txt.body.errorMessage).toBe('notes.txt is not a wav, mp3 or ogg file');
    expect(Object.keys(txt.body.data.fields)).toEqual(['file']);
    const junk = await upload('broken.mp3', Buffer.from('this is not audio at all'.repeat(50))).expect(400);
    expect(junk.body.errorMessage).toContain('broken.mp3');
    const fakeWav = await upload('fake.wav', Buffer.from('RIFF....WAVEjunk')).expect(400);
    expect(fakeWav.body.errorMessage).toContain('fake.wav');
    const none = await t.http().post(`/api/ivrs/${ivr.id}/prompt-audio`).set(bearer(adminA)).expect(400);
    expect(Object.keys(none.body.data.fields)).toEqual(['file']);

    // Another tenant's IVR: 404 before anything is stored.
    await t
      .http()
      .post(`/api/ivrs/${ivr.id}/prompt-audio`)
      .set(bearer(adminB))
      .attach('file', sineWav(8000, 1, 0.5), 'a.wav')
      .expect(404);

    // A file id of another tenant (or of something else) in the tree is refused, naming the node's field.
    const foreignIvr = await create(adminB, { name: 'B menu' });
    const theirs = (
      await t
        .http()
        .post(`/api/ivrs/${foreignIvr.id}/prompt-audio`)
        .set(bearer(adminB))
        .attach('file', sineWav(8000, 1, 0.5), 'b.wav')
        .expect(200)
    ).body.data.fileId;
    for (const fileId of [theirs, 'not-a-file']) {
      const refused = await saveTree(adminA, ivr.id, {
        rootNodeId: 'main',
        nodes: [node('main', { promptText: 'Hola', promptAudioFileId: fileId })],
      }).expect(400);
      expect(refused.body.data.issues).toEqual([{ field: 'tree.nodes.0.promptAudioFileId', key: 'notFound', values: { type: 'audio' } }]);
    }
  });

  it('refuses an upload over the size limit with 413 or 400, never storing it', async () => {
    const ivr = await create(adminA, { name: 'Big upload' });
    const before = await promptFileCount();
    const big = Buffer.alloc(5 * 1024 * 1024 + 10, 1);
    const res = await t.http().post(`/api/ivrs/${ivr.id}/prompt-audio`).set(bearer(adminA)).attach('file', big, 'big.wav');
    expect([400, 413]).toContain(res.status);
    expect(await promptFileCount()).toBe(before);
  });
});
