import {
  BOT_LANGUAGES,
  BOT_LIMITS,
  type BotAnswerView,
  type BotSettings,
  type BotSettingsView,
  type BotSummaryView,
  type BotSynonymGroup,
  type BotUnansweredView,
  PERMISSIONS,
} from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import type { Principal } from '../auth/principal';
import type { ConversationRow } from '../machine-host/views';
import { words } from './bot-retrieval';
import { BotService } from './bot.service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Administrators' side of the bot: line settings, synonyms, the test panel, the unanswered report. */
@Injectable()
export class BotAdminService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bot: BotService,
  ) {}

  async settings(principal: Principal, lineId: string): Promise<BotSettingsView> {
    const line = await this.line(principal, lineId);
    return { attentionLineId: line.id, lineName: line.name, ...(await this.bot.settings(principal.clientId, line.id)) };
  }

  async save(principal: Principal, lineId: string, body: Record<string, unknown>): Promise<BotSettingsView> {
    const line = await this.line(principal, lineId);
    const current = await this.bot.settings(principal.clientId, line.id);
    const next = checkSettings(body, current);
    await this.dataSource.query(
      `INSERT INTO bot_line_settings (attention_line_id, tenant_id, enabled, handoff_keywords, max_turns, min_score, texts)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (attention_line_id) DO UPDATE SET enabled = EXCLUDED.enabled, handoff_keywords = EXCLUDED.handoff_keywords,
         max_turns = EXCLUDED.max_turns, min_score = EXCLUDED.min_score, texts = EXCLUDED.texts, updated_at = now()`,
      [line.id, principal.clientId, next.botEnabled, next.handoffKeywords, next.maxTurns, next.minScore, JSON.stringify(next.texts)],
    );
    return { attentionLineId: line.id, lineName: line.name, ...(await this.bot.settings(principal.clientId, line.id)) };
  }

  /** The test panel: what the line's bot would answer, with its score, enabled or not. */
  async test(principal: Principal, lineId: string, text: unknown): Promise<BotAnswerView> {
    if (typeof text !== 'string' || !text.trim() || text.length > BOT_LIMITS.questionMax) {
      throw invalid('text', `text must have 1 to ${BOT_LIMITS.questionMax} characters`);
    }
    const line = await this.line(principal, lineId);
    return this.bot.answer(principal.clientId, await this.bot.settings(principal.clientId, line.id), text.trim());
  }

  async synonyms(principal: Principal): Promise<BotSynonymGroup[]> {
    const rows = (await this.dataSource.query(`SELECT terms FROM bot_synonyms WHERE tenant_id = $1 ORDER BY position`, [
      principal.clientId,
    ])) as { terms: string[] }[];
    return rows.map((row) => ({ terms: row.terms }));
  }

  /** Replaces the tenant's synonym groups (the retrieval index is rebuilt on the next question). */
  async saveSynonyms(principal: Principal, groups: unknown): Promise<BotSynonymGroup[]> {
    if (!Array.isArray(groups) || groups.length > BOT_LIMITS.synonymGroupsMax) {
      throw invalid('groups', `groups must be a list of at most ${BOT_LIMITS.synonymGroupsMax} groups`);
    }
    const clean = groups.map((group: unknown, index) => {
      const terms = (group as { terms?: unknown } | null)?.terms;
      if (!Array.isArray(terms) || terms.length < 2 || terms.length > BOT_LIMITS.synonymTermsMax) {
        throw invalid(`groups[${index}].terms`, `each group needs 2 to ${BOT_LIMITS.synonymTermsMax} words`);
      }
      return terms.map((term: unknown) => {
        if (typeof term !== 'string' || !words(term).length || term.trim().length > BOT_LIMITS.synonymTermMax) {
          throw invalid(`groups[${index}].terms`, `each word must have 1 to ${BOT_LIMITS.synonymTermMax} letters or digits`);
        }
        return term.trim();
      });
    });
    await this.dataSource.transaction(async (manager) => {
      await manager.query(`DELETE FROM bot_synonyms WHERE tenant_id = $1`, [principal.clientId]);
      for (const [position, terms] of clean.entries()) {
        await manager.query(`INSERT INTO bot_synonyms (tenant_id, position, terms) VALUES ($1, $2, $3)`, [
          principal.clientId,
          position,
          terms,
        ]);
      }
    });
    return this.synonyms(principal);
  }

  async unanswered(principal: Principal, query: { resolved?: string; lineId?: string }): Promise<BotUnansweredView[]> {
    const resolved = query.resolved === 'true';
    if (query.lineId !== undefined && !UUID.test(query.lineId)) throw invalid('lineId', 'lineId must be a UUID');
    const rows = (await this.dataSource.query(
      `SELECT u.*, l.name AS line_name FROM bot_unanswered u LEFT JOIN attention_lines l ON l.id = u.attention_line_id
       WHERE u.tenant_id = $1 AND (u.resolved_at IS NOT NULL) = $2 AND ($3::uuid IS NULL OR u.attention_line_id = $3::uuid)
       ORDER BY u.count DESC, u.last_at DESC LIMIT 500`,
      [principal.clientId, resolved, query.lineId ?? null],
    )) as {
      id: string;
      attention_line_id: string | null;
      line_name: string | null;
      text: string;
      language: 'es' | 'en';
      count: number;
      first_at: Date;
      last_at: Date;
      resolved_at: Date | null;
    }[];
    return rows.map((row) => ({
      id: row.id,
      attentionLineId: row.attention_line_id,
      lineName: row.line_name,
      text: row.text,
      language: row.language,
      count: row.count,
      firstAt: row.first_at.toISOString(),
      lastAt: row.last_at.toISOString(),
      resolvedAt: row.resolved_at?.toISOString() ?? null,
    }));
  }

  async resolve(principal: Principal, id: string, resolved: boolean): Promise<{ resolved: boolean }> {
    const [, count] = (await this.dataSource.query(
      `UPDATE bot_unanswered SET resolved_at = CASE WHEN $3 THEN COALESCE(resolved_at, now()) ELSE NULL END WHERE id = $1 AND tenant_id = $2`,
      [id, principal.clientId, resolved],
    )) as [unknown, number];
    if (!count) throw AppException.notFound();
    return { resolved };
  }

  /** The bot's summary for the agent: their own conversation, or any of the tenant's for a supervisor; else 404. */
  async summary(principal: Principal, conversationId: string): Promise<BotSummaryView | null> {
    const [row] = (await this.dataSource.query(`SELECT * FROM conversations WHERE id = $1 AND tenant_id = $2`, [
      conversationId,
      principal.clientId,
    ])) as ConversationRow[];
    if (!row) throw AppException.notFound();
    if (row.agent_id !== principal.userId && !principal.permissions.includes(PERMISSIONS.conversationsSupervise)) {
      throw AppException.notFound();
    }
    return this.bot.summary(row);
  }

  private async line(principal: Principal, lineId: string): Promise<{ id: string; name: string }> {
    const [line] = (await this.dataSource.query(
      `SELECT id, name FROM attention_lines WHERE id = $1 AND client_id = $2 AND deleted_at IS NULL`,
      [lineId, principal.clientId],
    )) as { id: string; name: string }[];
    if (!line) throw AppException.notFound();
    return line;
  }
}

