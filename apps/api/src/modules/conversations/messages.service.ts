import { roomName, type MessageView, type NoteView } from '@centralita/contracts';
import type { Actor } from '@centralita/domain';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { MachineHostService } from '../machine-host/machine-host.service';
import { writeOutbox } from '../machine-host/outbox';
import { RealtimeService } from '../realtime/realtime.service';
import { SentimentProducer } from '../dashboards/sentiment-producer.service';
import { messageView, noteView, type ConversationRow, type MessageRow } from '../machine-host/views';

export interface NewMessage {
  conversationId: string;
  tenantId: string;
  sender: Actor & { kind: MessageView['senderKind'] };
  text: string;
  clientMessageId?: string;
}

/**
 * Messages are stored once (a repeated client message id returns the stored one), numbered per
 * conversation under the conversation's row lock, and pushed through the outbox of the same
 * transaction. A customer's message is also `conversation.messageReceived` for the machine.
 */
@Injectable()
export class MessagesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly host: MachineHostService,
    private readonly realtime: RealtimeService,
    private readonly sentiment: SentimentProducer,
  ) {}

  async send(input: NewMessage, guard: (row: ConversationRow) => void): Promise<MessageView> {
    const stored = await this.host.transaction(async (manager, outbox) => {
      const conversation = await this.host.lockConversation(manager, input.conversationId, input.tenantId);
      if (input.clientMessageId) {
        const [existing] = (await manager.query(`SELECT * FROM messages WHERE conversation_id = $1 AND client_message_id = $2`, [
          input.conversationId,
          input.clientMessageId,
        ])) as MessageRow[];
        if (existing) return messageView(existing);
      }
      guard(conversation);
      if (input.sender.kind === 'customer') {
        const stepped = await this.host.dispatchConversation(
          manager,
          input.conversationId,
          { type: 'conversation.messageReceived' },
          input.sender,
          input.tenantId,
          conversation,
        );
        outbox.push(...stepped.outboxIds);
      }
      const [row] = (await manager.query(
        `INSERT INTO messages (conversation_id, tenant_id, sequence, sender_kind, sender_id, text, client_message_id)
         VALUES ($1, $2, (SELECT COALESCE(max(sequence), 0) + 1 FROM messages WHERE conversation_id = $1), $3, $4, $5, $6) RETURNING *`,
        [input.conversationId, input.tenantId, input.sender.kind, input.sender.id ?? null, input.text, input.clientMessageId ?? null],
      )) as MessageRow[];
      const view = messageView(row);
      outbox.push(...(await this.pushMessage(manager, conversation, view)));
      return view;
    });
    // After commit: the worker scores customer messages (dashboards' sentiment); its sweep covers a lost request.
    if (input.sender.kind === 'customer')
      this.sentiment.request({ messageId: stored.id, tenantId: input.tenantId, conversationId: input.conversationId });
    return stored;
  }

  private pushMessage(manager: EntityManager, conversation: ConversationRow, view: MessageView): Promise<string[]> {
    const rooms = [roomName({ kind: 'conversation', id: conversation.id })];
    if (conversation.agent_id) rooms.push(roomName({ kind: 'agent', id: conversation.agent_id }));
    return writeOutbox(manager, [
      {
        topic: 'socket',
        payload: {
          emits: [
            { namespace: 'staff', rooms, event: 'message.created', data: view },
            { namespace: 'visitor', rooms: [rooms[0]], event: 'message.created', data: view },
          ],
        },
      },
    ]);
  }

  /** Messages in order; the reader's fetch marks the other side's messages delivered. */
  async list(conversationId: string, after = 0, readerKind: 'customer' | 'staff'): Promise<MessageView[]> {
    const otherSide = readerKind === 'customer' ? `sender_kind <> 'customer'` : `sender_kind = 'customer'`;
    await this.dataSource.query(
      `UPDATE messages SET delivered_at = now() WHERE conversation_id = $1 AND sequence > $2 AND delivered_at IS NULL AND ${otherSide}`,
      [conversationId, after],
    );
    const rows: MessageRow[] = await this.dataSource.query(
      `SELECT * FROM messages WHERE conversation_id = $1 AND sequence > $2 ORDER BY sequence`,
      [conversationId, after],
    );
    return rows.map(messageView);
  }

  async markRead(conversationId: string, readerKind: 'customer' | 'agent', upToSequence: number): Promise<{ read: number }> {
    const otherSide = readerKind === 'customer' ? `sender_kind <> 'customer'` : `sender_kind = 'customer'`;
    const [, count] = (await this.dataSource.query(
      `UPDATE messages SET read_at = now(), delivered_at = COALESCE(delivered_at, now())
       WHERE conversation_id = $1 AND sequence <= $2 AND read_at IS NULL AND ${otherSide}`,
      [conversationId, upToSequence],
    )) as [unknown, number];
    const view = { conversationId, readerKind, upToSequence };
    return this.host.transaction(async (manager, outbox) => {
      const room = roomName({ kind: 'conversation', id: conversationId });
      outbox.push(
        ...(await writeOutbox(manager, [
          {
            topic: 'socket',
            payload: {
              emits: [
                { namespace: 'staff', rooms: [room], event: 'message.read', data: view },
                { namespace: 'visitor', rooms: [room], event: 'message.read', data: view },
              ],
            },
          },
        ])),
      );
      return { read: count };
    });
  }

  /** Typing marks are ephemeral: pushed straight to the other side, never stored. */
  pushTyping(conversationId: string, senderKind: 'customer' | 'agent', typing: boolean): void {
    const room = roomName({ kind: 'conversation', id: conversationId });
    const view = { conversationId, senderKind, typing };
    if (senderKind === 'customer') this.realtime.emit('staff', [room], 'typing', view);
    else this.realtime.emit('visitor', [room], 'typing', view);
  }

  async addNote(conversation: ConversationRow, authorId: string, text: string): Promise<NoteView> {
    return this.host.transaction(async (manager, outbox) => {
      const [row] = await manager.query(
        `INSERT INTO conversation_notes (conversation_id, tenant_id, author_id, text) VALUES ($1, $2, $3, $4) RETURNING *`,
        [conversation.id, conversation.tenant_id, authorId, text],
      );
      const view = noteView(row);
      // Staff namespace only: visitors never receive notes.
      const rooms = [roomName({ kind: 'conversation', id: conversation.id }), roomName({ kind: 'tenant', id: conversation.tenant_id })];
      if (conversation.agent_id) rooms.push(roomName({ kind: 'agent', id: conversation.agent_id }));
      outbox.push(
        ...(await writeOutbox(manager, [
          { topic: 'socket', payload: { emits: [{ namespace: 'staff', rooms, event: 'note.created', data: view }] } },
        ])),
      );
      return view;
    });
  }

  async notes(conversationId: string): Promise<NoteView[]> {
    const rows = await this.dataSource.query(`SELECT * FROM conversation_notes WHERE conversation_id = $1 ORDER BY created_at, id`, [
      conversationId,
    ]);
    return rows.map(noteView);
  }

  static requireOpen(row: ConversationRow): void {
    if (row.status === 'Inquest' || row.status === 'Closed') {
      throw new AppException('illegal_transition', {
        message: `Messages are not accepted while the conversation is ${row.status}`,
        data: { event: 'message.send', state: row.status },
      });
    }
  }
}
