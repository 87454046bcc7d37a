import {
  DEFAULT_LANGUAGE,
  LANGUAGES,
  describeIvrIssue,
  validateIvr,
  type IvrDestinationOptions,
  type IvrDetail,
  type IvrInput,
  type IvrIssue,
  type IvrSummary,
  type IvrTree,
  type Language,
  type OptionItem,
  type Page,
  type PagedQuery,
} from '@centralita/contracts';
import {
  findIvrCycle,
  ivrReferences,
  ivrTargets,
  normalizeIvrTree,
  sameIvrTree,
  starterIvrTree,
  validateIvrTree,
} from '@centralita/domain';
import { OutgoingAddressPolicy } from '@centralita/contracts/server';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { In, Not, type DataSource, type EntityManager, type Repository } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AttentionLine } from '../attention-lines/attention-line.entity';
import { AuditService } from '../admin/audit.service';
import { paginate } from '../admin/paginate';
import { assertRules } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { User } from '../users/user.entity';
import { Ivr } from './ivr.entity';
import { IvrPromptsService, type UploadedAudio } from './ivr-prompts.service';

const AUDIT_TYPE = 'ivr';

export function toIvrSummary(ivr: Ivr): IvrSummary {
  return {
    id: ivr.id,
    name: ivr.name,
    description: ivr.description,
    active: ivr.active,
    language: ivr.language,
    publishedVersion: ivr.publishedVersion,
    publishedAt: ivr.publishedAt ? ivr.publishedAt.toISOString() : null,
    // The published tree adds rendered audio ids: compare the draft with what was published from.
    hasUnpublishedChanges:
      !sameIvrTree(ivr.draftTree, ivr.publishedSourceTree ?? ivr.publishedTree) ||
      (ivr.publishedTree !== null && ivr.publishedLanguage !== null && ivr.publishedLanguage !== ivr.language),
    promptsRendered: ivr.promptsRendered,
    nodeCount: ivr.draftTree?.nodes?.length ?? 0,
    createdAt: ivr.createdAt.toISOString(),
    updatedAt: ivr.updatedAt.toISOString(),
  };
}

export function toIvrDetail(ivr: Ivr): IvrDetail {
  return { ...toIvrSummary(ivr), draftTree: ivr.draftTree, publishedTree: ivr.publishedTree };
}

/** Throws the envelope's validation error for tree issues (same shape as assertRules: data.fields + data.issues). */
function assertTree(issues: IvrIssue[]): void {
  if (!issues.length) return;
  const fields: Record<string, string[]> = {};
  for (const issue of issues) (fields[issue.field] ??= []).push(describeIvrIssue(issue));
  throw new AppException('validation', { message: Object.values(fields).flat().join('; '), data: { fields, issues } });
}

@Injectable()
export class IvrsService {
  constructor(
    @InjectRepository(Ivr) private readonly ivrs: Repository<Ivr>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly outgoing: OutgoingAddressPolicy,
    private readonly prompts: IvrPromptsService,
  ) {}

  list(clientId: string, query: PagedQuery): Promise<Page<IvrSummary>> {
    const qb = this.ivrs.createQueryBuilder('i').where('i.client_id = :clientId', { clientId });
    return paginate(
      qb,
      query,
      {
        sortable: { name: 'i.name', active: 'i.active', publishedVersion: 'i.published_version', updatedAt: 'i.updated_at' },
        searchable: ['i.name', 'i.description'],
        defaultSort: { field: 'name', order: 'asc' },
      },
      toIvrSummary,
    );
  }

  async options(clientId: string): Promise<OptionItem[]> {
    const rows = await this.ivrs.find({ where: { clientId }, select: { id: true, name: true }, order: { name: 'ASC' } });
    return rows.map((row) => ({ id: row.id, name: row.name }));
  }

