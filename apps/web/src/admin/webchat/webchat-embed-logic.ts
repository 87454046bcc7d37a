import { LANGUAGES, type Language } from '@centralita/contracts';

/** The console paths a web-chat line is embedded with (apps/web/src/widget): the launcher script and the chat page. */
export const WIDGET_SCRIPT_PATH = '/widget.js';
export const WEB_CHAT_PAGE_PATH = '/WindowChat/windowChat/';

export interface EmbedTarget {
  /** The console's origin (scheme, host and port), where widget.js and the chat page are served. */
  origin: string;
  /** The client (tenant) id: the launcher's branding. */
  tenant: string;
  /** The attention line that receives the chats. */
  line: string;
  /** A widget language, or '' to follow the visitor's browser. */
  lang: Language | '';
}

const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The tag a tenant pastes into its site (as docs/user-guide.md and widget/embed.ts describe it). */
export function embedSnippet({ origin, tenant, line, lang }: EmbedTarget): string {
  const attributes = [
    `src="${attribute(`${origin}${WIDGET_SCRIPT_PATH}`)}"`,
    `data-tenant="${attribute(tenant)}"`,
    `data-line="${attribute(line)}"`,
    ...(lang ? [`data-lang="${attribute(lang)}"`] : []),
    'async',
  ];
  return `<script ${attributes.join(' ')}></script>`;
}

function chatQuery({ tenant, line, lang }: EmbedTarget, embedded: boolean): string {
  const params = new URLSearchParams({ tenant, line });
  if (embedded) params.set('embed', '1');
  if (lang) params.set('lang', lang);
  return params.toString();
}

/** The full-page chat, to link from an email, a QR code or a help page. */
export function directLink(target: EmbedTarget): string {
  return `${target.origin}${WEB_CHAT_PAGE_PATH}?${chatQuery(target, false)}`;
}

/** What the launcher's panel loads (embed=1): the administrator's preview shows exactly that. */
export function previewSource(target: Omit<EmbedTarget, 'origin'>): string {
  return `${WEB_CHAT_PAGE_PATH}?${chatQuery({ ...target, origin: '' }, true)}`;
}

/** The snippet language from the page's ?lang= (a widget language), else '' (the visitor's browser). */
export function snippetLanguage(value: string | null): Language | '' {
  return (LANGUAGES as readonly string[]).includes(value ?? '') ? (value as Language) : '';
}
