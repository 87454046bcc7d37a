import type { IvrNode, IvrTree } from '@centralita/contracts';
import { AuditLog } from '../src/modules/admin/audit-log.entity';
import { AttentionLine } from '../src/modules/attention-lines/attention-line.entity';
import { Ivr } from '../src/modules/ivrs/ivr.entity';
import { createUser, twoTenants, type TestTenant } from './support/factories';
import { bearer, startTestApp, type TestApp } from './support/test-app';

// Argon2 hashing and logins in beforeAll are slow on shared CI machines.
jest.setTimeout(30_000);

const node = (id: string, options: IvrNode['options'], overrides: Partial<IvrNode> = {}): IvrNode => ({
  id,
  name: `Menu ${id}`,
  promptText: 'Press a key',
  promptAudioUrl: null,
  timeoutSeconds: 5,
  maxRetries: 2,
  fallback: { type: 'hangup', targetId: null },
  options,
  ...overrides,
});
const menu = (...options: IvrNode['options']): IvrTree => ({ rootNodeId: 'main', nodes: [node('main', options)] });
/** A published tree without the file ids publishing adds (rendered speech), to compare with the draft. */
const withoutRenderedAudio = (tree: IvrTree): IvrTree => ({
  ...tree,
  nodes: tree.nodes.map(({ promptAudioFileId: _rendered, ...rest }) => rest),
});