  /** What the tree editor's pickers offer: the tenant's lines, active users and IVRs. */
  async destinationOptions(clientId: string): Promise<IvrDestinationOptions> {
    const [lines, users, ivrs] = await Promise.all([
      this.dataSource.getRepository(AttentionLine).find({ where: { clientId }, select: { id: true, name: true }, order: { name: 'ASC' } }),
      this.dataSource
        .getRepository(User)
        .find({ where: { clientId, active: true }, select: { id: true, name: true }, order: { name: 'ASC' } }),
      this.options(clientId),
    ]);
    return {
      attentionLines: lines.map((l) => ({ id: l.id, name: l.name })),
      agents: users.map((u) => ({ id: u.id, name: u.name })),
      ivrs,
    };
  }

  async get(clientId: string, id: string): Promise<IvrDetail> {
    return toIvrDetail(await this.find(clientId, id));
  }

  /** The published tree telephony follows (null while nothing is published or the IVR is inactive). */
  async activeTree(clientId: string, id: string): Promise<{ version: number; tree: IvrTree } | null> {
    const ivr = await this.ivrs.findOne({ where: { id, clientId } });
    if (!ivr || !ivr.active || !ivr.publishedTree) return null;
    return { version: ivr.publishedVersion, tree: ivr.publishedTree };
  }

  async create(principal: Principal, body: Partial<IvrInput>): Promise<IvrDetail> {
    const input = this.checked(body, await this.tenantLanguage(principal.clientId));
    await this.assertNameFree(principal.clientId, input.name, null);
    return this.dataSource.transaction(async (manager) => {
      const repo = manager.getRepository(Ivr);
      const row = await repo.save(
        repo.create({ ...input, clientId: principal.clientId, draftTree: starterIvrTree(), publishedTree: null }),
      );
      const after = toIvrDetail(await repo.findOneByOrFail({ id: row.id }));
      await this.audit.record(principal, { entityType: AUDIT_TYPE, entityId: row.id, action: 'create', before: null, after }, manager);
      return after;
    });
  }

  async update(principal: Principal, id: string, body: Partial<IvrInput>): Promise<IvrDetail> {
    const current = await this.find(principal.clientId, id);
    const input = this.checked(body, current.language);
    await this.assertNameFree(principal.clientId, input.name, id);
    return this.change(principal, current, 'update', (repo) => repo.update({ id }, input));
  }

  /** Saves the draft tree; it must pass every rule (apply checks again, since lines or IVRs may change meanwhile). */
  async saveTree(principal: Principal, id: string, rawTree: Partial<IvrTree>): Promise<IvrDetail> {
    const current = await this.find(principal.clientId, id);
    const tree = normalizeIvrTree(rawTree);
    await this.assertTreeValid(principal.clientId, id, tree);
    return this.change(principal, current, 'update', (repo) => repo.update({ id }, { draftTree: tree }));
  }

  /**
   * Validates the draft and publishes it as the next version (what telephony reads), with every
   * text prompt that has no uploaded recording rendered to speech in the IVR's language. Without
   * espeak-ng or sox it still publishes, with promptsRendered false.
   */
  async apply(principal: Principal, id: string): Promise<IvrDetail> {
    const current = await this.find(principal.clientId, id);
    await this.assertTreeValid(principal.clientId, id, current.draftTree);
    const { tree, rendered } = await this.prompts.renderTree(principal.clientId, current.language, current.draftTree);
    return this.change(principal, current, 'update', (repo) =>
      repo.update(
        { id },
        {
          publishedTree: tree,
          publishedSourceTree: current.draftTree,
          publishedLanguage: current.language,
          promptsRendered: rendered,
          publishedVersion: current.publishedVersion + 1,
          publishedAt: new Date(),
        },
      ),
    );
  }

  /** Stores a recorded prompt for this IVR's editor; the tree names it in a node's promptAudioFileId. */
  async uploadPrompt(principal: Principal, id: string, file: UploadedAudio | undefined): Promise<{ fileId: string; seconds: number }> {
    await this.find(principal.clientId, id);
    return this.prompts.upload(principal.clientId, file);
  }

