import {
  BOT_LANGUAGES,
  BOT_QUERY_TYPE,
  DEFAULT_BOT_SETTINGS,
  type BotAnswerView,
  type BotHandoffReason,
  type BotLanguage,
  type BotSettings,
  type BotSummaryView,
} from '@centralita/contracts';
import { channelCapabilities } from '@centralita/channels';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { MessagesService, type NewMessage } from '../conversations/messages.service';
import { isIllegalTransition, MachineHostService } from '../machine-host/machine-host.service';
import type { ConversationRow } from '../machine-host/views';
import { asksForPerson, fold, guessLanguage, stems, TenantRetrieval } from './bot-retrieval';
import { greetingButtons, parseTap, submenuButtons, SUBMENU_PROMPT, topicLabel, type MenuButton } from './bot-menu';

/** The bot's sender: messages of kind 'bot' (no Actor kind of the machines; it never steps one as an author). */
const BOT_SENDER = { kind: 'bot' } as unknown as NewMessage['sender'];
/** On a messaging channel without buttons, this answer asks for a person, as the greeting says (also typed where there are buttons). */
const HANDOFF_OPTION = '0';
/** Low-confidence answers in a row after which the bot hands off. */
const LOW_CONFIDENCE_LIMIT = 2;
/** Tenants whose retrieval index is kept in memory (rebuilt when their QnA or synonyms change). */
const TENANTS_KEPT = 500;
/** Conversations remembered as past the bot (an id each). */
const CONVERSATIONS_KEPT = 20_000;

interface SettingsRow {
  enabled: boolean;
  handoff_keywords: string[];
  max_turns: number;
  min_score: number;
  texts: Partial<BotSettings['texts']> | null;
}

interface SessionRow {
  conversation_id: string;
  turns: number;
  low_streak: number;
  greeted_at: Date | null;
  handed_off_at: Date | null;
  handoff_reason: string | null;
  language: string | null;
}

/** What the bot did with a customer's message. */
export type BotTurnResult =
  /** The line has no bot, or the conversation is past the bot: the caller carries on as before (a messaging channel queues it). */
  | 'no-bot'
  /** The bot answered; the conversation stays with it (Transitory). */
  | 'answered'
  /** The bot handed the conversation to a person (LiningUp), or had already. */
  | 'handed-off';

/**
 * The bot in front of a line's queue. The machine stays the truth: the bot only speaks while the
 * conversation is Transitory, and its handoff is the machine's own step to LiningUp
 * (conversation.menuCompleted under query type 'bot', the reason as submenu), written to the
 * transition log like every step. Its turns are rows of bot_turns keyed by the customer's message,
 * so a channel event run twice is answered once.
 */
