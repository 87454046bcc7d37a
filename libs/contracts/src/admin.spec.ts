import { describe, expect, it } from '@jest/globals';
import {
  describeIssue,
  validateAttentionLine,
  validateCampaign,
  validatePhone,
  validatePoll,
  validatePredefinedMessage,
  normalizePredefinedShortcut,
  validateQna,
  validateRole,
  validateUser,
  neutraliseCell,
  validateClient,
  normalizeOrigins,
  MAX_ALLOWED_ORIGINS,
} from './admin';

const campaign = {
  name: 'Spring',
  description: 'Spring sale',
  fromDate: '2026-03-01',
  toDate: '2026-04-01',
  identifier: 'SPRING26',
  allowedChatsPerAgent: 3,
  templateCampaign: false,
  customer: null,
};
const fields = (issues: { field: string; key: string }[]) => issues.map((issue) => `${issue.field}:${issue.key}`);

describe(validateCampaign.name, () => {
  it('accepts a complete campaign', () => {
    expect(validateCampaign(campaign)).toEqual([]);
  });
  it('refuses 6 chats per agent and accepts 5', () => {
    expect(fields(validateCampaign({ ...campaign, allowedChatsPerAgent: 6 }))).toEqual(['allowedChatsPerAgent:range']);
    expect(validateCampaign({ ...campaign, allowedChatsPerAgent: 5 })).toEqual([]);
  });
  it('refuses 0 and fractional chats per agent', () => {
    expect(fields(validateCampaign({ ...campaign, allowedChatsPerAgent: 0 }))).toEqual(['allowedChatsPerAgent:range']);
    expect(fields(validateCampaign({ ...campaign, allowedChatsPerAgent: 2.5 }))).toEqual(['allowedChatsPerAgent:integer']);
  });
  it('requires name, description and both dates', () => {
    expect(fields(validateCampaign({ ...campaign, name: ' ', description: '', fromDate: '', toDate: undefined }))).toEqual([
      'name:required',
      'description:required',
      'fromDate:required',
      'toDate:required',
    ]);
  });
  it('refuses a to date that is not after the from date', () => {
    expect(fields(validateCampaign({ ...campaign, toDate: '2026-03-01' }))).toEqual(['toDate:dateOrder']);
  });
  it('bounds the identifier at 20 characters', () => {
    expect(validateCampaign({ ...campaign, identifier: 'X'.repeat(20) })).toEqual([]);
    expect(fields(validateCampaign({ ...campaign, identifier: 'X'.repeat(21) }))).toEqual(['identifier:maxLength']);
  });
});

describe(validatePredefinedMessage.name, () => {
  const message = { message: 'Hello', shortcut: '/hi', scope: 'tenant', attentionLineId: null };
  it('accepts 500 characters and refuses 501', () => {
    expect(validatePredefinedMessage({ ...message, message: 'a'.repeat(500) })).toEqual([]);
    expect(validatePredefinedMessage({ ...message, message: 'a'.repeat(501) })).toEqual([
      { field: 'message', key: 'maxLength', values: { count: 500 } },
    ]);
  });
  it('stores the shortcut without the leading slash the desk adds', () => {
    expect(normalizePredefinedShortcut(' /hello ')).toBe('hello');
    expect(normalizePredefinedShortcut('//hello')).toBe('hello');
    expect(normalizePredefinedShortcut('hello')).toBe('hello');
    expect(validatePredefinedMessage({ ...message, shortcut: '/hello' })).toEqual([]);
  });
  it('accepts letters of any script, digits, _ and - in the shortcut, and nothing else', () => {
    for (const ok of ['hello', 'saludo_2', 'follow-up', 'привет', 'γεια', 'ÑANDÚ'])
      expect(validatePredefinedMessage({ ...message, shortcut: ok })).toEqual([]);
    for (const bad of ['hello world', 'a/b', 'hi!', 'x.y', '@me', '#1'])
      expect(validatePredefinedMessage({ ...message, shortcut: bad })).toEqual([{ field: 'shortcut', key: 'pattern' }]);
  });
  it('refuses a shortcut that is only a slash as missing, and one over 40 characters', () => {
    expect(fields(validatePredefinedMessage({ ...message, shortcut: '/' }))).toEqual(['shortcut:required']);
    expect(validatePredefinedMessage({ ...message, shortcut: `/${'a'.repeat(40)}` })).toEqual([]);
    expect(fields(validatePredefinedMessage({ ...message, shortcut: 'a'.repeat(41) }))).toEqual(['shortcut:maxLength']);
  });
  it('needs a line for line scope and refuses unknown scopes', () => {
    expect(fields(validatePredefinedMessage({ ...message, scope: 'line' }))).toEqual(['attentionLineId:required']);
    expect(fields(validatePredefinedMessage({ ...message, scope: 'global' }))).toEqual(['scope:oneOf']);
  });
});

