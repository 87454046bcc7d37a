import { describe, expect, it } from '@jest/globals';
import { fieldErrors, insertPlaceholder, issueText, newParameter, previewParts, undeclaredPlaceholders } from './template-form-logic';

const t = (key: string, options?: Record<string, unknown>) => `${key}${options ? JSON.stringify(options) : ''}`;

describe('outbound template form logic', () => {
  it('translates template issues under outboundTemplates and the rest under validation', () => {
    expect(issueText({ field: 'script', key: 'placeholderUndeclared', values: { key: 'plan' } }, t)).toBe(
      'outboundTemplates.issues.placeholderUndeclared{"key":"plan"}',
    );
    expect(issueText({ field: 'name', key: 'duplicate' }, t)).toBe('outboundTemplates.issues.nameTaken');
    expect(issueText({ field: 'parameters.1.key', key: 'duplicate', values: { key: 'a' } }, t)).toBe(
      'outboundTemplates.issues.keyRepeated{"key":"a"}',
    );
    expect(issueText({ field: 'parameters.0.key', key: 'pattern', values: { key: '1x' } }, t)).toBe('outboundTemplates.issues.keyPattern');
    expect(issueText({ field: 'name', key: 'required' }, t)).toBe('validation.required');
  });

  it('joins several messages of one field', () => {
    const errors = fieldErrors(
      [
        { field: 'script', key: 'placeholderUndeclared', values: { key: 'a' } },
        { field: 'script', key: 'placeholderUndeclared', values: { key: 'b' } },
      ],
      (key, options) => `${key.split('.').pop()}:${String(options?.key)}`,
    );
    expect(errors).toEqual({ script: 'placeholderUndeclared:a placeholderUndeclared:b' });
  });

  it('inserts a placeholder at the caret, replacing the selection', () => {
    expect(insertPlaceholder('Hello !', 'name', 6, 6)).toEqual({ script: 'Hello {{name}}!', caret: 14 });
    expect(insertPlaceholder('Hello you!', 'name', 6, 9)).toEqual({ script: 'Hello {{name}}!', caret: 14 });
    expect(insertPlaceholder('', 'x', 10, 20)).toEqual({ script: '{{x}}', caret: 5 });
  });

  it('finds placeholders to declare and guesses their source', () => {
    expect(undeclaredPlaceholders('{{name}} {{offer}} {{2bad}} {{name}}', [newParameter('name')])).toEqual(['offer']);
    expect(newParameter('customerName').source).toBe('name');
    expect(newParameter('mobilePhone').source).toBe('phone');
    expect(newParameter('offer').source).toBe('fixed');
  });

  it('marks the placeholders left without a value', () => {
    expect(previewParts('Hi {{name}}, call {{phone}}.', ['phone'])).toEqual([
      { text: 'Hi {{name}}, call ', missing: false },
      { text: '{{phone}}', missing: true },
      { text: '.', missing: false },
    ]);
    expect(previewParts('Plain', [])).toEqual([{ text: 'Plain', missing: false }]);
  });
});
