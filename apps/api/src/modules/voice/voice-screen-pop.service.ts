import { PERMISSIONS, type VoiceIvrPathStep, type VoiceScreenPop } from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import type { Principal } from '../auth/principal';
import type { VoiceCallRow } from './voice-events.service';

type PopRow = Pick<VoiceCallRow, 'id' | 'conversation_id' | 'from_number' | 'to_number' | 'attention_line_id' | 'ivr_path'> & {
  started_at: Date | null;
  queued_at: Date | null;
  agent_id: string | null;
  line_name: string | null;
  exit_agent_name: string | null;
  contact_id: string | null;
  contact_name: string | null;
  contact_external_id: string | null;
};

/**
 * The screen pop of a ringing inbound call (issue 22 item 2): the call behind a phone conversation as the agent's
 * softphone shows it while it rings. Only the agent the conversation is assigned to (routing assigns it before the
 * worker rings their phone) or a supervisor sees it; another tenant's conversation, or someone else's, is 404.
 */
@Injectable()
export class VoiceScreenPopService {
  constructor(private readonly dataSource: DataSource) {}

  async screenPop(principal: Principal, conversationId: string): Promise<VoiceScreenPop> {
    const [row] = (await this.dataSource.query(
      `SELECT v.id, v.conversation_id, v.from_number, v.to_number, v.attention_line_id, v.ivr_path, v.started_at, v.queued_at,
              c.agent_id, l.name AS line_name, u.name AS exit_agent_name,
              k.id AS contact_id, k.name AS contact_name, k.external_id AS contact_external_id
         FROM voice_calls v
         JOIN conversations c ON c.id = v.conversation_id AND c.tenant_id = v.client_id
         LEFT JOIN attention_lines l ON l.id = v.attention_line_id
         LEFT JOIN users u ON u.id = v.requested_agent_id
         LEFT JOIN contacts k ON k.id = c.contact_id
        WHERE v.conversation_id = $1 AND v.client_id = $2
        ORDER BY v.created_at DESC LIMIT 1`,
      [conversationId, principal.clientId],
    )) as PopRow[];
    if (!row) throw AppException.notFound();
    if (row.agent_id !== principal.userId && !principal.permissions.includes(PERMISSIONS.conversationsSupervise))
      throw AppException.notFound();
    return {
      callId: row.id,
      conversationId,
      from: row.from_number,
      to: row.to_number,
      lineId: row.attention_line_id,
      lineName: row.line_name,
      ivrPath: screenPopPath(row.ivr_path, row.line_name, row.exit_agent_name),
      startedAt: row.started_at ? new Date(row.started_at).toISOString() : null,
      queuedAt: row.queued_at ? new Date(row.queued_at).toISOString() : null,
      contact: row.contact_id ? { id: row.contact_id, name: row.contact_name ?? '', externalId: row.contact_external_id ?? '' } : null,
    };
  }
}

/** The stored walk as steps: each node entered, then the exit option named by its label, else the line's (agent's) name. */
export function screenPopPath(path: VoiceCallRow['ivr_path'], lineName: string | null, agentName: string | null): VoiceIvrPathStep[] {
  return (path ?? []).map((entry) => ({
    name: entry.exit ? entry.nodeName || (entry.exit === 'agent' ? agentName : lineName) || '' : entry.nodeName,
    digit: entry.digit,
  }));
}
