import { isMessagingChannel, PHONE_CHANNEL, type ReplyWindowView, type TemplateView } from '@centralita/contracts';
import { isSettingOn, replyWindowState } from '@centralita/contracts/server';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { ChannelAccountsService } from '../channels/channel-accounts.service';
import { ChannelAdaptersService } from '../channels/channel-adapters.service';
import type { ConversationRow } from '../machine-host/views';

/** A uuid: conversations of messaging channels name their channel_accounts row; others (tests, web chat) name anything. */
const UUID_SQL = `'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'`;
/** Templates change at the provider rarely (Meta approves them): kept a few minutes per account. */
const TEMPLATES_TTL_MS = 5 * 60_000;

/** What deciding a send needs about a messaging conversation, in one read. */
interface OutboundFacts {
  account_id: string | null;
  kind: string | null;
  settings: Record<string, string> | null;
  enabled: boolean | null;
  opted_out_at: Date | null;
  last_customer_at: Date | null;
}

/**
 * The rules of writing to a messaging customer (issue 19): nothing to a contact who opted out
 * (blocked the bot, STOP), and free text only inside the channel's reply window (WhatsApp 24 h;
 * Messenger/Instagram 24 h, or 7 days tagged HUMAN_AGENT where the account has the tag), else an
 * approved template. Checked under the conversation's lock before the message is stored
 * (MessagesService `beforeStore`), so a refused free text is never stored, never shows as sent.
 */
@Injectable()
export class OutboundRulesService {
  private readonly templateCache = new Map<string, { at: number; templates: TemplateView[] }>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly adapters: ChannelAdaptersService,
    private readonly accounts: ChannelAccountsService,
  ) {}

  private async facts(conversation: ConversationRow, manager: EntityManager = this.dataSource.manager): Promise<OutboundFacts> {
    const [facts] = (await manager.query(
      `SELECT a.id AS account_id, a.kind, a.settings, a.enabled AND a.deleted_at IS NULL AS enabled, k.opted_out_at,
         (SELECT max(m.created_at) FROM messages m WHERE m.conversation_id = c.id AND m.sender_kind = 'customer') AS last_customer_at
       FROM conversations c
       LEFT JOIN channel_accounts a ON a.tenant_id = c.tenant_id
         AND a.id = CASE WHEN c.channel_account_id ~ ${UUID_SQL} THEN c.channel_account_id::uuid END
       LEFT JOIN contacts k ON k.id = c.contact_id
       WHERE c.id = $1`,
      [conversation.id],
    )) as OutboundFacts[];
    return facts ?? { account_id: null, kind: null, settings: null, enabled: null, opted_out_at: null, last_customer_at: null };
  }

  private windowOf(facts: OutboundFacts, now: Date) {
    const adapter = facts.kind ? this.adapters.usable(facts.kind) : null;
    const rules = adapter?.capabilities ?? { replyWindowHours: null, humanAgentTagHours: null };
    return {
      adapter,
      state: replyWindowState(rules, facts.last_customer_at, isSettingOn(facts.settings?.humanAgentTag), now),
    };
  }

  /** GET /api/conversations/:id/reply-window */
  async view(conversation: ConversationRow, now = new Date()): Promise<ReplyWindowView> {
    const base = { conversationId: conversation.id, channel: conversation.channel as ReplyWindowView['channel'] };
    if (!isMessagingChannel(conversation.channel)) {
      return { ...base, open: true, until: null, humanAgentUntil: null, templates: false, optedOut: false };
    }
    const facts = await this.facts(conversation);
    const { adapter, state } = this.windowOf(facts, now);
    return {
      ...base,
      // Tagged free text is still free text the agent may write: the composer stays open until the tag's end.
      open: state.freeText !== 'closed',
      until: state.until?.toISOString() ?? null,
      humanAgentUntil: state.humanAgentUntil?.toISOString() ?? null,
      templates: Boolean(adapter?.capabilities.templates),
      optedOut: facts.opted_out_at !== null,
    };
  }

  /**
   * Refuses (409, a code the console translates) a send the channel would not take: any message to
   * an opted-out contact, free text outside the reply window. Runs in the storing transaction.
   */
  async assertCanSend(manager: EntityManager, conversation: ConversationRow, kind: 'text' | 'template', now = new Date()): Promise<void> {
    // A caller reads nothing: a text written in their conversation would be stored and reach nobody.
    if (conversation.channel === PHONE_CHANNEL)
      throw new AppException('conflict', {
        message: 'A phone conversation has no text channel: the caller cannot read messages.',
        messageKey: 'phoneNoText',
      });
    if (!isMessagingChannel(conversation.channel)) return;
    const facts = await this.facts(conversation, manager);
    if (!facts.account_id || !facts.enabled) {
      throw new AppException('conflict', {
        message: "This conversation's channel account is disconnected or disabled: nothing can be sent",
        data: { reason: 'channelAccountUnavailable' },
      });
    }
    if (facts.opted_out_at)
      throw new AppException('contact_opted_out', { data: { optedOutAt: new Date(facts.opted_out_at).toISOString() } });
    if (kind === 'template') return;
    const { state } = this.windowOf(facts, now);
    if (state.freeText === 'closed') {
      throw new AppException('reply_window_closed', { data: { until: state.until?.toISOString() ?? null } });
    }
  }

  /** The approved templates of the conversation's account (B1's listing, kept a few minutes). */
  async templates(conversation: ConversationRow): Promise<TemplateView[]> {
    const facts = await this.facts(conversation);
    if (!facts.account_id) throw new AppException('validation', { message: 'This conversation has no channel account with templates' });
    const cached = this.templateCache.get(facts.account_id);
    if (cached && Date.now() - cached.at < TEMPLATES_TTL_MS) return cached.templates;
    const templates = await this.accounts.templates(conversation.tenant_id, facts.account_id);
    this.templateCache.set(facts.account_id, { at: Date.now(), templates });
    return templates;
  }
}

/** A template's body with its {{n}} placeholders replaced by the parameters (the text the desk shows). */
export function renderTemplate(body: string, parameters: readonly string[]): string {
  return body.replace(/\{\{\s*(\d+)\s*\}\}/g, (placeholder, index: string) => parameters[Number(index) - 1] ?? placeholder);
}
