import { describe, expect, it } from '@jest/globals';
import type { ChannelAccountView, ChannelKindView } from '@centralita/contracts';
import {
  ONLINE_WINDOW_MS,
  accountPresence,
  accountsShown,
  checkOutcome,
  countByKind,
  createBody,
  credentialFields,
  draftOf,
  emptyDraft,
  issuesAtFields,
  offeredKinds,
  updateBody,
  validateDraft,
} from './channel-accounts-logic';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();

const kindView = (kind: ChannelKindView['kind'], overrides: Partial<ChannelKindView> = {}): ChannelKindView => ({
  kind,
  secrets: [],
  settings: [],
  textLimit: 4096,
  replyWindowHours: null,
  humanAgentTagHours: null,
  templates: false,
  attachments: {},
  enabled: true,
  registersWebhook: false,
  ...overrides,
});

const WHATSAPP = kindView('whatsapp', {
  secrets: ['accessToken', 'appSecret'],
  settings: ['wabaId'],
  templates: true,
  replyWindowHours: 24,
});

const account = (overrides: Partial<ChannelAccountView> = {}): ChannelAccountView => ({
  id: 'a1',
  kind: 'whatsapp',
  name: 'Ventas',
  externalAccountId: '1098765',
  attentionLineId: 'line-1',
  settings: { wabaId: '5550' },
  secretsSet: ['accessToken', 'appSecret'],
  webhookUrl: 'https://centralita.example/api/webhooks/whatsapp/a1',
  verifyToken: 'verify-me',
  enabled: true,
  lastCheck: null,
  lastEventAt: null,
  createdAt: ago(ONLINE_WINDOW_MS * 10),
  ...overrides,
});

describe('accountPresence', () => {
  it('is online when a webhook arrived within the last day', () => {
    expect(accountPresence(account({ lastEventAt: ago(ONLINE_WINDOW_MS - 1000) }), NOW)).toEqual({
      presence: 'online',
      reason: 'receiving',
    });
  });

  it('is online after a recent passing check even if nothing arrived yet', () => {
    const checked = account({ lastCheck: { ok: true, at: ago(60_000), message: null } });
    expect(accountPresence(checked, NOW)).toEqual({ presence: 'online', reason: 'checked' });
  });

  it('is other when the last event is older than a day and there was no check', () => {
    expect(accountPresence(account({ lastEventAt: ago(ONLINE_WINDOW_MS + 1000) }), NOW)).toEqual({ presence: 'other', reason: 'silent' });
  });

  it('is other with the failed check as the reason when the last check failed and nothing arrived', () => {
    const failing = account({ lastCheck: { ok: false, at: ago(1000), message: 'Invalid OAuth access token' } });
    expect(accountPresence(failing, NOW)).toEqual({ presence: 'other', reason: 'checkFailed' });
  });

  it('is other when disabled, even with fresh events', () => {
    expect(accountPresence(account({ enabled: false, lastEventAt: ago(1000) }), NOW)).toEqual({ presence: 'other', reason: 'disabled' });
  });

  it('ignores an unparseable timestamp instead of calling it recent', () => {
    expect(accountPresence(account({ lastEventAt: 'not a date' }), NOW).presence).toBe('other');
  });
});

describe('offeredKinds', () => {
  it('leaves out kinds the API disables (X) and keeps the platform order', () => {
    const kinds = [kindView('twitter', { enabled: false }), kindView('telegram'), kindView('whatsapp'), kindView('facebook')];
    expect(offeredKinds(kinds).map((kind) => kind.kind)).toEqual(['whatsapp', 'facebook', 'telegram']);
  });

  it('offers X when the API enables it', () => {
    expect(offeredKinds([kindView('twitter'), kindView('instagram')]).map((kind) => kind.kind)).toEqual(['instagram', 'twitter']);
  });
});

describe('accountsShown', () => {
  const accounts = [
    account({ id: '1', kind: 'telegram', name: 'Bot' }),
    account({ id: '2', kind: 'whatsapp', name: 'Soporte' }),
    account({ id: '3', kind: 'whatsapp', name: 'Atención' }),
  ];

  it('groups by kind in the platform order, then by name', () => {
    expect(accountsShown(accounts, 'all').map((a) => a.id)).toEqual(['3', '2', '1']);
  });

  it('shows only the filtered kind', () => {
    expect(accountsShown(accounts, 'telegram').map((a) => a.id)).toEqual(['1']);
  });

  it('counts accounts per kind', () => {
    expect(countByKind(accounts)).toEqual({ telegram: 1, whatsapp: 2 });
  });
});

describe('credentialFields', () => {
  it('lists settings then secrets, marks which secrets are stored and which names have texts', () => {
    const kind = kindView('whatsapp', { settings: ['wabaId'], secrets: ['accessToken', 'appSecret', 'brandNewSecret'] });
    expect(credentialFields(kind, { secretsSet: ['accessToken'] })).toEqual([
      { name: 'wabaId', secret: false, known: true, stored: false },
      { name: 'accessToken', secret: true, known: true, stored: true },
      { name: 'appSecret', secret: true, known: true, stored: false },
      { name: 'brandNewSecret', secret: true, known: false, stored: false },
    ]);
  });
});