@Injectable()
export class BotService {
  private readonly logger = new Logger(BotService.name);
  private readonly retrievals = new Map<string, { version: string; retrieval: TenantRetrieval }>();
  /**
   * Conversations seen past Transitory: a conversation never goes back, so their next messages
   * (the chat with the agent, the hot path) cost the bot no read at all.
   */
  private readonly pastBot = new Set<string>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly messages: MessagesService,
    private readonly host: MachineHostService,
  ) {}

  /** A line's settings (the defaults, disabled, when never saved). The caller checked the line is the tenant's. */
  async settings(tenantId: string, lineId: string): Promise<BotSettings> {
    const [row] = (await this.dataSource.query(
      `SELECT enabled, handoff_keywords, max_turns, min_score, texts FROM bot_line_settings WHERE attention_line_id = $1 AND tenant_id = $2`,
      [lineId, tenantId],
    )) as SettingsRow[];
    if (!row) return structuredClone(DEFAULT_BOT_SETTINGS);
    return {
      botEnabled: row.enabled,
      handoffKeywords: row.handoff_keywords,
      maxTurns: row.max_turns,
      minScore: Math.round(Number(row.min_score) * 100) / 100,
      texts: Object.fromEntries(
        BOT_LANGUAGES.map((language) => [language, { ...DEFAULT_BOT_SETTINGS.texts[language], ...row.texts?.[language] }]),
      ) as BotSettings['texts'],
    };
  }

  /** True when the line's bot answers first (the widget shows the chat instead of the menu). */
  async enabledFor(lineId: string): Promise<boolean> {
    const [row] = (await this.dataSource.query(`SELECT enabled FROM bot_line_settings WHERE attention_line_id = $1`, [lineId])) as {
      enabled: boolean;
    }[];
    return row?.enabled ?? false;
  }

  /**
   * What the bot would answer `text` with on a line with these settings: the tenant's best entry
   * and its score, the reply, and whether the text asks for a person. Only the tenant's own
   * active entries are ever searched.
   */
  async answer(tenantId: string, settings: BotSettings, text: string, fallback: BotLanguage = 'es'): Promise<BotAnswerView> {
    const language = guessLanguage(text, fallback);
    const handoff = asksForPerson(text, settings.handoffKeywords);
    const hit = (await this.retrieval(tenantId)).best(text, language);
    const score = hit?.score ?? 0;
    const confident = hit !== null && score >= settings.minScore;
    return {
      language,
      score,
      confident,
      qnaId: hit?.entry.id ?? null,
      question: hit?.entry.question ?? null,
      answer: hit?.entry.answer ?? null,
      reply: confident ? hit.entry.answer : settings.texts[language].unknown,
      handoff,
    };
  }

  /**
   * A new web-chat conversation on a line with the bot: it greets (in the tenant's language when
   * it is one the bot speaks). Nothing when the line has no bot.
   */
  async greet(conversation: ConversationRow): Promise<void> {
    const lineId = conversation.entry_line_id;
    if (!lineId || conversation.status !== 'Transitory') return;
    const settings = await this.settings(conversation.tenant_id, lineId);
    if (!settings.botEnabled) return;
    const language = await this.tenantLanguage(conversation.tenant_id);
    const [session] = (await this.dataSource.query(
      `INSERT INTO bot_sessions (conversation_id, tenant_id, attention_line_id, language, greeted_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (conversation_id) DO NOTHING RETURNING conversation_id`,
      [conversation.id, conversation.tenant_id, lineId, language],
    )) as unknown[];
    if (session) await this.say(conversation, this.greeting(settings, language, conversation.channel));
  }

  /**
   * A customer's message (already stored) in a conversation that may be with the bot. See BotTurnResult.
   * Turns of one conversation are taken one at a time (the session's row lock).
   */
  async takeTurn(
    tenantId: string,
    conversationId: string,
    /** `payload`: the customer tapped one of the bot's buttons (a messaging channel's reply button), `text` being its label. */
    message: { id: string; text: string; payload?: string },
  ): Promise<BotTurnResult> {
    if (this.pastBot.has(conversationId)) return 'no-bot';
    const conversation = await this.conversation(tenantId, conversationId);
    if (!conversation?.entry_line_id || conversation.status !== 'Transitory') {
      if (conversation) this.keepPastBot(conversationId);
      return 'no-bot';
    }
    const settings = await this.settings(tenantId, conversation.entry_line_id);
    const [known] = (await this.dataSource.query(
      `SELECT handed_off_at, handoff_reason, language FROM bot_sessions WHERE conversation_id = $1`,
      [conversationId],
    )) as { handed_off_at: Date | null; handoff_reason: string | null; language: string | null }[];
    if (!settings.botEnabled && !known) return 'no-bot';
    if (known?.handed_off_at) {
      // Handed off, but the step to LiningUp did not land (the process died between): it is taken again.
      await this.queue(conversation, (known.handoff_reason ?? 'request') as BotHandoffReason);
      return 'handed-off';
    }
    const fallback = await this.tenantLanguage(tenantId);
    // A tap on one of its buttons is a menu step, not a question: no retrieval, the session's language.
    const tap = parseTap(message.payload);
    const reply: BotAnswerView = tap
      ? {
          language: isBotLanguage(known?.language) ? known.language : fallback,
          score: 0,
          confident: false,
          qnaId: null,
          question: null,
          answer: null,
          reply: '',
          handoff: tap.kind === 'person',
        }
      : await this.answer(tenantId, settings, message.text, fallback);
    const decided = await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO bot_sessions (conversation_id, tenant_id, attention_line_id, language) VALUES ($1, $2, $3, $4)
         ON CONFLICT (conversation_id) DO NOTHING`,
        [conversationId, tenantId, conversation.entry_line_id, reply.language],
      );
      const [session] = (await manager.query(`SELECT * FROM bot_sessions WHERE conversation_id = $1 FOR NO KEY UPDATE`, [
        conversationId,
      ])) as SessionRow[];
      if (session!.handed_off_at) return { kind: 'handed-off' as const, session: session! };
      const [turn] = (await manager.query(
        `INSERT INTO bot_turns (conversation_id, tenant_id, customer_message_id, text, language, outcome)
         VALUES ($1, $2, $3, $4, $5, 'pending') ON CONFLICT (customer_message_id) DO NOTHING RETURNING id`,
        [conversationId, tenantId, message.id, message.text.slice(0, 4000), reply.language],
      )) as { id: string }[];
      // This message was taken before (a channel event run again): answered then.
      if (!turn) return { kind: 'repeat' as const, session: session! };
      const greet = !session!.greeted_at;
      const meaningless = stems(message.text, reply.language).length === 0;
      const turns = session!.turns + 1;
      let outcome: 'answered' | 'unknown' | 'handoff' | 'greeting' | 'menu';
      let lowStreak = session!.low_streak;
      let handoff: BotHandoffReason | null = null;
      if (reply.handoff || (conversation.channel !== 'webchat' && message.text.trim() === HANDOFF_OPTION)) {
        outcome = 'handoff';
        handoff = 'request';
      } else if (tap?.kind === 'choice') {
        // A menu choice: queued under that query type and submenu, as the widget's menu form would.
        outcome = 'handoff';
        handoff = 'menu';
      } else if (tap?.kind === 'topic') {
        outcome = 'menu';
      } else if (reply.confident) {
        outcome = 'answered';
        lowStreak = 0;
      } else if (meaningless) {
        // "hola", "gracias": nothing to answer, and not the bot's failure.
        outcome = 'greeting';
      } else {
        outcome = 'unknown';
        lowStreak += 1;
        if (lowStreak >= LOW_CONFIDENCE_LIMIT) handoff = 'lowConfidence';
      }
      if (!handoff && turns >= settings.maxTurns) handoff = 'maxTurns';
      await manager.query(`UPDATE bot_turns SET outcome = $2, qna_id = $3, qna_question = $4, score = $5 WHERE id = $1`, [
        turn.id,
        outcome,
        outcome === 'answered' ? reply.qnaId : null,
        outcome === 'answered' ? reply.question : null,
        reply.score,
      ]);
      await manager.query(
        `UPDATE bot_sessions SET turns = $2, low_streak = $3, language = $4, greeted_at = COALESCE(greeted_at, now()),
           handed_off_at = CASE WHEN $5::text IS NULL THEN NULL ELSE now() END, handoff_reason = $5::text
         WHERE conversation_id = $1`,
        [conversationId, turns, lowStreak, reply.language, handoff],
      );
      if (outcome === 'unknown') await this.recordUnanswered(manager, tenantId, conversation.entry_line_id, message.text, reply.language);
      return { kind: 'decided' as const, greet, outcome, handoff, session: session! };
    });
    const choice = tap?.kind === 'choice' ? tap : null;
    if (decided.kind === 'handed-off') {
      await this.queue(conversation, decided.session.handoff_reason as BotHandoffReason);
      return 'handed-off';
    }
    if (decided.kind === 'repeat') return 'answered';
    const texts = settings.texts[reply.language];
    if (decided.greet && decided.outcome !== 'handoff' && decided.outcome !== 'menu')
      await this.say(conversation, this.greeting(settings, reply.language, conversation.channel));
    if (decided.outcome === 'answered' || decided.outcome === 'unknown') await this.say(conversation, { text: reply.reply });
    if (decided.outcome === 'greeting' && !decided.greet)
      await this.say(conversation, this.greeting(settings, reply.language, conversation.channel));
    if (decided.outcome === 'menu' && tap?.kind === 'topic' && !decided.handoff) {
      await this.say(conversation, {
        text: SUBMENU_PROMPT[reply.language](topicLabel(tap.topicId, reply.language)),
        buttons: submenuButtons(tap.topicId, reply.language),
      });
    }
    if (!decided.handoff) return 'answered';
    await this.say(conversation, { text: texts.handoff });
    await this.queue(conversation, decided.handoff, choice);
    return 'handed-off';
  }

  /** The customer pressed the widget's "talk to a person" button. */
  async handoffOnRequest(tenantId: string, conversationId: string): Promise<ConversationRow> {
    const conversation = await this.conversation(tenantId, conversationId);
    if (!conversation) throw AppException.notFound();
    if (conversation.status !== 'Transitory' || !conversation.entry_line_id) {
      throw new AppException('illegal_transition', {
        message: `The conversation is not with the bot (it is ${conversation.status})`,
        data: { event: 'bot.handoff', state: conversation.status },
      });
    }
    const settings = await this.settings(tenantId, conversation.entry_line_id);
    const [session] = (await this.dataSource.query(
      `INSERT INTO bot_sessions (conversation_id, tenant_id, attention_line_id, handed_off_at, handoff_reason) VALUES ($1, $2, $3, now(), 'request')
       ON CONFLICT (conversation_id) DO UPDATE SET handed_off_at = COALESCE(bot_sessions.handed_off_at, now()),
         handoff_reason = COALESCE(bot_sessions.handoff_reason, 'request')
       RETURNING language`,
      [conversationId, tenantId, conversation.entry_line_id],
    )) as { language: string | null }[];
    const language = isBotLanguage(session?.language) ? session.language : await this.tenantLanguage(tenantId);
    if (settings.botEnabled) await this.say(conversation, { text: settings.texts[language].handoff });
    return (await this.queue(conversation, 'request')) ?? conversation;
  }

  /** What the bot collected in a conversation (the caller checked the conversation is visible to them). */
  async summary(conversation: ConversationRow): Promise<BotSummaryView | null> {
    const [session] = (await this.dataSource.query(`SELECT * FROM bot_sessions WHERE conversation_id = $1`, [
      conversation.id,
    ])) as SessionRow[];
    if (!session) return null;
    const turns = (await this.dataSource.query(
      `SELECT text, outcome, qna_question, score FROM bot_turns WHERE conversation_id = $1 ORDER BY created_at, id`,
      [conversation.id],
    )) as { text: string; outcome: string; qna_question: string | null; score: number }[];
    const reason = (session.handoff_reason as BotHandoffReason | null) ?? (conversation.status !== 'Transitory' ? 'menu' : null);
    return {
      conversationId: conversation.id,
      turns: session.turns,
      handoffReason: reason,
      handedOffAt: session.handed_off_at?.toISOString() ?? null,
      language: isBotLanguage(session.language) ? session.language : null,
      answered: turns
        .filter((turn) => turn.outcome === 'answered')
        .map((turn) => ({ question: turn.text, qnaQuestion: turn.qna_question ?? '', score: Math.round(Number(turn.score) * 100) / 100 })),
      unanswered: turns.filter((turn) => turn.outcome === 'unknown').map((turn) => turn.text),
    };
  }

  /**
   * The tenant's retrieval, rebuilt when its active QnA or its synonyms changed: the version is
   * read each time (counts and latest change times, one indexed query), the index only when it moved.
   */
  async retrieval(tenantId: string): Promise<TenantRetrieval> {
    const [{ version }] = (await this.dataSource.query(
      `SELECT concat_ws('/',
         (SELECT concat(count(*), ':', max(updated_at), ':', max(deleted_at)) FROM qna_entries WHERE client_id = $1),
         (SELECT concat(count(*), ':', max(updated_at)) FROM bot_synonyms WHERE tenant_id = $1)) AS version`,
      [tenantId],
    )) as { version: string }[];
    const kept = this.retrievals.get(tenantId);
    if (kept?.version === version) return kept.retrieval;
    const entries = (await this.dataSource.query(
      `SELECT id, question, answer FROM qna_entries WHERE client_id = $1 AND active AND deleted_at IS NULL`,
      [tenantId],
    )) as { id: string; question: string; answer: string }[];
    const synonyms = (await this.dataSource.query(`SELECT terms FROM bot_synonyms WHERE tenant_id = $1 ORDER BY position`, [tenantId])) as {
      terms: string[];
    }[];
    const retrieval = new TenantRetrieval(
      entries,
      synonyms.map((row) => row.terms),
    );
    this.retrievals.delete(tenantId);
    this.retrievals.set(tenantId, { version, retrieval });
    if (this.retrievals.size > TENANTS_KEPT) this.retrievals.delete(this.retrievals.keys().next().value!);
    return retrieval;
  }

  private keepPastBot(conversationId: string): void {
    this.pastBot.add(conversationId);
    if (this.pastBot.size > CONVERSATIONS_KEPT) this.pastBot.delete(this.pastBot.values().next().value!);
  }

  /**
   * The greeting with the line's menu: the widget shows its own buttons (web chat); a messaging
   * channel with reply buttons gets "talk to a person" and the topics as buttons; one without
   * (numbered text fallback) names the option to answer for a person.
   */
  private greeting(settings: BotSettings, language: BotLanguage, channel: string): { text: string; buttons?: MenuButton[] } {
    const text = settings.texts[language].greeting;
    if (channel === 'webchat') return { text };
    if (channelCapabilities(channel)?.buttons) return { text, buttons: greetingButtons(language) };
    const option = language === 'es' ? `${HANDOFF_OPTION} · Hablar con una persona` : `${HANDOFF_OPTION} · Talk to a person`;
    return { text: `${text}\n\n${option}` };
  }

  /** A bot message, only while the conversation is still with the bot (after handoff it never speaks). */
  private async say(conversation: ConversationRow, { text, buttons }: { text: string; buttons?: MenuButton[] }): Promise<void> {
    try {
      await this.messages.send(
        {
          conversationId: conversation.id,
          tenantId: conversation.tenant_id,
          sender: BOT_SENDER,
          text: text.slice(0, 4000),
          ...(buttons?.length ? { buttons } : {}),
        },
        (row) => {
          if (row.status !== 'Transitory') {
            throw new AppException('illegal_transition', {
              message: `The bot does not speak in a conversation that is ${row.status}`,
              data: { event: 'message.send', state: row.status },
            });
          }
        },
      );
    } catch (error) {
      // The customer left or a person took it meanwhile: the bot stays silent.
      if (!isIllegalTransition(error)) throw error;
    }
  }

  /** The handoff: the machine's step to LiningUp on the entry line, with the line's poll and priority. */
  private async queue(
    conversation: ConversationRow,
    reason: BotHandoffReason,
    /** A menu choice (a tapped submenu button): queued under its query type and submenu instead of the bot's. */
    choice: { topicId: string; submenuId: string } | null = null,
  ): Promise<ConversationRow | null> {
    const [found] = (await this.dataSource.query(
      `SELECT c.*, l.poll_id AS line_poll_id, COALESCE(r.priority, 0) AS line_priority
       FROM conversations c
       LEFT JOIN attention_lines l ON l.id = c.entry_line_id
       LEFT JOIN attention_line_routing r ON r.attention_line_id = c.entry_line_id
       WHERE c.id = $1 AND c.tenant_id = $2 AND c.status = 'Transitory'`,
      [conversation.id, conversation.tenant_id],
    )) as (ConversationRow & { line_poll_id: string | null; line_priority: number })[];
    if (!found) return null;
    const { line_poll_id: linePoll, line_priority: priority, ...row } = found;
    try {
      return await this.host.dispatchConversationAlone(
        row.id,
        {
          type: 'conversation.menuCompleted',
          queryTypeId: choice?.topicId ?? BOT_QUERY_TYPE,
          submenuId: choice?.submenuId ?? reason,
          attentionLineId: row.entry_line_id!,
          // Messaging customers never see the widget's survey (see MESSAGING_QUERY_TYPE).
          pollId: row.channel === 'webchat' ? linePoll : null,
          priority,
        },
        { kind: 'system' },
        row.tenant_id,
        row,
      );
    } catch (error) {
      // Queued meanwhile (a concurrent delivery, the customer's own menu choice) or left.
      if (isIllegalTransition(error)) return null;
      this.logger.warn(`bot handoff of ${row.id} failed: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
  }

  private async recordUnanswered(
    manager: { query: DataSource['query'] },
    tenantId: string,
    lineId: string | null,
    text: string,
    language: BotLanguage,
  ): Promise<void> {
    const shown = text.trim().replace(/\s+/g, ' ').slice(0, 500);
    const folded = fold(shown)
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim()
      .slice(0, 500);
    if (!folded) return;
    await manager.query(
      `INSERT INTO bot_unanswered (tenant_id, attention_line_id, folded, text, language) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant_id, COALESCE(attention_line_id, '00000000-0000-0000-0000-000000000000'::uuid), folded)
       DO UPDATE SET count = bot_unanswered.count + 1, last_at = now(), text = EXCLUDED.text, resolved_at = NULL`,
      [tenantId, lineId, folded, shown, language],
    );
  }

  private async conversation(tenantId: string, id: string): Promise<ConversationRow | null> {
    const [row] = (await this.dataSource.query(`SELECT * FROM conversations WHERE id = $1 AND tenant_id = $2`, [id, tenantId])) as
      ConversationRow[] | [];
    return row ?? null;
  }

  private async tenantLanguage(tenantId: string): Promise<BotLanguage> {
    const [row] = (await this.dataSource.query(`SELECT language FROM clients WHERE id = $1`, [tenantId])) as { language: string }[];
    return isBotLanguage(row?.language) ? row.language : 'es';
  }
}

function isBotLanguage(value: unknown): value is BotLanguage {
  return (BOT_LANGUAGES as readonly unknown[]).includes(value);
}
