import { randomBytes, randomUUID } from 'node:crypto';
import { domainOf } from './settings';

/** References kept on a reply: the thread's root and the latest ids (RFC 5322 §3.6.4 allows trimming the middle). */
const REFERENCES_KEPT = 20;

/** A Message-ID on the sender's domain, unique by construction. */
export function newMessageId(fromAddress: string): string {
  return `<${randomUUID()}@${domainOf(fromAddress) || 'centralita.invalid'}>`;
}

/** The token of a reply address (`box+r<token>@domain`): 24 hex characters. */
export function newReplyToken(): string {
  return randomBytes(12).toString('hex');
}

/**
 * What a reply in a conversation threads under: the latest email (either direction) as
 * In-Reply-To, its References plus its own id (oldest first, trimmed to the root and the latest),
 * and its subject with one "Re: ". `query` runs SQL (a DataSource or an EntityManager).
 */
export async function emailThreadOf(
  query: (text: string, values: unknown[]) => Promise<unknown>,
  conversationId: string,
): Promise<{ inReplyTo: string | null; references: string[]; subject: string }> {
  const [last] = (await query(
    `SELECT message_id_header, "references", subject FROM message_emails WHERE conversation_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
    [conversationId],
  )) as { message_id_header: string; references: string[] | null; subject: string }[];
  if (!last) return { inReplyTo: null, references: [], subject: '' };
  return {
    inReplyTo: last.message_id_header,
    references: trimReferences([...(last.references ?? []), last.message_id_header]),
    subject: replySubject(last.subject),
  };
}

export function trimReferences(references: string[]): string[] {
  const unique = [...new Set(references)];
  return unique.length <= REFERENCES_KEPT ? unique : [unique[0]!, ...unique.slice(-(REFERENCES_KEPT - 1))];
}

/** "Re: " once, whatever reply prefixes the thread's clients added (Re:, RE:, AW:, RV:, SV:, Antw:); "Fwd:" stays. */
export function replySubject(subject: string): string {
  const bare = subject.replace(/^(\s*(re|aw|rv|sv|antw|odp|ответ|απ)\s*(\[\d+\])?\s*:\s*)+/i, '').trim();
  return bare ? `Re: ${bare}` : 'Re:';
}
