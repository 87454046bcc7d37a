import sanitizeHtml from 'sanitize-html';

const DATA_IMAGE = /^data:image\/(?:png|jpeg|gif|webp);base64,/;

/**
 * The agent's editor HTML as it is stored and sent: the rich-text editor's own formatting (quill
 * 2: paragraphs, headings, lists, emphasis, links, colours, inline images it embeds as data URIs),
 * nothing that runs or fetches. Links only to http(s) and mailto; images only as data: URIs (a
 * remote image in a reply is a tracker or a broken picture); styles only the editor's few.
 */
export function sanitizeReplyHtml(html: string): string {
  return sanitizeHtml(html, {
    allowedTags: [
      'p',
      'br',
      'div',
      'span',
      'strong',
      'b',
      'em',
      'i',
      'u',
      's',
      'strike',
      'sub',
      'sup',
      'blockquote',
      'pre',
      'code',
      'h1',
      'h2',
      'h3',
      'h4',
      'ol',
      'ul',
      'li',
      'a',
      'img',
      'hr',
      'table',
      'thead',
      'tbody',
      'tr',
      'td',
      'th',
    ],
    allowedAttributes: {
      a: ['href', 'title', 'target', 'rel'],
      img: ['src', 'alt', 'width', 'height'],
      '*': ['style', 'class'],
      li: ['data-list'],
    },
    allowedClasses: { '*': [/^ql-(align|indent|size|font|direction)-[a-z0-9-]+$/] },
    allowedStyles: {
      '*': {
        color: [/^#[0-9a-f]{3,8}$/i, /^rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)$/i],
        'background-color': [/^#[0-9a-f]{3,8}$/i, /^rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)$/i],
        'text-align': [/^(left|right|center|justify)$/],
        'font-weight': [/^(bold|normal|\d{3})$/],
        'font-style': [/^(italic|normal)$/],
        'text-decoration': [/^(underline|line-through|none)$/],
      },
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['data'] },
    allowedSchemesAppliedToAttributes: ['href', 'src'],
    allowProtocolRelative: false,
    transformTags: {
      a: sanitizeHtml.simpleTransform('a', { target: '_blank', rel: 'noopener noreferrer' }),
    },
    disallowedTagsMode: 'discard',
    // An image is kept only as an embedded picture (a data: URI of an image type): nothing a reply carries fetches anything.
    exclusiveFilter: (frame) => frame.tag === 'img' && !DATA_IMAGE.test(frame.attribs.src ?? ''),
  });
}

/** A second guard over the sanitiser's output: any img whose source is not an embedded image goes. */
export function keepDataImagesOnly(html: string): string {
  return html.replace(/<img\b(?![^>]*\bsrc="data:image\/(?:png|jpeg|gif|webp);base64,)[^>]*>/gi, '');
}
