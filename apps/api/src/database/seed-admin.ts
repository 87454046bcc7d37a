import type { EntityManager } from 'typeorm';
import type { DemoContent } from './seed-content';

/** Fixed ids so the demo administration data is seeded once, however often `seed` runs. */
const POLL_ID = '6f1d5a38-0c43-4a63-9d2a-5b3f0c1e7a01';
const Q1 = '6f1d5a38-0c43-4a63-9d2a-5b3f0c1e7a02';
const Q2 = '6f1d5a38-0c43-4a63-9d2a-5b3f0c1e7a03';
const Q3 = '6f1d5a38-0c43-4a63-9d2a-5b3f0c1e7a04';

/** Demo data of the administration screens: a satisfaction poll with answers, templates and Q&A, in the tenant's language. */
export async function seedAdminDemo(manager: EntityManager, clientId: string, content: DemoContent): Promise<void> {
  const { poll } = content;
  const created: unknown[] = await manager.query(
    `INSERT INTO polls (id, client_id, name, description, active, lower_rank, upper_rank)
     VALUES ($1, $2, $3, $4, true, 40, 60)
     ON CONFLICT DO NOTHING RETURNING id`,
    [POLL_ID, clientId, poll.name, poll.description],
  );
  if (created.length) {
    await manager.query(
      `INSERT INTO poll_questions (id, poll_id, client_id, position, text, response_type, options) VALUES
       ($1, $4, $5, 1, $6, 'single', $9::text[]),
       ($2, $4, $5, 2, $7, 'scale', '{}'),
       ($3, $4, $5, 3, $8, 'yesno', '{}')`,
      [Q1, Q2, Q3, POLL_ID, clientId, poll.satisfaction, poll.recommend, poll.solved, poll.options],
    );
    // First seed: customers of the external lines are surveyed with it, and those lines form the
    // demo campaign's live queue. Later seeds leave whatever an administrator changed.
    await manager.query(
      `UPDATE attention_lines SET poll_id = $2,
         campaign_id = (SELECT id FROM campaigns WHERE client_id = $1 AND deleted_at IS NULL ORDER BY created_at, id LIMIT 1)
       WHERE client_id = $1 AND NOT internal AND poll_id IS NULL`,
      [clientId, POLL_ID],
    );
    const [verySatisfied, satisfied, neutral, unsatisfied] = poll.options;
    // The yes/no question stores its codes (the widget shows them in the customer's language).
    const answers: [string, string, number][] = [
      [Q1, verySatisfied, 14],
      [Q1, satisfied, 9],
      [Q1, neutral, 4],
      [Q1, unsatisfied, 2],
      [Q2, '10', 8],
      [Q2, '9', 7],
      [Q2, '8', 6],
      [Q2, '6', 3],
      [Q2, '3', 1],
      [Q3, 'Yes', 22],
      [Q3, 'No', 5],
    ];
    for (const [question, value, count] of answers) {
      await manager.query(
        `INSERT INTO poll_responses (client_id, poll_id, question_id, value, created_at)
         SELECT $1, $2, $3, $4, now() - (g * interval '37 minutes') FROM generate_series(1, $5) g`,
        [clientId, POLL_ID, question, value, count],
      );
    }
  }
  const hasMessages: { count: string }[] = await manager.query(`SELECT count(*) FROM predefined_messages WHERE client_id = $1`, [clientId]);
  if (Number(hasMessages[0].count) === 0) {
    const messages = Object.entries(content.predefinedMessages);
    await manager.query(
      `INSERT INTO predefined_messages (client_id, message, shortcut, scope)
       SELECT $1, m.message, m.shortcut, 'tenant' FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS m(shortcut, message, n) ORDER BY m.n`,
      [clientId, messages.map(([shortcut]) => shortcut), messages.map(([, message]) => message)],
    );
  }
  const hasQna: { count: string }[] = await manager.query(`SELECT count(*) FROM qna_entries WHERE client_id = $1`, [clientId]);
  if (Number(hasQna[0].count) === 0) {
    await manager.query(
      `INSERT INTO qna_entries (client_id, question, answer, category)
       SELECT $1, q.question, q.answer, q.category FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS q(question, answer, category, n)
       ORDER BY q.n`,
      [
        clientId,
        content.qna.map((entry) => entry.question),
        content.qna.map((entry) => entry.answer),
        content.qna.map((entry) => entry.category),
      ],
    );
  }
}