describe('IVRs (e2e)', () => {
  let t: TestApp;
  let adminA: string;
  let adminB: string;
  let agentA: string;
  let tenantA: TestTenant;
  let tenantB: TestTenant;
  let lineA1: string;
  let lineA2: string;
  let lineB: string;
  let agentUserA: string;

  const line = async (tenant: TestTenant, name: string) =>
    (
      await t.dataSource
        .getRepository(AttentionLine)
        .save({ clientId: tenant.client.id, name, type: 'inbound', channel: 'WebChat', internal: false })
    ).id;
  const create = async (token: string, name: string) =>
    (await t.http().post('/api/ivrs').set(bearer(token)).send({ name }).expect(200)).body.data as { id: string };
  const saveTree = (token: string, id: string, tree: unknown) => t.http().put(`/api/ivrs/${id}/tree`).set(bearer(token)).send({ tree });

  beforeAll(async () => {
    t = await startTestApp();
    ({ adminA, adminB, agentA, tenantA, tenantB } = await twoTenants(t));
    lineA1 = await line(tenantA, 'Sales');
    lineA2 = await line(tenantA, 'Support');
    lineB = await line(tenantB, 'Other tenant line');
    agentUserA = (await createUser(t.dataSource, tenantA, { role: 'AGENT', name: 'Ana Agent' })).user.id;
  });
  afterAll(() => t.close());

  it('creates an IVR with a starter draft, lists it paged, sorted and filtered, and edits its main fields', async () => {
    const created = (await t.http().post('/api/ivrs').set(bearer(adminA)).send({ name: 'Zeta menu', description: 'Night' }).expect(200))
      .body.data;
    expect(created).toMatchObject({
      name: 'Zeta menu',
      description: 'Night',
      active: true,
      publishedVersion: 0,
      hasUnpublishedChanges: true,
    });
    expect(created.draftTree.nodes).toHaveLength(1);
    expect(created.publishedTree).toBeNull();
    await create(adminA, 'Alpha menu');
    await create(adminA, 'Beta menu');
    await create(adminB, 'Alpha of B');

    const page1 = (
      await t.http().get('/api/ivrs').query({ pageSize: 2, sortField: 'name', sortOrder: 'desc' }).set(bearer(adminA)).expect(200)
    ).body.data;
    expect(page1.total).toBe(3);
    expect(page1.items.map((i: { name: string }) => i.name)).toEqual(['Zeta menu', 'Beta menu']);
    const page2 = (
      await t.http().get('/api/ivrs').query({ page: 2, pageSize: 2, sortField: 'name', sortOrder: 'desc' }).set(bearer(adminA))
    ).body.data;
    expect(page2.items.map((i: { name: string }) => i.name)).toEqual(['Alpha menu']);
    const filtered = (await t.http().get('/api/ivrs').query({ q: 'NIGHT' }).set(bearer(adminA)).expect(200)).body.data;
    expect(filtered.items.map((i: { name: string }) => i.name)).toEqual(['Zeta menu']);
    await t.http().get('/api/ivrs').query({ sortField: 'draftTree' }).set(bearer(adminA)).expect(400);

    const updated = (
      await t.http().put(`/api/ivrs/${created.id}`).set(bearer(adminA)).send({ name: 'Omega menu', active: false }).expect(200)
    ).body.data;
    expect(updated).toMatchObject({ name: 'Omega menu', description: null, active: false });
  });

  it('refuses a missing or over-long name and a name already used, naming the field', async () => {
    const missing = await t.http().post('/api/ivrs').set(bearer(adminA)).send({ description: 'x' }).expect(400);
    expect(missing.body.data.fields).toEqual({ name: ['name is required'] });
    const long = await t
      .http()
      .post('/api/ivrs')
      .set(bearer(adminA))
      .send({ name: 'x'.repeat(161) })
      .expect(400);
    expect(long.body.data.fields).toEqual({ name: ['name must be at most 160 characters'] });
    await create(adminA, 'Unique menu');
    const clash = await t.http().post('/api/ivrs').set(bearer(adminA)).send({ name: 'unique MENU' }).expect(409);
    expect(clash.body.errorCode).toBe('conflict');
    expect(clash.body.data.fields.name).toBeDefined();
  });

  it('saves a tree whose keys go to lines, an agent, another IVR, a sub-menu and hang-up, then applies it as version 1', async () => {
    const other = await create(adminA, 'Billing menu');
    const ivr = await create(adminA, 'Tree menu');
    const tree: IvrTree = {
      rootNodeId: 'main',
      nodes: [
        node('main', [
          { digit: '1', label: 'Sales', destination: { type: 'line', targetId: lineA1 } },
          { digit: '2', label: 'Support', destination: { type: 'line', targetId: lineA2 } },
          { digit: '3', label: null, destination: { type: 'agent', targetId: agentUserA } },
          { digit: '4', label: null, destination: { type: 'ivr', targetId: other.id } },
          { digit: '5', label: null, destination: { type: 'node', targetId: 'more' } },
          { digit: '0', label: null, destination: { type: 'hangup', targetId: null } },
        ]),
        node('more', [{ digit: '*', label: 'Back', destination: { type: 'node', targetId: 'main' } }], {
          fallback: { type: 'line', targetId: lineA1 },
        }),
      ],
    };
    const saved = (await saveTree(adminA, ivr.id, tree).expect(200)).body.data;
    expect(saved.draftTree).toEqual(tree);
    expect(saved.publishedVersion).toBe(0);

    const applied = (await t.http().post(`/api/ivrs/${ivr.id}/apply`).set(bearer(adminA)).expect(200)).body.data;
    expect(applied).toMatchObject({ publishedVersion: 1, hasUnpublishedChanges: false });
    // Published as saved, each text prompt with its rendered speech (espeak-ng and sox are on this machine).
    expect(withoutRenderedAudio(applied.publishedTree)).toEqual(tree);
    for (const n of applied.publishedTree.nodes) expect(n.promptAudioFileId).toMatch(/^[0-9a-f-]{36}$/);
    expect(applied.publishedAt).toEqual(expect.any(String));

    // A later draft does not change what is published until the next apply.
    const next = menu({ digit: '1', label: null, destination: { type: 'hangup', targetId: null } });
    const draft = (await saveTree(adminA, ivr.id, next).expect(200)).body.data;
    expect(draft).toMatchObject({ publishedVersion: 1, hasUnpublishedChanges: true });
    expect(withoutRenderedAudio(draft.publishedTree)).toEqual(tree);
    const again = (await t.http().post(`/api/ivrs/${ivr.id}/apply`).set(bearer(adminA)).expect(200)).body.data;
    expect(again).toMatchObject({ publishedVersion: 2 });
    expect(withoutRenderedAudio(again.publishedTree)).toEqual(next);
  });

  it('refuses repeated keys, nodes without options and destinations of another tenant, each with its field named', async () => {
    const ivr = await create(adminA, 'Bad menu');
    const duplicate = await saveTree(
      adminA,
      ivr.id,
      menu(
        { digit: '1', label: null, destination: { type: 'line', targetId: lineA1 } },
        { digit: '1', label: null, destination: { type: 'hangup', targetId: null } },
      ),
    ).expect(400);
    expect(duplicate.body.data.fields).toEqual({
      'tree.nodes.0.options.1.digit': ['tree.nodes.0.options.1.digit repeats key 1 in this node'],
    });

    const empty = await saveTree(adminA, ivr.id, menu()).expect(400);
    expect(Object.keys(empty.body.data.fields)).toEqual(['tree.nodes.0.options']);

    const foreign = await saveTree(
      adminA,
      ivr.id,
      menu(
        { digit: '1', label: null, destination: { type: 'line', targetId: lineB } },
        { digit: '2', label: null, destination: { type: 'agent', targetId: '00000000-0000-4000-8000-000000000000' } },
      ),
    ).expect(400);
    expect(foreign.body.data.issues).toEqual([
      { field: 'tree.nodes.0.options.0.destination.targetId', key: 'notFound', values: { type: 'line' } },
      { field: 'tree.nodes.0.options.1.destination.targetId', key: 'notFound', values: { type: 'agent' } },
    ]);

    const badKey = await saveTree(
      adminA,
      ivr.id,
      menu({ digit: 'A', label: null, destination: { type: 'hangup', targetId: null } }),
    ).expect(400);
    expect(Object.keys(badKey.body.data.fields)).toEqual(['tree.nodes.0.options.0.digit']);
    const self = await saveTree(adminA, ivr.id, menu({ digit: '9', label: null, destination: { type: 'ivr', targetId: ivr.id } })).expect(
      400,
    );
    expect(self.body.data.issues[0]).toMatchObject({ field: 'tree.nodes.0.options.0.destination.targetId', key: 'selfIvr' });
    const wrongType = await t
      .http()
      .put(`/api/ivrs/${ivr.id}/tree`)
      .set(bearer(adminA))
      .send({ tree: { rootNodeId: 'main', nodes: [{ id: 'main', timeoutSeconds: 'soon' }] } })
      .expect(400);
    expect(wrongType.body.errorMessage).toContain('timeoutSeconds');
  });

  it('refuses a loop of jumps between IVRs, naming the option that closes it, and re-checks the draft on apply', async () => {
    const a = await create(adminA, 'Loop A');
    const b = await create(adminA, 'Loop B');
    await saveTree(adminA, a.id, menu({ digit: '1', label: null, destination: { type: 'ivr', targetId: b.id } })).expect(200);
    await t.http().post(`/api/ivrs/${a.id}/apply`).set(bearer(adminA)).expect(200);
    const loop = await saveTree(
      adminA,
      b.id,
      menu(
        { digit: '0', label: null, destination: { type: 'hangup', targetId: null } },
        { digit: '1', label: null, destination: { type: 'ivr', targetId: a.id } },
      ),
    ).expect(400);
    expect(loop.body.data.issues).toEqual([
      { field: 'tree.nodes.0.options.1.destination.targetId', key: 'cycle', values: { path: 'Loop B → Loop A → Loop B' } },
    ]);
    // The draft saved before the loop existed is checked again on apply: a line deleted meanwhile is refused too.
    const c = await create(adminA, 'Apply recheck');
    const doomed = await line(tenantA, 'Doomed line');
    await saveTree(adminA, c.id, menu({ digit: '1', label: null, destination: { type: 'line', targetId: doomed } })).expect(200);
    await t.dataSource.getRepository(AttentionLine).softDelete({ id: doomed });
    const refused = await t.http().post(`/api/ivrs/${c.id}/apply`).set(bearer(adminA)).expect(400);
    expect(refused.body.data.issues[0]).toMatchObject({ field: 'tree.nodes.0.options.0.destination.targetId', key: 'notFound' });
    expect((await t.dataSource.getRepository(Ivr).findOneByOrFail({ id: c.id })).publishedVersion).toBe(0);
  });

  it('copies an IVR with its tree under a new name, unpublished', async () => {
    const source = await create(adminA, 'Copy source');
    const tree = menu({ digit: '1', label: 'Sales', destination: { type: 'line', targetId: lineA1 } });
    await saveTree(adminA, source.id, tree).expect(200);
    await t.http().post(`/api/ivrs/${source.id}/apply`).set(bearer(adminA)).expect(200);
    const copy = (await t.http().post(`/api/ivrs/${source.id}/copy`).set(bearer(adminA)).send({ name: 'Copy target' }).expect(200)).body
      .data;
    expect(copy).toMatchObject({ name: 'Copy target', publishedVersion: 0, publishedTree: null });
    expect(copy.id).not.toBe(source.id);
    expect(copy.draftTree).toEqual(tree);
    await t.http().post(`/api/ivrs/${source.id}/copy`).set(bearer(adminA)).send({ name: 'Copy source' }).expect(409);
    const noName = await t.http().post(`/api/ivrs/${source.id}/copy`).set(bearer(adminA)).send({}).expect(400);
    expect(noName.body.data.fields).toEqual({ name: ['name is required'] });
    const audit = await t.dataSource.getRepository(AuditLog).findOneByOrFail({ entityId: copy.id, action: 'create' });
    expect(audit.after).toMatchObject({ name: 'Copy target', copiedFrom: source.id });
  });

  it('soft-deletes an IVR (refused while another IVR jumps to it) and audits every change', async () => {
    const target = await create(adminA, 'Delete target');
    const caller = await create(adminA, 'Delete caller');
    await saveTree(adminA, caller.id, menu({ digit: '1', label: null, destination: { type: 'ivr', targetId: target.id } })).expect(200);
    const inUse = await t.http().delete(`/api/ivrs/${target.id}`).set(bearer(adminA)).expect(409);
    expect(inUse.body.errorMessage).toContain('Delete caller');
    await t.http().delete(`/api/ivrs/${caller.id}`).set(bearer(adminA)).expect(200);
    await t.http().get(`/api/ivrs/${caller.id}`).set(bearer(adminA)).expect(404);
    const row = await t.dataSource.getRepository(Ivr).findOneOrFail({ where: { id: caller.id }, withDeleted: true });
    expect(row.deletedAt).not.toBeNull();
    const actions = (await t.dataSource.getRepository(AuditLog).find({ where: { entityId: caller.id }, order: { createdAt: 'ASC' } })).map(
      (r) => r.action,
    );
    expect(actions).toEqual(['create', 'update', 'delete']);
    const trail = (await t.http().get('/api/audit').query({ entityType: 'ivr', entityId: caller.id }).set(bearer(adminA)).expect(200)).body
      .data;
    expect(trail.total).toBe(3);
  });

  it("answers 404 for another tenant's IVR and 403 to an agent", async () => {
    const other = await create(adminB, 'B private menu');
    await t.http().get(`/api/ivrs/${other.id}`).set(bearer(adminA)).expect(404);
    await t.http().put(`/api/ivrs/${other.id}`).set(bearer(adminA)).send({ name: 'X' }).expect(404);
    await saveTree(adminA, other.id, menu({ digit: '1', label: null, destination: { type: 'hangup', targetId: null } })).expect(404);
    await t.http().post(`/api/ivrs/${other.id}/apply`).set(bearer(adminA)).expect(404);
    await t.http().post(`/api/ivrs/${other.id}/copy`).set(bearer(adminA)).send({ name: 'Stolen' }).expect(404);
    await t.http().delete(`/api/ivrs/${other.id}`).set(bearer(adminA)).expect(404);
    const mine = await create(adminA, 'Pointing at B');
    const cross = await saveTree(
      adminA,
      mine.id,
      menu({ digit: '1', label: null, destination: { type: 'ivr', targetId: other.id } }),
    ).expect(400);
    expect(cross.body.data.issues[0]).toMatchObject({ key: 'notFound', values: { type: 'ivr' } });

    await t.http().get('/api/ivrs').set(bearer(agentA)).expect(403);
    await t.http().post('/api/ivrs').set(bearer(agentA)).send({ name: 'Agent menu' }).expect(403);
    await t.http().post(`/api/ivrs/${mine.id}/apply`).set(bearer(agentA)).expect(403);
  });

  it('documents the IVR and trunk endpoints in OpenAPI', async () => {
    const doc = (await t.http().get('/api/docs-json').expect(200)).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/ivrs',
        '/api/ivrs/{id}',
        '/api/ivrs/{id}/tree',
        '/api/ivrs/{id}/apply',
        '/api/ivrs/{id}/copy',
        '/api/ivrs/destination-options',
        '/api/trunks',
        '/api/trunks/{id}',
      ]),
    );
    expect(doc.paths['/api/ivrs/{id}/apply'].post.security).toEqual([{ bearer: [] }]);
  });

  it('offers the tenant’s lines, active users and IVRs to the destination pickers', async () => {
    const options = (await t.http().get('/api/ivrs/destination-options').set(bearer(adminA)).expect(200)).body.data;
    const names = (list: { name: string }[]) => list.map((o) => o.name);
    expect(names(options.attentionLines)).toEqual(expect.arrayContaining(['Sales', 'Support']));
    expect(names(options.attentionLines)).not.toContain('Other tenant line');
    expect(names(options.agents)).toContain('Ana Agent');
    expect(names(options.ivrs)).not.toContain('Alpha of B');
  });
});
