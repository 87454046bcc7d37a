import { describe, expect, it } from '@jest/globals';
import { frameQuery } from '../../widget/embed';
import { directLink, embedSnippet, previewSource, snippetLanguage, type EmbedTarget } from './webchat-embed-logic';

const target: EmbedTarget = {
  origin: 'https://console.example',
  tenant: '11111111-1111-4111-8111-111111111111',
  line: '22222222-2222-4222-8222-222222222222',
  lang: '',
};

describe('embedSnippet', () => {
  it('is the launcher tag of the user guide, without data-lang when the visitor’s browser decides', () => {
    expect(embedSnippet(target)).toBe(
      '<script src="https://console.example/widget.js" data-tenant="11111111-1111-4111-8111-111111111111" ' +
        'data-line="22222222-2222-4222-8222-222222222222" async></script>',
    );
  });

  it('names the language the administrator picked', () => {
    expect(embedSnippet({ ...target, lang: 'en' })).toContain(' data-lang="en" async></script>');
  });

  it('escapes attribute values, so a strange id can never break out of the tag', () => {
    const snippet = embedSnippet({ ...target, tenant: '"><img src=x onerror=alert(1)>' });
    expect(snippet).toContain('data-tenant="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
    expect(snippet.match(/</g)).toHaveLength(2);
  });
});

describe('directLink / previewSource', () => {
  it('opens the full-page chat of the line, with the language when one is picked', () => {
    expect(directLink(target)).toBe(
      'https://console.example/WindowChat/windowChat/?tenant=11111111-1111-4111-8111-111111111111&line=22222222-2222-4222-8222-222222222222',
    );
    expect(directLink({ ...target, lang: 'de' })).toMatch(/&lang=de$/);
  });

  it('previews exactly what the launcher’s panel loads', () => {
    const fromLauncher = frameQuery({ tenant: target.tenant, line: target.line, lang: 'ru' });
    expect(previewSource({ tenant: target.tenant, line: target.line, lang: 'ru' })).toBe(
      `/WindowChat/windowChat/?${fromLauncher.toString()}`,
    );
    expect(previewSource(target)).toBe(`/WindowChat/windowChat/?${frameQuery({ tenant: target.tenant, line: target.line }).toString()}`);
  });
});

describe('snippetLanguage', () => {
  it('keeps the seven widget languages and reads anything else as the visitor’s browser', () => {
    expect(snippetLanguage('sr')).toBe('sr');
    expect(snippetLanguage('fr')).toBe('');
    expect(snippetLanguage(null)).toBe('');
  });
});
