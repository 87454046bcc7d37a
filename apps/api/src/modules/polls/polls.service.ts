import {
  type ApiMessageKey,
  validateAnswerGroup,
  validatePoll,
  type AnswerGroupInput,
  type AnswerGroupSummary,
  type Page,
  type PagedQuery,
  type PollAnswer,
  type PollInput,
  type PollQuestionInput,
  type PollQuestionStats,
  type PollResponseType,
  type PollSummary,
} from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { IsNull, In, type DataSource, type EntityManager, type Repository } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { paginate } from '../admin/paginate';
import { assertRules } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { Poll, PollAnswerGroup, PollQuestion, PollResponse } from './poll.entities';

type QuestionBody = Partial<PollQuestionInput> & { id?: string };
export type PollBody = Partial<Omit<PollInput, 'questions'>> & { questions?: QuestionBody[] };

function toPollSummary(poll: Poll, questions: PollQuestion[]): PollSummary {
  return {
    id: poll.id,
    name: poll.name,
    description: poll.description,
    active: poll.active,
    lowerRank: poll.lowerRank,
    upperRank: poll.upperRank,
    questionCount: questions.length,
    questions: questions.map((q) => ({
      id: q.id,
      position: q.position,
      text: q.text,
      responseType: q.responseType as PollResponseType,
      options: q.options,
      answerGroupId: q.answerGroupId,
    })),
    createdAt: poll.createdAt.toISOString(),
    updatedAt: poll.updatedAt.toISOString(),
  };
}