describe(validateUser.name, () => {
  const user = { name: 'Ana', email: 'ana@example.com', roleId: 'r', password: 'longenough', passwordExpiresAt: null };
  it('takes no password when creating (the invitation sets it) and one of 8 or more characters when editing', () => {
    expect(validateUser({ ...user, password: '' }, 'create')).toEqual([]);
    expect(fields(validateUser({ ...user, password: 'short' }, 'update'))).toEqual(['password:minLength']);
    expect(validateUser({ ...user, password: '' }, 'update')).toEqual([]);
  });
  it('requires a role and a valid email', () => {
    expect(fields(validateUser({ ...user, roleId: '', email: 'nope' }, 'create'))).toEqual(['email:email', 'roleId:required']);
  });
});

describe(describeIssue.name, () => {
  it('names the field', () => {
    expect(describeIssue({ field: 'allowedChatsPerAgent', key: 'range', values: { min: 1, max: 5 } })).toBe(
      'allowedChatsPerAgent must be between 1 and 5',
    );
  });
});

describe(validateRole.name, () => {
  const known = ['users.manage', 'roles.manage'];
  const paths = ['/users/Users'];
  it('accepts a code of upper-case letters and known permissions', () => {
    expect(
      validateRole({ code: 'QA_LEAD', name: 'QA lead', permissions: ['users.manage'], menuPaths: ['/users/Users'] }, known, paths),
    ).toEqual([]);
  });
  it('refuses lower-case codes, unknown permissions and unknown menu paths', () => {
    expect(
      fields(validateRole({ code: 'qa', name: 'QA', permissions: ['root.everything'], menuPaths: ['/nowhere'] }, known, paths)),
    ).toEqual(['code:pattern', 'permissions:unknown', 'menuPaths:unknown']);
  });
});

describe(validateAttentionLine.name, () => {
  const line = {
    name: 'Sales',
    type: 'inbound',
    channel: 'WhatsApp',
    internal: false,
    businessHours: [{ day: 1, from: '08:00', to: '17:00' }],
  };
  it('accepts a line with business hours', () => {
    expect(validateAttentionLine(line)).toEqual([]);
  });
  it('refuses unknown channels and windows that end before they start', () => {
    expect(fields(validateAttentionLine({ ...line, channel: 'Fax', businessHours: [{ day: 1, from: '18:00', to: '09:00' }] }))).toEqual([
      'channel:oneOf',
      'businessHours:pattern',
    ]);
  });
  it('bounds the routing settings: a known policy, priority 0–9, a queue timeout of 30 s to a day or none', () => {
    expect(validateAttentionLine({ ...line, routingPolicy: 'least-occupied', priority: 9, queueTimeoutSeconds: 30 })).toEqual([]);
    expect(validateAttentionLine({ ...line, routingPolicy: 'longest-idle', priority: 0, queueTimeoutSeconds: null })).toEqual([]);
    expect(fields(validateAttentionLine({ ...line, routingPolicy: 'random', priority: 10, queueTimeoutSeconds: 29 }))).toEqual([
      'routingPolicy:oneOf',
      'priority:range',
      'queueTimeoutSeconds:range',
    ]);
    expect(fields(validateAttentionLine({ ...line, priority: 1.5, queueTimeoutSeconds: 86_401 }))).toEqual([
      'priority:integer',
      'queueTimeoutSeconds:range',
    ]);
  });
});

