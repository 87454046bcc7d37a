/**
 * The bot in front of an attention line's queue (issue 23 item 3): while a conversation is
 * Transitory it greets, answers from the tenant's questions and answers, and hands off to a person
 * (the machine's LiningUp) on request, after low confidence twice or after too many turns.
 */

/** Languages the bot understands (stemming) and speaks; a message is answered in the one it looks written in. */
export const BOT_LANGUAGES = ['es', 'en'] as const;
export type BotLanguage = (typeof BOT_LANGUAGES)[number];

/** What the bot says, per language. */
export interface BotTexts {
  greeting: string;
  /** Said when no answer reaches the minimum score. */
  unknown: string;
  /** Said when it hands the conversation to a person. */
  handoff: string;
}

/** A line's bot settings (GET/PUT /api/bot/lines/:lineId). */
export interface BotSettings {
  botEnabled: boolean;
  /** Words that ask for a person ("agente", "human"…), matched as whole words, without accents or case. */
  handoffKeywords: string[];
  /** Customer messages the bot takes before it hands off anyway. */
  maxTurns: number;
  /** 0..1: the share of the question's words an answer must cover; below it the bot says it does not know. */
  minScore: number;
  texts: Record<BotLanguage, BotTexts>;
}

export interface BotSettingsView extends BotSettings {
  attentionLineId: string;
  lineName: string;
}

export const BOT_LIMITS = {
  maxTurnsMin: 1,
  maxTurnsMax: 50,
  minScoreMin: 0.05,
  minScoreMax: 1,
  keywordsMax: 30,
  keywordMax: 40,
  textMax: 500,
  questionMax: 500,
  synonymGroupsMax: 200,
  synonymTermsMax: 20,
  synonymTermMax: 40,
} as const;

export const DEFAULT_BOT_SETTINGS: BotSettings = {
  botEnabled: false,
  handoffKeywords: ['agente', 'humano', 'persona', 'asesor', 'operador', 'agent', 'human', 'person', 'operator', 'representative'],
  maxTurns: 8,
  minScore: 0.5,
  texts: {
    es: {
      greeting: '¡Hola! Soy el asistente virtual. Escribe tu pregunta o pide hablar con una persona.',
      unknown: 'Lo siento, no sé la respuesta a eso. Prueba con otras palabras o pide hablar con una persona.',
      handoff: 'Te paso con una persona. Espera un momento, por favor.',
    },
    en: {
      greeting: "Hi! I'm the virtual assistant. Type your question or ask to talk to a person.",
      unknown: "Sorry, I don't know the answer to that. Try other words or ask to talk to a person.",
      handoff: "I'm passing you to a person. Please wait a moment.",
    },
  },
};

/** Why the bot handed a conversation to a person; the queue sees it as the submenu under query type 'bot'. */
export const BOT_HANDOFF_REASONS = ['request', 'lowConfidence', 'maxTurns', 'menu'] as const;
export type BotHandoffReason = (typeof BOT_HANDOFF_REASONS)[number];
/** The query type a conversation the bot handed off is queued under. */
export const BOT_QUERY_TYPE = 'bot';

/** One answer of the retrieval: the QnA entry and how much of the question it covers. */
export interface BotAnswerView {
  language: BotLanguage;
  /** 0..1 (see BotSettings.minScore). */
  score: number;
  /** True when score reaches the line's minimum: the bot would say `answer`. */
  confident: boolean;
  qnaId: string | null;
  question: string | null;
  answer: string | null;
  /** What the bot would say: the answer, or the line's "I don't know" text. */
  reply: string;
  /** True when the text asks for a person (a handoff keyword). */
  handoff: boolean;
}

/** POST /api/bot/test */
export interface BotTestInput {
  attentionLineId: string;
  text: string;
}

/** A question the bot could not answer (GET /api/bot/unanswered). */
export interface BotUnansweredView {
  id: string;
  attentionLineId: string | null;
  lineName: string | null;
  text: string;
  language: BotLanguage;
  count: number;
  firstAt: string;
  lastAt: string;
  resolvedAt: string | null;
}

/** Words the tenant's customers use for the same thing (GET/PUT /api/bot/synonyms). */
export interface BotSynonymGroup {
  terms: string[];
}

/** What the bot collected in a conversation, for the agent who takes it (GET /api/bot/conversations/:id). */
export interface BotSummaryView {
  conversationId: string;
  turns: number;
  handoffReason: BotHandoffReason | null;
  handedOffAt: string | null;
  language: BotLanguage | null;
  answered: { question: string; qnaQuestion: string; score: number }[];
  unanswered: string[];
}
