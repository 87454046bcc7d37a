import {
  DEFAULT_LANGUAGE,
  reportCellLabel,
  valueLabel,
  type ConversationDetail,
  type Language,
  type ReportCell,
  type ReportColumn,
} from '@centralita/contracts';
import { formatDateTime, formatDuration, formatNullable, type Translate } from '../format/format';

export interface ReportFilterState {
  from: Date | null;
  to: Date | null;
  attentionLineId?: string;
  campaignId?: string;
  channel?: string;
  agentId?: string;
  /** Conversations report: only those that left a voicemail. */
  voicemail?: boolean;
}

/** The last seven days, from midnight six days ago to the coming midnight (local time). */
export function defaultWindow(now: Date): { from: Date; to: Date } {
  const to = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  const from = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 6);
  return { from, to };
}

/** The API query of the filters: ISO window plus the filters that are set. */
export function reportQuery(filters: ReportFilterState): Record<string, string> {
  const query: Record<string, string> = { from: filters.from!.toISOString(), to: filters.to!.toISOString() };
  for (const key of ['attentionLineId', 'campaignId', 'channel', 'agentId'] as const) if (filters[key]) query[key] = filters[key]!;
  if (filters.voicemail) query.voicemail = 'true';
  return query;
}

/**
 * A cell as the table shows it (spec §9: dates DD-MM-YYYY hh:mm:ss, durations hh:mm:ss, null N/A);
 * states, channels, outcomes and dispositions by their label in `language`, as the exported file writes them.
 */
export function formatReportCell(column: ReportColumn, value: ReportCell, t?: Translate, language: Language = DEFAULT_LANGUAGE): string {
  if (value === null || value === undefined) return formatNullable(null, t);
  switch (column.kind) {
    case 'datetime':
      return formatDateTime(value, t);
    case 'seconds':
      return formatDuration(Number(value), t);
    case 'ratio':
      return `${(Number(value) * 100).toFixed(1)} %`;
    default:
      return column.key === 'id' ? String(value).slice(0, 8) : formatNullable(reportCellLabel(column.key, value, language), t);
  }
}

type Transition = ConversationDetail['transitions'][number];
type DetailMessage = ConversationDetail['messages'][number];

/** A status change of the conversation detail: 'En cola → Activa (Asignada a un agente)'. */
export function transitionText(row: Transition, language: Language): string {
  const state = (code: string | null) => (code === null ? '—' : valueLabel('conversationStatus', code, language));
  return `${state(row.from)} → ${state(row.to)} (${valueLabel('conversationEvent', row.event, language)})`;
}

/**
 * Who made a status change: an agent or supervisor by name; the customer and the system by their
 * role, since the log holds only a visitor id or nothing for them.
 */
export function transitionActor(row: Transition, language: Language): string {
  if ((row.actorKind === 'agent' || row.actorKind === 'supervisor') && row.actor) return row.actor;
  return valueLabel('actor', row.actorKind, language);
}

/** Who wrote a message: the customer's or agent's name; system and bot messages by the role, translated. */
export function messageSender(message: DetailMessage, language: Language): string {
  return message.senderKind === 'system' || message.senderKind === 'bot'
    ? valueLabel('actor', message.senderKind, language)
    : message.sender;
}
