import { randomUUID } from 'node:crypto';
import {
  CATALOGUE_MESSAGES,
  DEFAULT_BUSINESS_TIME_ZONE,
  isKnownTimeZone,
  isLineOpenAt,
  nextLineOpening,
  surveyAnswerProblem,
  type BusinessHoursWindow,
  type WebchatLineView,
  type ConversationView,
  type MessageView,
  type QueuePositionView,
  type SentMessageView,
  type StartChatResult,
  type SurveyView,
} from '@centralita/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { BotService } from '../bot/bot.service';
import { ConversationIntakeService } from '../intake/conversation-intake.service';
import { MachineHostService } from '../machine-host/machine-host.service';
import { REALTIME_CONFIG, type RealtimeConfig } from '../machine-host/realtime-config';
import { conversationView, type ConversationRow } from '../machine-host/views';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { VisitorTokenService, type VisitorIdentity } from '../realtime/visitor-token.service';
import { RoutingService } from '../routing/routing.service';
import type { MenuChoiceDto, SendMessageDto, StartChatDto, SurveyAnswerDto } from './conversations.dto';
import { MessagesService } from './messages.service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Answered (409) when a customer tries to start outside the line's business hours. */
export const LINE_CLOSED_MESSAGE = 'This attention line is closed right now';

export interface VisitorConversation {
  conversation: ConversationView;
  messages: MessageView[];
  queue: QueuePositionView | null;
  /** The display name of the agent holding the chat, so the customer knows who answers; null while nobody does. */
  agentName: string | null;
}