  /** A prompt file of the tenant (the editor's preview). */
  async promptFile(principal: Principal, id: string, fileId: string) {
    await this.find(principal.clientId, id);
    return this.prompts.open(principal.clientId, fileId);
  }

  /** A new IVR with the source's draft tree under another name (unpublished until applied). */
  async copy(principal: Principal, id: string, name: string | undefined): Promise<IvrDetail> {
    const source = await this.find(principal.clientId, id);
    const input = this.checked({ name, description: source.description, active: source.active }, source.language);
    await this.assertNameFree(principal.clientId, input.name, null);
    return this.dataSource.transaction(async (manager) => {
      const repo = manager.getRepository(Ivr);
      const row = await repo.save(
        repo.create({ ...input, clientId: principal.clientId, draftTree: source.draftTree, publishedTree: null, publishedVersion: 0 }),
      );
      const after = toIvrDetail(await repo.findOneByOrFail({ id: row.id }));
      await this.audit.record(
        principal,
        { entityType: AUDIT_TYPE, entityId: row.id, action: 'create', before: null, after: { ...after, copiedFrom: id } },
        manager,
      );
      return after;
    });
  }

  /** Soft delete (history may name the IVR); refused while another IVR's tree jumps to it. */
  async remove(principal: Principal, id: string): Promise<{ deleted: true }> {
    const current = await this.find(principal.clientId, id);
    const others = await this.ivrs.find({ where: { clientId: principal.clientId, id: Not(id) } });
    const user = others.find((o) => ivrTargets(o.draftTree).includes(id) || ivrTargets(o.publishedTree).includes(id));
    if (user)
      throw new AppException('conflict', {
        message: `The IVR "${user.name}" sends calls to this IVR`,
        messageKey: 'ivrInUse',
        params: { name: user.name },
        data: { usedBy: user.id },
      });
    const [number] = await this.dataSource.query(
      `SELECT n.number, t.name FROM trunk_inbound_numbers n JOIN trunks t ON t.id = n.trunk_id WHERE n.ivr_id = $1 AND n.client_id = $2 LIMIT 1`,
      [id, principal.clientId],
    );
    if (number)
      throw new AppException('conflict', {
        message: `The number ${number.number} of the trunk "${number.name}" sends calls to this IVR`,
        messageKey: 'ivrHasNumbers',
        params: { number: number.number, name: number.name },
      });
    await this.dataSource.transaction(async (manager) => {
      await manager.softDelete(Ivr, { id, clientId: principal.clientId });
      await this.audit.record(
        principal,
        { entityType: AUDIT_TYPE, entityId: id, action: 'delete', before: toIvrDetail(current), after: null },
        manager,
      );
    });
    return { deleted: true };
  }

  private async change(
    principal: Principal,
    current: Ivr,
    action: 'update',
    write: (repo: Repository<Ivr>) => Promise<unknown>,
  ): Promise<IvrDetail> {
    return this.dataSource.transaction(async (manager: EntityManager) => {
      const repo = manager.getRepository(Ivr);
      const before = toIvrDetail(current);
      await write(repo);
      const after = toIvrDetail(await repo.findOneByOrFail({ id: current.id }));
      await this.audit.record(principal, { entityType: AUDIT_TYPE, entityId: current.id, action, before, after }, manager);
      return after;
    });
  }

