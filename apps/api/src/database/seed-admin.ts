import type { EntityManager } from 'typeorm';

/** Fixed ids so the demo administration data is seeded once, however often `seed` runs. */
const POLL_ID = '6f1d5a38-0c43-4a63-9d2a-5b3f0c1e7a01';
const Q1 = '6f1d5a38-0c43-4a63-9d2a-5b3f0c1e7a02';
const Q2 = '6f1d5a38-0c43-4a63-9d2a-5b3f0c1e7a03';
const Q3 = '6f1d5a38-0c43-4a63-9d2a-5b3f0c1e7a04';

/** Demo data of the administration screens: a satisfaction poll with answers, templates and Q&A. */
export async function seedAdminDemo(manager: EntityManager, clientId: string): Promise<void> {
  const created: unknown[] = await manager.query(
    `INSERT INTO polls (id, client_id, name, description, active, lower_rank, upper_rank)
     VALUES ($1, $2, 'Customer satisfaction', 'Asked when a web chat or WhatsApp conversation closes', true, 40, 60)
     ON CONFLICT DO NOTHING RETURNING id`,
    [POLL_ID, clientId],
  );
  if (created.length) {
    await manager.query(
      `INSERT INTO poll_questions (id, poll_id, client_id, position, text, response_type, options) VALUES
       ($1, $4, $5, 1, 'How satisfied are you with the service?', 'single', ARRAY['Very satisfied','Satisfied','Neutral','Unsatisfied']),
       ($2, $4, $5, 2, 'How likely are you to recommend us (0-10)?', 'scale', '{}'),
       ($3, $4, $5, 3, 'Was your problem solved?', 'yesno', '{}')`,
      [Q1, Q2, Q3, POLL_ID, clientId],
    );
    // First seed: customers of the external lines are surveyed with it, and those lines form the
    // demo campaign's live queue. Later seeds leave whatever an administrator changed.
    await manager.query(
      `UPDATE attention_lines SET poll_id = $2,
         campaign_id = (SELECT id FROM campaigns WHERE client_id = $1 AND deleted_at IS NULL ORDER BY created_at, id LIMIT 1)
       WHERE client_id = $1 AND NOT internal AND poll_id IS NULL`,
      [clientId, POLL_ID],
    );
    const answers: [string, string, number][] = [
      [Q1, 'Very satisfied', 14],
      [Q1, 'Satisfied', 9],
      [Q1, 'Neutral', 4],
      [Q1, 'Unsatisfied', 2],
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
    await manager.query(
      `INSERT INTO predefined_messages (client_id, message, shortcut, scope) VALUES
       ($1, 'Hello! Thank you for contacting us. How can I help you today?', '/hello', 'tenant'),
       ($1, 'Thank you for waiting. I am checking that for you right now.', '/wait', 'tenant'),
       ($1, 'Is there anything else I can help you with?', '/else', 'tenant')`,
      [clientId],
    );
  }
  const hasQna: { count: string }[] = await manager.query(`SELECT count(*) FROM qna_entries WHERE client_id = $1`, [clientId]);
  if (Number(hasQna[0].count) === 0) {
    await manager.query(
      `INSERT INTO qna_entries (client_id, question, answer, category) VALUES
       ($1, 'What are the opening hours?', 'Monday to Friday from 08:00 to 18:00, Saturdays from 09:00 to 13:00.', 'General'),
       ($1, 'How do I reset my password?', 'Use "Forgot password" on the sign-in page; the link is valid for 30 minutes.', 'Accounts'),
       ($1, 'Which payment methods are accepted?', 'Credit and debit cards, bank transfer and cash at our branches.', 'Billing')`,
      [clientId],
    );
  }
}
