import type { PollResponseType } from './admin';

/** One question of the post-conversation survey, as the web-chat customer sees it. */
export interface SurveyQuestionView {
  id: string;
  position: number;
  text: string;
  responseType: PollResponseType;
  /** The choices of 'single' and 'multiple' questions. */
  options: string[];
}

/** The attention line's poll, asked when the conversation ends (GET /api/webchat/conversation/survey). */
export interface SurveyView {
  pollId: string;
  name: string;
  questions: SurveyQuestionView[];
}

export const SURVEY_SCALE = { min: 0, max: 10 } as const;
export const SURVEY_YES_NO = ['Yes', 'No'] as const;
/** 'multiple' answers travel as one string, choices joined by this separator. */
export const SURVEY_MULTIPLE_SEPARATOR = ' | ';

/**
 * Why an answer does not fit its question, or null when it does. The server stores only answers
 * that pass, and the widget uses the same rule to enable its send button.
 */
export function surveyAnswerProblem(question: Pick<SurveyQuestionView, 'responseType' | 'options'>, answer: string): string | null {
  const value = answer.trim();
  if (!value) return 'answer is required';
  switch (question.responseType) {
    case 'scale': {
      const n = Number(value);
      return Number.isInteger(n) && n >= SURVEY_SCALE.min && n <= SURVEY_SCALE.max
        ? null
        : `answer must be a whole number from ${SURVEY_SCALE.min} to ${SURVEY_SCALE.max}`;
    }
    case 'yesno':
      return (SURVEY_YES_NO as readonly string[]).includes(value) ? null : `answer must be one of: ${SURVEY_YES_NO.join(', ')}`;
    case 'single':
      return question.options.includes(value) ? null : `answer must be one of: ${question.options.join(', ')}`;
    case 'multiple': {
      const chosen = value.split(SURVEY_MULTIPLE_SEPARATOR).map((part) => part.trim());
      return chosen.length > 0 && chosen.every((part) => question.options.includes(part)) && new Set(chosen).size === chosen.length
        ? null
        : `answer must be one or more of: ${question.options.join(', ')}`;
    }
    case 'text':
      return value.length <= 500 ? null : 'answer must be at most 500 characters';
  }
}