const invalid = (field: string, message: string) => new AppException('validation', { message, data: { fields: { [field]: [message] } } });

/** The body over the current settings: every field optional, each checked, the problem named. */
function checkSettings(body: Record<string, unknown>, current: BotSettings): BotSettings {
  const next = structuredClone(current);
  if (body.botEnabled !== undefined) {
    if (typeof body.botEnabled !== 'boolean') throw invalid('botEnabled', 'botEnabled must be true or false');
    next.botEnabled = body.botEnabled;
  }
  if (body.maxTurns !== undefined) {
    const value = body.maxTurns;
    if (!Number.isInteger(value) || (value as number) < BOT_LIMITS.maxTurnsMin || (value as number) > BOT_LIMITS.maxTurnsMax) {
      throw invalid('maxTurns', `maxTurns must be a whole number from ${BOT_LIMITS.maxTurnsMin} to ${BOT_LIMITS.maxTurnsMax}`);
    }
    next.maxTurns = value as number;
  }
  if (body.minScore !== undefined) {
    const value = body.minScore;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < BOT_LIMITS.minScoreMin || value > BOT_LIMITS.minScoreMax) {
      throw invalid('minScore', `minScore must be a number from ${BOT_LIMITS.minScoreMin} to ${BOT_LIMITS.minScoreMax}`);
    }
    next.minScore = Math.round(value * 100) / 100;
  }
  if (body.handoffKeywords !== undefined) {
    const value = body.handoffKeywords;
    if (!Array.isArray(value) || value.length < 1 || value.length > BOT_LIMITS.keywordsMax) {
      throw invalid('handoffKeywords', `handoffKeywords must list 1 to ${BOT_LIMITS.keywordsMax} words`);
    }
    next.handoffKeywords = [
      ...new Set(
        value.map((keyword: unknown) => {
          if (typeof keyword !== 'string' || !words(keyword).length || keyword.trim().length > BOT_LIMITS.keywordMax) {
            throw invalid('handoffKeywords', `each handoff keyword must have 1 to ${BOT_LIMITS.keywordMax} letters or digits`);
          }
          return keyword.trim();
        }),
      ),
    ];
  }
  if (body.texts !== undefined) {
    const texts = body.texts as Record<string, unknown> | null;
    if (typeof texts !== 'object' || texts === null || Array.isArray(texts)) throw invalid('texts', 'texts must be an object by language');
    for (const key of Object.keys(texts)) {
      if (!(BOT_LANGUAGES as readonly string[]).includes(key))
        throw invalid('texts', `texts.${key}: the bot speaks ${BOT_LANGUAGES.join(', ')}`);
    }
    for (const language of BOT_LANGUAGES) {
      const given = texts[language] as Record<string, unknown> | undefined;
      if (given === undefined) continue;
      if (typeof given !== 'object' || given === null) throw invalid(`texts.${language}`, `texts.${language} must be an object`);
      for (const field of ['greeting', 'unknown', 'handoff'] as const) {
        const value = given[field];
        if (value === undefined) continue;
        if (typeof value !== 'string' || !value.trim() || value.trim().length > BOT_LIMITS.textMax) {
          throw invalid(`texts.${language}.${field}`, `texts.${language}.${field} must have 1 to ${BOT_LIMITS.textMax} characters`);
        }
        next.texts[language][field] = value.trim();
      }
    }
  }
  return next;
}