describe(validateQna.name, () => {
  it('requires question and answer and bounds the answer', () => {
    expect(fields(validateQna({ question: '', answer: 'x'.repeat(4001) }))).toEqual(['question:required', 'answer:maxLength']);
    expect(validateQna({ question: 'How?', answer: 'Like this.', category: null, active: true })).toEqual([]);
  });
});

describe(validatePoll.name, () => {
  const poll = {
    name: 'NPS',
    description: null,
    active: true,
    lowerRank: 40,
    upperRank: 60,
    questions: [{ text: 'How likely?', responseType: 'scale', options: [], answerGroupId: null }],
  };
  it('accepts ranks that sum to 100', () => {
    expect(validatePoll(poll)).toEqual([]);
  });
  it('refuses 60 + 30', () => {
    expect(validatePoll({ ...poll, lowerRank: 60, upperRank: 30 })).toEqual([{ field: 'upperRank', key: 'rankSum', values: { sum: 100 } }]);
  });
  it('needs a question, and two options for choice questions', () => {
    expect(fields(validatePoll({ ...poll, questions: [] }))).toEqual(['questions:required']);
    expect(
      fields(validatePoll({ ...poll, questions: [{ text: 'Pick', responseType: 'single', options: ['a'], answerGroupId: null }] })),
    ).toEqual(['questions.0.options:minOptions']);
  });
});

describe(validatePhone.name, () => {
  it('refuses 7 digits and accepts 8', () => {
    expect(validatePhone('888-7777')).toEqual({ field: 'phone', key: 'digits', values: { count: 8 } });
    expect(validatePhone('8888-7777')).toBeNull();
  });
  it('requires a value', () => {
    expect(validatePhone('  ')).toEqual({ field: 'phone', key: 'required' });
  });
});

describe(neutraliseCell.name, () => {
  it('neutralises formula-looking cells only', () => {
    expect(['=1+1', '+506', '-2', '@x', '\tx', 'ok'].map(neutraliseCell)).toEqual(["'=1+1", "'+506", "'-2", "'@x", "'\tx", 'ok']);
  });
});

describe(validateClient.name, () => {
  it('requires a name and checks URLs and the colour', () => {
    expect(fields(validateClient({ name: '', bannerUrl: 'javascript:alert(1)', mainColor: 'blue' }))).toEqual([
      'name:required',
      'bannerUrl:pattern',
      'mainColor:pattern',
    ]);
    expect(validateClient({ name: 'Acme', menuLogoUrl: 'https://cdn.example.com/logo.svg', mainColor: '#1a2b3c' })).toEqual([]);
  });

  it('accepts plain origins for the widget and refuses anything that could leave the CSP directive', () => {
    expect(validateClient({ name: 'Acme', allowedOrigins: ['https://shop.example', 'http://localhost:8080/'] })).toEqual([]);
    for (const bad of ['https://shop.example; script-src *', 'javascript:alert(1)', 'https://shop.example/path', '*']) {
      expect(fields(validateClient({ name: 'Acme', allowedOrigins: [bad] }))).toEqual(['allowedOrigins:pattern']);
    }
    const many = Array.from({ length: MAX_ALLOWED_ORIGINS + 1 }, (_, i) => `https://site${i}.example`);
    expect(fields(validateClient({ name: 'Acme', allowedOrigins: many }))).toEqual(['allowedOrigins:range']);
  });
});

describe(normalizeOrigins.name, () => {
  it('trims, drops blanks and trailing slashes, and removes duplicates', () => {
    expect(normalizeOrigins([' https://a.example/ ', '', 'HTTPS://A.EXAMPLE', 'https://b.example'])).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
  });
});
