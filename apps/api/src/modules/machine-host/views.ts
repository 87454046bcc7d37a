import type { AgentView, ConversationView, NoteView } from '@centralita/contracts';

// Messages are built the same way by the API and the worker (which pushes delivery-status changes).
export { MESSAGE_ATTACHMENTS_SQL, attachmentView, messageView, type AttachmentRow, type MessageRow } from '@centralita/contracts/server';

/** Raw rows as PostgreSQL returns them (snake_case); the realtime tables are reached with SQL only. */
export interface ConversationRow {
  id: string;
  tenant_id: string;
  channel: string;
  entry_line_id: string;
  attention_line_id: string | null;
  agent_id: string | null;
  status: string;
  priority: number;
  queued_at: Date | null;
  customer_name: string;
  customer_email: string | null;
  visitor_id: string | null;
  snapshot: { value: unknown; context: Record<string, unknown>; status: string };
  version: number;
  last_event: string;
  created_at: Date;
  updated_at: Date;
  closed_at: Date | null;
  /** The intake's contact and channel account (channel_accounts.id for messaging channels; web chat: the line). */
  contact_id?: string | null;
  channel_account_id?: string | null;
}

export interface AgentRow {
  user_id: string;
  tenant_id: string;
  name: string;
  status: string;
  capacity: number;
  active_count: number;
  snapshot: { value: unknown; context: Record<string, unknown>; status: string };
  version: number;
  last_event: string;
  state_since: Date;
}

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

export function conversationView(row: ConversationRow): ConversationView {
  const context = row.snapshot.context;
  return {
    id: row.id,
    version: row.version,
    tenantId: row.tenant_id,
    channel: row.channel,
    status: row.status,
    attentionLineId: row.attention_line_id,
    agentId: row.agent_id,
    priority: row.priority,
    customerName: row.customer_name,
    customerEmail: row.customer_email,
    closeReason: (context.closeReason as string | null) ?? null,
    disposition: (context.disposition as string | null) ?? null,
    lastEvent: row.last_event,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

export function agentView(row: AgentRow): AgentView {
  return {
    agentId: row.user_id,
    version: row.version,
    tenantId: row.tenant_id,
    name: row.name,
    status: row.status,
    pauseReasonId: (row.snapshot.context.pauseReasonId as string | null) ?? null,
    capacity: row.capacity,
    activeCount: row.active_count,
    stateSince: iso(row.state_since)!,
    lastEvent: row.last_event,
  };
}

export function noteView(row: { id: string; conversation_id: string; author_id: string; text: string; created_at: Date }): NoteView {
  return { id: row.id, conversationId: row.conversation_id, authorId: row.author_id, text: row.text, createdAt: iso(row.created_at)! };
}
