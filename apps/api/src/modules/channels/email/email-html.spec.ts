import { keepDataImagesOnly, sanitizeReplyHtml } from './email-html';

describe(sanitizeReplyHtml.name, () => {
  const clean = (html: string) => keepDataImagesOnly(sanitizeReplyHtml(html));

  it('keeps the editor’s formatting', () => {
    expect(
      clean('<p class="ql-align-center">Hola <strong>Ana</strong> <em>y</em> <u>equipo</u></p><ol><li data-list="bullet">uno</li></ol>'),
    ).toBe('<p class="ql-align-center">Hola <strong>Ana</strong> <em>y</em> <u>equipo</u></p><ol><li data-list="bullet">uno</li></ol>');
  });

  it('drops scripts, handlers, javascript: links, remote images and foreign styles', () => {
    const out = clean(
      '<p onclick="x()" style="position:fixed;top:0;color:#ff0000">a</p><script>alert(1)</script><a href="javascript:alert(1)">l</a>' +
        '<img src="https://tracker.example/p.gif"><iframe src="https://x"></iframe><style>body{}</style>',
    );
    expect(out).toBe('<p style="color:#ff0000">a</p><a target="_blank" rel="noopener noreferrer">l</a>');
  });

  it('keeps inline images the editor embedded as data URIs, and safe links', () => {
    expect(clean('<img src="data:image/png;base64,iVBORw0KGgo="><a href="https://example.com">x</a>')).toBe(
      '<img src="data:image/png;base64,iVBORw0KGgo=" /><a href="https://example.com" target="_blank" rel="noopener noreferrer">x</a>',
    );
    expect(clean('<img src="data:text/html;base64,PHNjcmlwdD4=">')).toBe('');
  });
});