  private async assertTreeValid(clientId: string, id: string, tree: IvrTree): Promise<void> {
    const issues = validateIvrTree(tree, { ivrId: id });
    issues.push(...(await this.prompts.fileIssues(clientId, tree)));
    // Prompt audio is fetched by whatever plays it: never from loopback, link-local or private networks.
    tree.nodes.forEach((node, index) => {
      const field = `tree.nodes.${index}.promptAudioUrl`;
      if (!node.promptAudioUrl || issues.some((issue) => issue.field === field)) return;
      const issue = this.outgoing.urlIssue(field, node.promptAudioUrl, { schemes: ['http', 'https'], allowPath: true });
      if (issue) issues.push(issue as IvrIssue);
    });
    const refs = ivrReferences(tree);
    const ids = (type: 'line' | 'agent' | 'ivr') => [...new Set(refs.filter((r) => r.type === type).map((r) => r.targetId))];
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const existing = async (type: 'line' | 'agent' | 'ivr'): Promise<Set<string>> => {
      const wanted = ids(type).filter((v) => uuid.test(v));
      if (!wanted.length) return new Set();
      const where = { clientId, id: In(wanted) };
      const rows =
        type === 'line'
          ? await this.dataSource.getRepository(AttentionLine).find({ where, select: { id: true } })
          : type === 'agent'
            ? await this.dataSource.getRepository(User).find({ where: { ...where, active: true }, select: { id: true } })
            : await this.ivrs.find({ where, select: { id: true } });
      return new Set(rows.map((r) => r.id));
    };
    const found = { line: await existing('line'), agent: await existing('agent'), ivr: await existing('ivr') };
    for (const ref of refs) {
      if (!found[ref.type].has(ref.targetId) && !(ref.type === 'ivr' && ref.targetId === id)) {
        issues.push({ field: ref.field, key: 'notFound', values: { type: ref.type } });
      }
    }
    if (!issues.length && ids('ivr').length) {
      // Jumps between IVRs: this draft plus every other IVR's published and draft trees.
      const others = await this.ivrs.find({ where: { clientId, id: Not(id) } });
      const edges = new Map<string, string[]>(
        others.map((o) => [o.id, [...new Set([...ivrTargets(o.publishedTree), ...ivrTargets(o.draftTree)])]]),
      );
      edges.set(id, ivrTargets(tree));
      const cycle = findIvrCycle(id, edges);
      if (cycle) {
        const names = new Map([...others.map((o) => [o.id, o.name] as const), [id, (await this.ivrs.findOneBy({ id }))?.name ?? id]]);
        const first = refs.find((r) => r.type === 'ivr' && r.targetId === cycle[1])!;
        issues.push({ field: first.field, key: 'cycle', values: { path: cycle.map((c) => names.get(c) ?? c).join(' → ') } });
      }
    }
    assertTree(issues);
  }

  private async assertNameFree(clientId: string, name: string, exceptId: string | null): Promise<void> {
    const clash = await this.ivrs
      .createQueryBuilder('i')
      .where('i.client_id = :clientId AND lower(i.name) = lower(:name)', { clientId, name })
      .andWhere(exceptId ? 'i.id <> :exceptId' : '1=1', { exceptId })
      .getExists();
    if (clash) {
      throw new AppException('conflict', {
        message: 'name is already used by another IVR',
        data: { fields: { name: ['name is already used by another IVR'] }, issues: [{ field: 'name', key: 'duplicate' }] },
      });
    }
  }

  private checked(body: Partial<IvrInput>, defaultLanguage: Language): IvrInput {
    const input: IvrInput = {
      name: (body.name ?? '').trim(),
      description: body.description?.trim() || null,
      active: body.active ?? true,
      language: (typeof body.language === 'string' && body.language.trim() ? body.language.trim() : defaultLanguage) as Language,
    };
    assertRules(validateIvr(input));
    return input;
  }

  /** New IVRs speak the tenant's language unless told otherwise. */
  private async tenantLanguage(clientId: string): Promise<Language> {
    const [row] = await this.dataSource.query(`SELECT language FROM clients WHERE id = $1`, [clientId]);
    return (LANGUAGES as readonly string[]).includes(row?.language) ? (row.language as Language) : DEFAULT_LANGUAGE;
  }

  private async find(clientId: string, id: string): Promise<Ivr> {
    const row = await this.ivrs.findOne({ where: { id, clientId } });
    if (!row) throw AppException.notFound();
    return row;
  }
}
