import { isOptOutText } from './opt-out-words';

describe('isOptOutText', () => {
  it.each([
    'STOP',
    'stop',
    ' Stop! ',
    'Baja.',
    'dar de baja',
    'διαγραφή',
    'Abmelden',
    'отписаться',
    'ОДЈАВА',
    'odjava',
    'Disiscrivimi',
    'unsubscribe',
  ])('takes %j as an opt-out', (text) => expect(isOptOutText(text)).toBe(true));

  it.each(['', undefined, 'please stop calling me', 'stopwatch', 'bajamos?', 'STOP STOP STOP STOP STOP STOP STOP STOP STOP'])(
    'does not take %j as an opt-out (only a whole message is)',
    (text) => expect(isOptOutText(text)).toBe(false),
  );
});