@Injectable()
export class PollsService {
  constructor(
    @InjectRepository(Poll) private readonly polls: Repository<Poll>,
    @InjectRepository(PollAnswerGroup) private readonly groups: Repository<PollAnswerGroup>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  async options(clientId: string): Promise<{ id: string; name: string }[]> {
    const rows = await this.polls.find({ where: { clientId, active: true }, order: { name: 'ASC' }, select: { id: true, name: true } });
    return rows.map(({ id, name }) => ({ id, name }));
  }

  async list(clientId: string, query: PagedQuery): Promise<Page<PollSummary>> {
    const qb = this.polls.createQueryBuilder('p').where('p.client_id = :clientId', { clientId });
    const page = await paginate(
      qb,
      query,
      {
        sortable: { name: 'p.name', active: 'p.active', updatedAt: 'p.updated_at' },
        searchable: ['p.name', 'p.description'],
        defaultSort: { field: 'name', order: 'asc' },
      },
      (poll) => poll,
    );
    const questions = page.items.length
      ? await this.dataSource
          .getRepository(PollQuestion)
          .find({ where: { pollId: In(page.items.map((p) => p.id)), retiredAt: IsNull() }, order: { position: 'ASC' } })
      : [];
    return {
      ...page,
      items: page.items.map((poll) =>
        toPollSummary(
          poll,
          questions.filter((q) => q.pollId === poll.id),
        ),
      ),
    };
  }

  async get(clientId: string, id: string): Promise<PollSummary> {
    return this.summary(this.dataSource.manager, await this.find(clientId, id));
  }

  async create(principal: Principal, body: PollBody): Promise<PollSummary> {
    const input = this.checked(body);
    await this.checkGroups(principal.clientId, input.questions);
    return this.dataSource.transaction(async (manager) => {
      const poll = await manager
        .getRepository(Poll)
        .save(manager.getRepository(Poll).create({ ...this.pollFields(input), clientId: principal.clientId }));
      await this.writeQuestions(manager, principal.clientId, poll.id, input.questions);
      const after = await this.summary(manager, poll);
      await this.audit.record(principal, { entityType: 'poll', entityId: poll.id, action: 'create', before: null, after }, manager);
      return after;
    });
  }

  async update(principal: Principal, id: string, body: PollBody): Promise<PollSummary> {
    const current = await this.find(principal.clientId, id);
    const input = this.checked(body);
    await this.checkGroups(principal.clientId, input.questions);
    return this.dataSource.transaction(async (manager) => {
      const before = await this.summary(manager, current);
      await manager.update(Poll, { id, clientId: principal.clientId }, this.pollFields(input));
      await this.writeQuestions(manager, principal.clientId, id, input.questions);
      const after = await this.summary(manager, await manager.findOneByOrFail(Poll, { id }));
      await this.audit.record(principal, { entityType: 'poll', entityId: id, action: 'update', before, after }, manager);
      return after;
    });
  }

  /** Soft delete: the answers stay for reports. */
  async remove(principal: Principal, id: string): Promise<{ deleted: true }> {
    const current = await this.find(principal.clientId, id);
    await this.dataSource.transaction(async (manager) => {
      const before = await this.summary(manager, current);
      await manager.softDelete(Poll, { id, clientId: principal.clientId });
      await this.audit.record(principal, { entityType: 'poll', entityId: id, action: 'delete', before, after: null }, manager);
    });
    return { deleted: true };
  }

  async answers(clientId: string, pollId: string, query: PagedQuery & { questionId?: string }): Promise<Page<PollAnswer>> {
    await this.find(clientId, pollId);
    const qb = this.dataSource
      .getRepository(PollResponse)
      .createQueryBuilder('r')
      .innerJoinAndSelect('r.question', 'q')
      .where('r.client_id = :clientId AND r.poll_id = :pollId', { clientId, pollId });
    if (query.questionId) qb.andWhere('r.question_id = :questionId', { questionId: query.questionId });
    return paginate(
      qb,
      query,
      {
        sortable: { createdAt: 'r.created_at', value: 'r.value', question: 'q.position' },
        searchable: ['r.value', 'q.text'],
        defaultSort: { field: 'createdAt', order: 'desc' },
      },
      (r) => ({
        id: r.id,
        questionId: r.questionId,
        questionText: r.question?.text ?? '',
        value: r.value,
        conversationId: r.conversationId,
        createdAt: r.createdAt.toISOString(),
      }),
    );
  }

  /** Answer counts of one question, for its chart (multiple-choice answers count each option). */
  async stats(clientId: string, pollId: string, questionId: string): Promise<PollQuestionStats> {
    await this.find(clientId, pollId);
    const question = await this.dataSource.getRepository(PollQuestion).findOne({ where: { id: questionId, pollId, clientId } });
    if (!question) throw AppException.notFound();
    const rows: { value: string; count: string }[] = await this.dataSource.query(
      `SELECT value, count(*) AS count FROM poll_responses WHERE client_id = $1 AND poll_id = $2 AND question_id = $3 GROUP BY value ORDER BY count(*) DESC, value`,
      [clientId, pollId, questionId],
    );
    const counts = rows.map((row) => ({ value: row.value, count: Number(row.count) }));
    return {
      questionId,
      questionText: question.text,
      responseType: question.responseType as PollResponseType,
      total: counts.reduce((sum, c) => sum + c.count, 0),
      counts,
    };
  }

  /** Records a customer's answers (the post-conversation flow calls this). */
  async respond(
    clientId: string,
    pollId: string,
    body: { conversationId?: string | null; answers: { questionId: string; value: string }[] },
  ): Promise<{ recorded: number }> {
    await this.find(clientId, pollId);
    const ids = [...new Set(body.answers.map((a) => a.questionId))];
    // Each question answered once: the answer set is bounded by the poll's questions.
    if (ids.length !== body.answers.length) throw answeredTwice('answers must answer each question once', 'pollAnswerEachOnce');
    const found = await this.dataSource
      .getRepository(PollQuestion)
      .count({ where: { id: In(ids), pollId, clientId, retiredAt: IsNull() } });
    if (found !== ids.length) throw AppException.notFound();
    const conversationId = body.conversationId ?? null;
    await this.dataSource.transaction(async (manager) => {
      if (conversationId) {
        // The conversation's row lock orders this with the visitor's own survey answers.
        const owned = (await manager.query(`SELECT id FROM conversations WHERE id = $1 AND tenant_id = $2 FOR NO KEY UPDATE`, [
          conversationId,
          clientId,
        ])) as unknown[];
        if (!owned.length) throw AppException.notFound();
        const answered = (await manager.query(
          `SELECT 1 FROM poll_responses WHERE conversation_id = $1 AND question_id = ANY($2::uuid[]) LIMIT 1`,
          [conversationId, ids],
        )) as unknown[];
        if (answered.length) throw answeredTwice('a question of answers was already answered for this conversation', 'pollAlreadyAnswered');
      }
      await manager
        .getRepository(PollResponse)
        .insert(body.answers.map((a) => ({ clientId, pollId, questionId: a.questionId, value: a.value.trim(), conversationId })));
    });
    return { recorded: body.answers.length };
  }

  listGroups(clientId: string, query: PagedQuery): Promise<Page<AnswerGroupSummary>> {
    const qb = this.groups.createQueryBuilder('g').where('g.client_id = :clientId', { clientId });
    return paginate(
      qb,
      query,
      { sortable: { name: 'g.name' }, searchable: ['g.name'], defaultSort: { field: 'name', order: 'asc' } },
      (g) => ({
        id: g.id,
        name: g.name,
        options: g.options,
      }),
    );
  }

  async saveGroup(principal: Principal, id: string | null, body: Partial<AnswerGroupInput>): Promise<AnswerGroupSummary> {
    const input = { name: (body.name ?? '').trim(), options: (body.options ?? []).map((o) => o.trim()).filter(Boolean) };
    assertRules(validateAnswerGroup(input));
    const current = id ? await this.groups.findOne({ where: { id, clientId: principal.clientId } }) : null;
    if (id && !current) throw AppException.notFound();
    return this.dataSource.transaction(async (manager) => {
      const repo = manager.getRepository(PollAnswerGroup);
      const before = current ? { id: current.id, name: current.name, options: [...current.options] } : null;
      const row = await repo.save(current ? repo.merge(current, input) : repo.create({ ...input, clientId: principal.clientId }));
      const after = { id: row.id, name: row.name, options: row.options };
      await this.audit.record(
        principal,
        { entityType: 'poll-answer-group', entityId: row.id, action: current ? 'update' : 'create', before, after },
        manager,
      );
      return after;
    });
  }

  async removeGroup(principal: Principal, id: string): Promise<{ deleted: true }> {
    const current = await this.groups.findOne({ where: { id, clientId: principal.clientId } });
    if (!current) throw AppException.notFound();
    await this.dataSource.transaction(async (manager) => {
      await manager.delete(PollAnswerGroup, { id, clientId: principal.clientId });
      await this.audit.record(
        principal,
        {
          entityType: 'poll-answer-group',
          entityId: id,
          action: 'delete',
          before: { name: current.name, options: current.options },
          after: null,
        },
        manager,
      );
    });
    return { deleted: true };
  }

  private checked(body: PollBody): PollInput & { questions: QuestionBody[] } {
    const input = {
      name: (body.name ?? '').trim(),
      description: body.description?.trim() || null,
      active: body.active ?? true,
      lowerRank: body.lowerRank as number,
      upperRank: body.upperRank as number,
      questions: (body.questions ?? []).map((q) => ({
        id: q.id,
        text: (q.text ?? '').trim(),
        responseType: (q.responseType ?? '') as PollResponseType,
        options: (q.options ?? []).map((o) => o.trim()).filter(Boolean),
        answerGroupId: q.answerGroupId ?? null,
      })),
    };
    assertRules(validatePoll(input));
    return input;
  }

  private pollFields(input: PollInput) {
    return {
      name: input.name,
      description: input.description,
      active: input.active,
      lowerRank: input.lowerRank,
      upperRank: input.upperRank,
    };
  }

  private async checkGroups(clientId: string, questions: QuestionBody[]): Promise<void> {
    const ids = [...new Set(questions.map((q) => q.answerGroupId).filter((id): id is string => !!id))];
    if (ids.length && (await this.groups.count({ where: { id: In(ids), clientId } })) !== ids.length) throw AppException.notFound();
  }

  /** Keeps questions by id, adds new ones; removed questions that have answers are retired so reports keep them. */
  private async writeQuestions(manager: EntityManager, clientId: string, pollId: string, questions: QuestionBody[]): Promise<void> {
    const repo = manager.getRepository(PollQuestion);
    const existing = await repo.find({ where: { pollId, retiredAt: IsNull() } });
    const kept = new Set<string>();
    for (const [index, q] of questions.entries()) {
      const fields = {
        text: q.text!,
        responseType: q.responseType!,
        options: q.options ?? [],
        answerGroupId: q.answerGroupId ?? null,
        position: index + 1,
      };
      const match = q.id ? existing.find((e) => e.id === q.id) : undefined;
      if (match) {
        kept.add(match.id);
        await repo.update({ id: match.id }, fields);
      } else {
        await repo.insert({ ...fields, pollId, clientId });
      }
    }
    for (const old of existing.filter((e) => !kept.has(e.id))) {
      const answered = await manager.getRepository(PollResponse).exists({ where: { questionId: old.id } });
      if (answered) await repo.update({ id: old.id }, { retiredAt: new Date() });
      else await repo.delete({ id: old.id });
    }
  }

  private async summary(manager: EntityManager, poll: Poll): Promise<PollSummary> {
    const questions = await manager
      .getRepository(PollQuestion)
      .find({ where: { pollId: poll.id, retiredAt: IsNull() }, order: { position: 'ASC' } });
    return toPollSummary(poll, questions);
  }

  private async find(clientId: string, id: string): Promise<Poll> {
    const poll = await this.polls.findOne({ where: { id, clientId } });
    if (!poll) throw AppException.notFound();
    return poll;
  }
}

const answeredTwice = (message: string, messageKey: ApiMessageKey): AppException =>
  new AppException('validation', { message, messageKey, data: { fields: { answers: [message] } } });