describe('validateDraft', () => {
  it('requires the kind, name, provider id, line and every secret of a new account', () => {
    const errors = validateDraft(emptyDraft('whatsapp'), WHATSAPP);
    expect(Object.keys(errors).sort()).toEqual([
      'attentionLineId',
      'externalAccountId',
      'name',
      'secrets.accessToken',
      'secrets.appSecret',
    ]);
    expect(errors.name.key).toBe('required');
  });

  it('asks for a channel first when none is picked', () => {
    expect(validateDraft(emptyDraft(), null).kind?.key).toBe('required');
  });

  it('keeps stored secrets on edit: empty is not an error there', () => {
    const stored = account();
    expect(validateDraft(draftOf(stored), WHATSAPP, stored)).toEqual({});
  });

  it('still requires a secret the edited account never had', () => {
    const stored = account({ secretsSet: ['accessToken'] });
    expect(Object.keys(validateDraft(draftOf(stored), WHATSAPP, stored))).toEqual(['secrets.appSecret']);
  });

  it('refuses names longer than the column holds', () => {
    const draft = { ...draftOf(account()), name: 'x'.repeat(121) };
    expect(validateDraft(draft, WHATSAPP, account()).name).toEqual({ field: 'name', key: 'maxLength', values: { count: 120 } });
  });

  it('treats whitespace as empty', () => {
    const draft = { ...draftOf(account()), externalAccountId: '   ' };
    expect(validateDraft(draft, WHATSAPP, account()).externalAccountId?.key).toBe('required');
  });
});

describe('createBody / updateBody', () => {
  const draft = {
    ...emptyDraft('whatsapp'),
    name: '  Ventas ',
    externalAccountId: ' 1098765 ',
    attentionLineId: 'line-1',
    settings: { wabaId: ' 5550 ', leftover: 'from another kind' },
    secrets: { accessToken: 'EAAG-token', appSecret: '', botToken: 'telegram leftover' },
  };

  it('sends trimmed values and only the kind’s own, filled credentials on create', () => {
    expect(createBody(draft, WHATSAPP)).toEqual({
      kind: 'whatsapp',
      name: 'Ventas',
      externalAccountId: '1098765',
      attentionLineId: 'line-1',
      settings: { wabaId: '5550' },
      secrets: { accessToken: 'EAAG-token' },
      enabled: true,
    });
  });

  it('sends only typed secrets on update, so untouched ones are kept', () => {
    expect(updateBody(draft, WHATSAPP).secrets).toEqual({ accessToken: 'EAAG-token' });
  });

  it('sends no secrets key at all when none was typed', () => {
    expect(updateBody(draftOf(account()), WHATSAPP)).not.toHaveProperty('secrets');
  });

  it('sends an emptied setting as empty, so the API clears it (it merges settings)', () => {
    expect(updateBody({ ...draftOf(account()), settings: { wabaId: ' ' } }, WHATSAPP).settings).toEqual({ wabaId: '' });
  });
});

describe('issuesAtFields', () => {
  it('places the API issues at their fields, bare credential names included', () => {
    const data = {
      issues: [
        { field: 'name', key: 'required' },
        { field: 'secrets.accessToken', key: 'required' },
        { field: 'wabaId', key: 'pattern' },
        { field: 'somethingElse', key: 'unknown', values: { values: 'x' } },
      ],
    };
    const { fields, unplaced } = issuesAtFields(data, WHATSAPP);
    expect(Object.keys(fields).sort()).toEqual(['name', 'secrets.accessToken', 'settings.wabaId']);
    expect(fields['settings.wabaId']).toEqual({ field: 'settings.wabaId', key: 'pattern' });
    expect(unplaced).toEqual([{ field: 'somethingElse', key: 'unknown', values: { values: 'x' } }]);
  });

  it('places the API’s named field messages, keeping its sentence', () => {
    const data = { fields: { 'secrets.appSecret': ['secrets.appSecret must not be empty'], other: ['no such field'], empty: [] } };
    expect(issuesAtFields(data, WHATSAPP)).toEqual({
      fields: { 'secrets.appSecret': { field: 'secrets.appSecret', message: 'secrets.appSecret must not be empty' } },
      unplaced: [{ field: 'other', message: 'no such field' }],
    });
  });

  it('answers nothing for an envelope without issues', () => {
    expect(issuesAtFields(null, WHATSAPP)).toEqual({ fields: {}, unplaced: [] });
  });
});

describe('checkOutcome', () => {
  it('shows the provider’s account name when the check passed', () => {
    expect(checkOutcome({ ok: true, name: 'Centralita Ventas' })).toEqual({ ok: true, text: 'Centralita Ventas' });
  });

  it('shows the provider’s reason when it failed', () => {
    expect(checkOutcome({ ok: false, message: 'Invalid OAuth access token' })).toEqual({ ok: false, text: 'Invalid OAuth access token' });
  });

  it('has no text when the provider said nothing', () => {
    expect(checkOutcome({ ok: false, message: '  ' })).toEqual({ ok: false, text: null });
  });
});
