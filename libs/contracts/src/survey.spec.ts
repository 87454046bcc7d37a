import { describe, expect, it } from '@jest/globals';
import { surveyAnswerProblem } from './survey';

describe('surveyAnswerProblem', () => {
  const single = { responseType: 'single' as const, options: ['Good', 'Bad'] };
  const multiple = { responseType: 'multiple' as const, options: ['Price', 'Speed', 'Kindness'] };

  it('accepts a whole number from 0 to 10 on a scale, and nothing else', () => {
    expect(surveyAnswerProblem({ responseType: 'scale', options: [] }, '0')).toBeNull();
    expect(surveyAnswerProblem({ responseType: 'scale', options: [] }, '10')).toBeNull();
    expect(surveyAnswerProblem({ responseType: 'scale', options: [] }, '11')).toBe('answer must be a whole number from 0 to 10');
    expect(surveyAnswerProblem({ responseType: 'scale', options: [] }, '7.5')).toBe('answer must be a whole number from 0 to 10');
  });

  it('accepts only the listed choices', () => {
    expect(surveyAnswerProblem(single, 'Good')).toBeNull();
    expect(surveyAnswerProblem(single, 'Great')).toBe('answer must be one of: Good, Bad');
    expect(surveyAnswerProblem({ responseType: 'yesno', options: [] }, 'Yes')).toBeNull();
    expect(surveyAnswerProblem({ responseType: 'yesno', options: [] }, 'Maybe')).toBe('answer must be one of: Yes, No');
  });

  it('accepts distinct listed choices joined for a multiple-choice question', () => {
    expect(surveyAnswerProblem(multiple, 'Price | Speed')).toBeNull();
    expect(surveyAnswerProblem(multiple, 'Price | Price')).toBe('answer must be one or more of: Price, Speed, Kindness');
    expect(surveyAnswerProblem(multiple, 'Price | Taste')).toBe('answer must be one or more of: Price, Speed, Kindness');
  });

  it('requires an answer and bounds free text', () => {
    expect(surveyAnswerProblem({ responseType: 'text', options: [] }, '   ')).toBe('answer is required');
    expect(surveyAnswerProblem({ responseType: 'text', options: [] }, 'x'.repeat(501))).toBe('answer must be at most 500 characters');
    expect(surveyAnswerProblem({ responseType: 'text', options: [] }, '<b>fine</b>')).toBeNull();
  });
});
