import DOMPurify from 'dompurify';
import { emailFrameCsp, FRAME_STYLE, QUOTED_HTML_SELECTORS } from './email-logic';

/** CSS positioning an email may not use: an overlay could dress the frame up as something else. */
const POSITIONED = /position\s*:\s*(fixed|absolute|sticky)/gi;

export interface EmailFrame {
  /** The frame's whole document: the CSP meta, the safe style, the sanitised body. */
  srcdoc: string;
  /** The mail refers to remote images (blocked until "Show images"). */
  remoteImages: boolean;
  /** The mail quotes earlier mails the view folded away. */
  quoted: boolean;
}

/**
 * An email's HTML as the desk shows it: DOMPurify removes scripts, event handlers, javascript:
 * and data: links, frames, forms, objects and SVG; positioning is neutralised so no overlay covers
 * the frame; links open in a new tab without referrer; the quoted earlier mail is removed unless
 * asked for. The result goes into an iframe whose sandbox has no allow-scripts and whose CSP
 * (emailFrameCsp) blocks every fetch but embedded images — remote ones only after "Show images".
 */
export function emailFrame(html: string, options: { showImages: boolean; showQuoted: boolean }): EmailFrame {
  let remoteImages = false;
  const purify = DOMPurify(window);
  purify.addHook('afterSanitizeAttributes', (node) => {
    const element = node as Element;
    const style = element.getAttribute?.('style');
    if (style) {
      if (/url\s*\(/i.test(style)) remoteImages = true;
      element.setAttribute('style', style.replace(POSITIONED, 'position: static'));
    }
    if (element.tagName === 'IMG') {
      const src = element.getAttribute('src') ?? '';
      if (/^https?:/i.test(src)) remoteImages = true;
      element.setAttribute('loading', 'lazy');
      element.setAttribute('referrerpolicy', 'no-referrer');
    }
    if (element.tagName === 'A') {
      element.setAttribute('target', '_blank');
      element.setAttribute('rel', 'noopener noreferrer nofollow');
    }
  });
  purify.addHook('uponSanitizeElement', (node, data) => {
    if (data.tagName === 'style' && node.textContent) {
      if (/url\s*\(/i.test(node.textContent) || /@import/i.test(node.textContent)) remoteImages = true;
      node.textContent = node.textContent.replace(POSITIONED, 'position: static');
    }
  });
  const fragment = purify.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    FORCE_BODY: true,
    FORBID_TAGS: [
      'form',
      'input',
      'button',
      'textarea',
      'select',
      'iframe',
      'frame',
      'object',
      'embed',
      'svg',
      'math',
      'link',
      'meta',
      'base',
    ],
    FORBID_ATTR: ['srcset', 'ping', 'background', 'formaction', 'action'],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|tel:|cid:|data:image\/(?:png|jpe?g|gif|webp);base64,|#)/i,
  });
  let quoted = false;
  for (const selector of QUOTED_HTML_SELECTORS) {
    const found = fragment.querySelectorAll(selector);
    if (found.length === 0) continue;
    quoted = true;
    if (options.showQuoted) continue;
    for (const element of Array.from(found)) {
      // Outlook's reply header is followed by the quoted mail itself: everything after it goes too.
      if (selector === '#divRplyFwdMsg' || selector === '#appendonsend') {
        let next = element.nextSibling;
        while (next) {
          const after = next.nextSibling;
          next.parentNode?.removeChild(next);
          next = after;
        }
      }
      element.parentNode?.removeChild(element);
    }
  }
  const container = document.createElement('div');
  container.appendChild(fragment);
  const body = container.innerHTML;
  const csp = emailFrameCsp(options.showImages);
  return {
    srcdoc:
      `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}">` +
      `<meta name="referrer" content="no-referrer"><style>${FRAME_STYLE}</style></head><body>${body}</body></html>`,
    remoteImages,
    quoted,
  };
}
