import { isMessagingChannel, LANGUAGES, QUEUES, outboxJob, roomName, type Language } from '@centralita/contracts';
import { jobEffect } from '@centralita/contracts/server';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { MachineHostService } from '../machine-host/machine-host.service';
import type { OutboxEffect, SocketEmit } from '../machine-host/outbox';
import { messageView, type ConversationRow, type MessageRow } from '../machine-host/views';
import { OutboundRulesService } from './outbound-rules.service';
import { hasVisitor } from './visitor';

/** What a customer is told when their agent leaves (logs out, is logged out, loses the connection) with the conversation open. */
export const REQUEUE_NOTICE: Record<Language, string> = {
  es: 'Su agente ha tenido que ausentarse; conserva su lugar en la cola y le atenderá el próximo agente disponible.',
  en: 'Your agent had to leave; you keep your place in the queue and the next available agent will answer.',
  el: 'Ο εκπρόσωπός σας χρειάστηκε να αποχωρήσει· διατηρείτε τη θέση σας στην ουρά και θα σας απαντήσει ο επόμενος διαθέσιμος εκπρόσωπος.',
  it: 'Il suo operatore ha dovuto allontanarsi; mantiene il suo posto in coda e le risponderà il primo operatore disponibile.',
  sr: 'Vaš agent je morao da ode; zadržavate svoje mesto u redu i odgovoriće vam sledeći slobodni agent.',
  de: 'Ihr Mitarbeiter musste das Gespräch verlassen; Sie behalten Ihren Platz in der Warteschlange und der nächste freie Mitarbeiter antwortet Ihnen.',
  ru: 'Вашему оператору пришлось отойти; вы сохраняете своё место в очереди, и вам ответит следующий свободный оператор.',
};

/** Channels whose customers are told: the live chats. An email waits in the queue as it is; a mail about it would be noise. */
const TOLD = new Set(['webchat', 'whatsapp', 'facebook', 'instagram', 'telegram', 'twitter']);

/**
 * Tells a customer put back in the queue because their agent left (a supervisor's force logout, a
 * logout or a lost connection with conversations open) that they keep their place: a system
 * message, in the re-queuing transaction. Web chat shows it at once; a messaging channel gets it
 * through the channel send path (stored `pending` with its channel-send job, as an agent's message)
 * when the channel lets free text through now: never to a contact who opted out, never outside the
 * reply window or with the account disconnected; then nothing is stored and the logout goes on.
 *
 * The text is in the tenant's language: conversations do not record the customer's own yet.
 */
@Injectable()
export class RequeueNoticeService implements OnModuleInit {
  private readonly logger = new Logger(RequeueNoticeService.name);

  constructor(
    private readonly host: MachineHostService,
    private readonly rules: OutboundRulesService,
  ) {}

  onModuleInit(): void {
    this.host.onRequeued((manager, conversation) => this.notice(manager, conversation));
  }

  async notice(manager: EntityManager, conversation: ConversationRow): Promise<OutboxEffect[]> {
    if (!TOLD.has(conversation.channel)) return [];
    const messaging = isMessagingChannel(conversation.channel);
    if (messaging) {
      try {
        await this.rules.assertCanSend(manager, conversation, 'text');
      } catch (error) {
        if (!(error instanceof AppException)) throw error;
        this.logger.log(`conversation ${conversation.id} re-queued without a notice: ${error.code}`);
        return [];
      }
    }
    const text = REQUEUE_NOTICE[await this.language(manager, conversation.tenant_id)];
    const [row] = (await manager.query(
      `INSERT INTO messages (conversation_id, tenant_id, sequence, sender_kind, sender_id, text, channel, channel_account_id,
         delivery_status, delivery_updated_at)
       VALUES ($1, $2, (SELECT COALESCE(max(sequence), 0) + 1 FROM messages WHERE conversation_id = $1), 'system', NULL, $3, $4, $5,
         $6::text, CASE WHEN $6::text IS NULL THEN NULL ELSE now() END)
       RETURNING *`,
      [
        conversation.id,
        conversation.tenant_id,
        text,
        messaging ? conversation.channel : null,
        messaging ? conversation.channel_account_id : null,
        messaging ? 'pending' : null,
      ],
    )) as MessageRow[];
    row.attachments = [];
    const view = messageView(row);
    const room = roomName({ kind: 'conversation', id: conversation.id });
    const emits: SocketEmit[] = [{ namespace: 'staff', rooms: [room], event: 'message.created', data: view }];
    if (hasVisitor(conversation.channel)) emits.push({ namespace: 'visitor', rooms: [room], event: 'message.created', data: view });
    const effects: OutboxEffect[] = [{ topic: 'socket', payload: { emits } }];
    if (messaging) {
      effects.push(
        jobEffect(
          outboxJob(
            QUEUES.channelSend,
            { name: 'send', data: { tenantId: conversation.tenant_id, messageId: row.id } },
            { jobId: `channel-send.${row.id}` },
          ),
        ),
      );
    }
    return effects;
  }

  private async language(manager: EntityManager, tenantId: string): Promise<Language> {
    const [tenant] = (await manager.query(`SELECT language FROM clients WHERE id = $1`, [tenantId])) as { language: string }[];
    return (LANGUAGES as readonly string[]).includes(tenant?.language ?? '') ? (tenant!.language as Language) : 'es';
  }
}