/** The web-chat customer's side: public routes, the visitor token names the one conversation. */
@Injectable()
export class WebchatService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly host: MachineHostService,
    private readonly messages: MessagesService,
    private readonly intake: ConversationIntakeService,
    private readonly routing: RoutingService,
    private readonly tokens: VisitorTokenService,
    private readonly limiter: RateLimiterService,
    @Inject(REALTIME_CONFIG) private readonly config: RealtimeConfig,
    private readonly bot: BotService,
  ) {}

  async start(input: StartChatDto, ip: string): Promise<StartChatResult> {
    await this.limiter.consume('webchat-start', ip, { limit: this.config.webchatStartsPerIpPerMinute, windowSeconds: 60 });
    const line = await this.liveLine(input.attentionLineId);
    // Outside the line's business hours nobody may start: the widget shows the off-hours message.
    if (!isLineOpenAt(line.business_hours, Date.now(), (await this.lineSettings(line.client_id)).timeZone)) {
      throw new AppException('conflict', { message: LINE_CLOSED_MESSAGE, data: { reason: 'lineClosed' } });
    }
    // Through the intake, as every channel: the visitor is the contact (a new one per chat), the line the channel account.
    const visitorId = randomUUID();
    const { conversation: row } = await this.intake.openOrFind({
      tenantId: line.client_id,
      channel: 'webchat',
      channelAccountId: line.id,
      contact: { externalId: visitorId, name: input.name, email: input.email ?? null },
      lineId: line.id,
      visitorId,
    });
    // The line's bot, when it has one, greets before the customer types (issue 23).
    await this.bot.greet(row);
    return {
      conversation: conversationView(row),
      visitorId,
      visitorToken: this.tokens.sign({ conversationId: row.id, tenantId: row.tenant_id, visitorId }),
    };
  }

  /** What the widget shows before the customer starts: messages, title and whether the line is open now. */
  async lineInfo(lineId: string): Promise<WebchatLineView> {
    const line = await this.liveLine(lineId);
    const settings = await this.lineSettings(line.client_id);
    const now = Date.now();
    const open = isLineOpenAt(line.business_hours, now, settings.timeZone);
    const wait = open ? await this.routing.newcomerWait(line.id) : { seconds: null, nobodyServing: false };
    return {
      attentionLineId: line.id,
      open,
      estimatedWaitSeconds: wait.seconds,
      nobodyServing: wait.nobodyServing,
      welcomeMessage: settings.welcomeMessage,
      offHoursMessage: settings.offHoursMessage,
      widgetTitle: settings.widgetTitle,
      timeZone: settings.timeZone,
      businessHours: line.business_hours
        .map(({ day, from, to }) => ({ day, from, to }))
        .sort((a, b) => a.day - b.day || String(a.from).localeCompare(String(b.from))),
      nextOpening: open ? null : nextLineOpening(line.business_hours, now, settings.timeZone),
      // Only when the line's bot answers first (issue 23); absent otherwise.
      ...((await this.bot.enabledFor(line.id)) ? { bot: true } : {}),
    };
  }

  /** A line customers may use: known and not deleted (an unknown id answers the catalogue's message). */
  private async liveLine(lineId: string): Promise<{ id: string; client_id: string; business_hours: BusinessHoursWindow[] }> {
    const [line] = UUID.test(lineId)
      ? ((await this.dataSource.query(`SELECT id, client_id, business_hours FROM attention_lines WHERE id = $1 AND deleted_at IS NULL`, [
          lineId,
        ])) as { id: string; client_id: string; business_hours: BusinessHoursWindow[] | null }[])
      : [];
    if (!line) throw new AppException('not_found', { message: CATALOGUE_MESSAGES.noAttentionLine });
    return { ...line, business_hours: line.business_hours ?? [] };
  }

  /**
   * The tenant's texts for the widget and the zone business hours are read in: the tenant's
   * configured zone (dashboard settings), else UTC. Messages never saved answer '' so the widget
   * shows its own text in the customer's language.
   */
  private async lineSettings(
    tenantId: string,
  ): Promise<
    Omit<WebchatLineView, 'attentionLineId' | 'open' | 'estimatedWaitSeconds' | 'nobodyServing' | 'businessHours' | 'nextOpening'>
  > {
    const [row] = (await this.dataSource.query(
      `SELECT (SELECT settings FROM platform_settings WHERE client_id = $1) AS settings,
         (SELECT settings->>'timeZone' FROM dashboard_settings WHERE client_id = $1) AS time_zone,
         (SELECT settings->>'widgetTitle' FROM channel_configs WHERE client_id = $1 AND channel = 'WebChat') AS widget_title`,
      [tenantId],
    )) as { settings: Record<string, unknown> | null; time_zone: string | null; widget_title: string | null }[];
    const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
    const zone = row?.time_zone;
    return {
      welcomeMessage: text(row?.settings?.welcomeMessage),
      offHoursMessage: text(row?.settings?.offHoursMessage),
      widgetTitle: text(row?.widget_title),
      timeZone: isKnownTimeZone(zone) ? zone : DEFAULT_BUSINESS_TIME_ZONE,
    };
  }

  identify(token: string | null): VisitorIdentity {
    return this.tokens.verify(token);
  }

  private async row(visitor: VisitorIdentity): Promise<ConversationRow> {
    const [row] = (await this.dataSource.query(`SELECT * FROM conversations WHERE id = $1 AND tenant_id = $2`, [
      visitor.conversationId,
      visitor.tenantId,
    ])) as ConversationRow[];
    if (!row) throw AppException.notFound();
    this.tokens.assertOpen(row);
    return row;
  }

  /** Reconnect: the conversation, every message, and the queue position while waiting. */
  async get(visitor: VisitorIdentity): Promise<VisitorConversation> {
    const row = await this.row(visitor);
    const queue = row.status === 'LiningUp' && row.attention_line_id ? await this.routing.positions(row.attention_line_id) : [];
    // Only the name of the agent answering now (users.name, what colleagues see too), never anyone else's.
    const [agent] =
      row.status === 'Active' && row.agent_id
        ? ((await this.dataSource.query(`SELECT name FROM users WHERE id = $1 AND client_id = $2`, [row.agent_id, row.tenant_id])) as {
            name: string;
          }[])
        : [];
    return {
      conversation: conversationView(row),
      messages: await this.messages.list(row.id, 0, 'customer'),
      queue: queue.find((entry) => entry.conversationId === row.id) ?? null,
      agentName: agent?.name ?? null,
    };
  }

  /**
   * The customer's menu choice queues the conversation on its entry line. The conversation and the
   * line's poll and priority are read together; the step (LiningUp, its routing request and queue
   * timer) is then written alone, without a transaction (see dispatchConversationAlone).
   */
  async completeMenu(visitor: VisitorIdentity, choice: MenuChoiceDto): Promise<ConversationView> {
    const [found] = (await this.dataSource.query(
      `SELECT c.*, l.poll_id AS line_poll_id, COALESCE(r.priority, 0) AS line_priority
       FROM conversations c
       LEFT JOIN attention_lines l ON l.id = c.entry_line_id
       LEFT JOIN attention_line_routing r ON r.attention_line_id = c.entry_line_id
       WHERE c.id = $1 AND c.tenant_id = $2`,
      [visitor.conversationId, visitor.tenantId],
    )) as (ConversationRow & { line_poll_id: string | null; line_priority: number })[];
    if (!found) throw AppException.notFound();
    this.tokens.assertOpen(found);
    // The line's own poll (attention-line admin) surveys the customer when the conversation ends.
    const { line_poll_id: pollId, line_priority: priority, ...row } = found;
    const updated = await this.host.dispatchConversationAlone(
      row.id,
      {
        type: 'conversation.menuCompleted',
        queryTypeId: choice.queryTypeId,
        submenuId: choice.submenuId,
        attentionLineId: row.entry_line_id,
        pollId,
        priority,
      },
      { kind: 'customer', id: visitor.visitorId },
      visitor.tenantId,
      row,
    );
    return conversationView(updated);
  }

  /** The message stored (a resent client id: the one stored before) and the conversation's version with it. */
  async send(visitor: VisitorIdentity, input: SendMessageDto): Promise<SentMessageView> {
    await this.limiter.consume('webchat-message', visitor.conversationId, {
      limit: this.config.webchatMessagesPerConversationPerMinute,
      windowSeconds: 60,
    });
    const { message, conversationVersion } = await this.intake.appendCustomerMessage({
      tenantId: visitor.tenantId,
      channel: 'webchat',
      conversationId: visitor.conversationId,
      senderId: visitor.visitorId,
      text: input.text,
      clientMessageId: input.clientMessageId,
      guard: (row) => {
        this.tokens.assertOpen(row);
        MessagesService.requireOpen(row);
      },
    });
    // The line's bot answers while the conversation is with it (Transitory); it pushes its own messages.
    if (message.senderKind === 'customer') await this.bot.takeTurn(visitor.tenantId, visitor.conversationId, message);
    // The visitor's conversation is named, so the intake always answers its version.
    return { ...message, conversationVersion: conversationVersion ?? (await this.row(visitor)).version };
  }

  async list(visitor: VisitorIdentity, after: number | undefined): Promise<MessageView[]> {
    await this.row(visitor);
    return this.messages.list(visitor.conversationId, after ?? 0, 'customer');
  }

  async typing(visitor: VisitorIdentity, typing: boolean): Promise<{ typing: boolean }> {
    await this.row(visitor);
    this.messages.pushTyping(visitor.conversationId, 'customer', typing);
    return { typing };
  }

  async read(visitor: VisitorIdentity, upToSequence: number): Promise<{ read: number }> {
    await this.row(visitor);
    return this.messages.markRead(visitor.conversationId, 'customer', upToSequence);
  }

  /** The line's poll the customer is asked when the conversation ends; 404 when the line has none. */
  async survey(visitor: VisitorIdentity): Promise<SurveyView> {
    const row = await this.row(visitor);
    const pollId = (row.snapshot.context as { pollId?: string | null }).pollId ?? null;
    const survey = pollId ? await this.loadSurvey(row.tenant_id, pollId) : null;
    if (!survey) throw new AppException('not_found', { message: 'This conversation has no survey' });
    return survey;
  }

  /**
   * One answer: checked against its question of the line's poll, stored as a poll response and
   * recorded on the conversation in the same transaction (the last one closes it).
   */
  async answerSurvey(visitor: VisitorIdentity, input: SurveyAnswerDto): Promise<ConversationView> {
    const current = await this.row(visitor);
    const pollId = (current.snapshot.context as { pollId?: string | null }).pollId ?? null;
    const survey = current.status === 'Inquest' && pollId ? await this.loadSurvey(current.tenant_id, pollId) : null;
    if (current.status === 'Inquest' && !survey) throw new AppException('not_found', { message: 'This conversation has no survey' });
    if (survey) {
      const question = survey.questions.find((candidate) => candidate.id === input.questionId);
      if (!question) throw new AppException('validation', { message: 'questionId is not a question of this survey' });
      const problem = surveyAnswerProblem(question, input.answer);
      if (problem) throw new AppException('validation', { message: problem });
      // Each question once: the answer set is bounded by the poll's questions.
      if (answeredTimes(current.snapshot.context, input.questionId) > 0) throw alreadyAnswered();
    }
    // Outside Inquest the machine refuses the event below (409 naming the state), and nothing is stored.
    const row = await this.host.transaction(async (manager, outbox) => {
      const result = await this.host.dispatchConversation(
        manager,
        visitor.conversationId,
        { type: 'conversation.surveyAnswered', questionId: input.questionId, answer: input.answer, last: input.last },
        { kind: 'customer', id: visitor.visitorId },
        visitor.tenantId,
      );
      // Two answers to one question sent at once: the machine took both in turn; the second is undone here.
      if (survey && answeredTimes(result.row.snapshot.context, input.questionId) > 1) throw alreadyAnswered();
      outbox.push(...result.outboxIds);
      if (survey) {
        // An answer recorded for this conversation by staff (POST /api/polls/:id/responses) counts too.
        const recorded = (await manager.query(`SELECT 1 FROM poll_responses WHERE conversation_id = $1 AND question_id = $2 LIMIT 1`, [
          visitor.conversationId,
          input.questionId,
        ])) as unknown[];
        if (recorded.length) throw alreadyAnswered();
        await manager.query(
          `INSERT INTO poll_responses (client_id, poll_id, question_id, conversation_id, value) VALUES ($1, $2, $3, $4, $5)`,
          [visitor.tenantId, survey.pollId, input.questionId, visitor.conversationId, input.answer.trim()],
        );
      }
      return result.row;
    });
    return conversationView(row);
  }

  private async loadSurvey(tenantId: string, pollId: string): Promise<SurveyView | null> {
    const [poll] = (await this.dataSource.query(`SELECT id, name FROM polls WHERE id = $1 AND client_id = $2 AND deleted_at IS NULL`, [
      pollId,
      tenantId,
    ])) as { id: string; name: string }[];
    if (!poll) return null;
    const questions = (await this.dataSource.query(
      // A choice question may take its options from an answer group (catalog) instead of its own list.
      `SELECT q.id, q.position, q.text, q.response_type AS "responseType",
         CASE WHEN cardinality(q.options) > 0 OR g.options IS NULL THEN q.options ELSE g.options END AS options
       FROM poll_questions q LEFT JOIN poll_answer_groups g ON g.id = q.answer_group_id
       WHERE q.poll_id = $1 AND q.retired_at IS NULL ORDER BY q.position, q.id`,
      [pollId],
    )) as SurveyView['questions'];
    return { pollId: poll.id, name: poll.name, questions };
  }

  /** The customer leaves: abandoned while waiting or in the menu; an active chat stays for the agent to close. */
  async leave(visitor: VisitorIdentity): Promise<ConversationView> {
    const row = await this.host.dispatch(
      'conversation',
      visitor.conversationId,
      { type: 'conversation.abandoned' },
      { kind: 'customer', id: visitor.visitorId },
      visitor.tenantId,
    );
    return conversationView(row);
  }
}

function answeredTimes(context: unknown, questionId: string): number {
  const answers = (context as { surveyAnswers?: { questionId: string }[] } | null)?.surveyAnswers ?? [];
  return answers.filter((answer) => answer.questionId === questionId).length;
}

const alreadyAnswered = (): AppException =>
  new AppException('validation', {
    message: 'questionId was already answered',
    data: { fields: { questionId: ['questionId was already answered'] } },
  });
