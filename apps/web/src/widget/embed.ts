/**
 * The embeddable web-chat launcher (dist/widget.js). A tenant pastes:
 *
 *   <script src="https://console.example/widget.js" data-tenant="<clientId>" data-line="<lineId>" data-lang="es" async></script>
 *
 * data-lang is optional: without it the chat follows the visitor's browser languages (the first
 * of es, en, el, it, sr, de, ru they list; Spanish otherwise), as widget-logic's pickLanguage does.
 *
 * It adds a launcher button that opens a 360 px panel holding an iframe of the console's
 * /WindowChat/windowChat/ page, coloured with the tenant's branding. Deliberately import-free, so
 * the bundle is one small classic-compatible file that never pulls the console in.
 */
import { LAUNCHER } from './launcher-config';

interface Branding {
  logoUrl?: string;
  mainColor?: string | null;
}

/**
 * The query of the chat page the launcher opens. Only the embed's own data-lang fixes the language:
 * the host page's <html lang> is not the visitor's choice (site templates often say "en" whatever
 * the content), so without data-lang the chat page follows the visitor's browser.
 */
export function frameQuery(dataset: { tenant?: string; line?: string; lang?: string }): URLSearchParams {
  const params = new URLSearchParams({ tenant: dataset.tenant ?? '', line: dataset.line ?? '', embed: '1' });
  const lang = dataset.lang?.trim();
  if (lang) params.set('lang', lang);
  return params;
}

function boot(script: HTMLScriptElement): void {
  const line = script.dataset.line ?? '';
  if (!line) return;
  const tenant = script.dataset.tenant ?? '';
  const origin = new URL(script.src, window.location.href).origin;
  const params = frameQuery(script.dataset);

  const host = document.createElement('div');
  host.setAttribute('data-centralita-widget', '');
  const shadow = host.attachShadow ? host.attachShadow({ mode: 'open' }) : host;
  const style = document.createElement('style');
  style.textContent = `
    .launcher{position:fixed;right:20px;bottom:20px;width:${LAUNCHER.size}px;height:${LAUNCHER.size}px;border-radius:50%;border:0;
      background:var(--cw-color,#2563eb);color:#fff;cursor:pointer;box-shadow:0 8px 24px rgba(15,23,42,.25);z-index:2147483000;
      display:flex;align-items:center;justify-content:center;padding:0}
    .launcher img{width:30px;height:30px;object-fit:contain;border-radius:6px;background:#fff}
    .launcher svg{width:28px;height:28px}
    .panel{position:fixed;right:20px;bottom:88px;width:${LAUNCHER.panelWidth}px;max-width:calc(100vw - 24px);height:${LAUNCHER.panelHeight}px;
      max-height:calc(100vh - 110px);border:0;border-radius:14px;box-shadow:0 16px 48px rgba(15,23,42,.28);z-index:2147483000;
      background:#fff;display:none}
    .panel.open{display:block}`;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'launcher';
  button.setAttribute('aria-label', 'Chat');
  button.setAttribute('aria-expanded', 'false');
  button.setAttribute('data-testid', 'widget-launcher');
  button.innerHTML =
    '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true"><path d="M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12z"/></svg>';
  const frame = document.createElement('iframe');
  frame.className = 'panel';
  frame.title = 'Chat';
  frame.setAttribute('data-testid', 'widget-frame');
  frame.setAttribute('allow', 'clipboard-write');
  let loaded = false;
  button.addEventListener('click', () => {
    // The iframe loads on first open, so a page with a closed launcher costs one small script.
    if (!loaded) {
      frame.src = `${origin}/WindowChat/windowChat/?${params.toString()}`;
      loaded = true;
    }
    const open = !frame.classList.contains('open');
    frame.classList.toggle('open', open);
    button.setAttribute('aria-expanded', String(open));
  });
  shadow.append(style, frame, button);
  document.body.appendChild(host);

  if (tenant) {
    fetch(`${origin}/api/general/branding?clientId=${encodeURIComponent(tenant)}`)
      .then((response) => (response.ok ? response.json() : null))
      .then((envelope: { data?: Branding } | null) => {
        const branding = envelope?.data;
        if (branding?.mainColor && /^#[0-9a-f]{3,8}$/i.test(branding.mainColor)) host.style.setProperty('--cw-color', branding.mainColor);
        if (branding?.logoUrl) {
          const img = document.createElement('img');
          img.alt = '';
          img.src = new URL(branding.logoUrl, origin).href;
          img.onerror = () => img.remove();
          button.replaceChildren(img);
        }
      })
      .catch(() => undefined);
  }
}

const current = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null) : null;
if (current) {
  if (document.body) boot(current);
  else document.addEventListener('DOMContentLoaded', () => boot(current));
}
