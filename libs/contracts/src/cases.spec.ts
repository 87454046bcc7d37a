import { caseCode, caseNumberOf, validateCase } from './cases';

describe(caseCode.name, () => {
  it('pads the tenant sequence number to six digits', () => {
    expect(caseCode(123)).toBe('C-000123');
    expect(caseCode(1234567)).toBe('C-1234567');
  });
  it('reads typed codes back', () => {
    expect(caseNumberOf('C-000123')).toBe(123);
    expect(caseNumberOf('c123')).toBe(123);
    expect(caseNumberOf(' 42 ')).toBe(42);
    expect(caseNumberOf('router')).toBeNull();
  });
});

describe(validateCase.name, () => {
  it('requires subject and description (spec §5: description for cases)', () => {
    expect(validateCase({}).map((issue) => [issue.field, issue.key])).toEqual([
      ['subject', 'required'],
      ['description', 'required'],
    ]);
  });

  it('checks email, phone digits, status and the identification number against its type', () => {
    const issues = validateCase(
      {
        subject: 's',
        description: 'd',
        contactEmail: 'x@',
        contactPhone: '1234',
        status: 'lost' as never,
        identificationTypeId: 't',
        identificationNumber: '12-3',
      },
      '[1-9]\\d{8}',
    );
    expect(issues.map((issue) => issue.field)).toEqual(['contactEmail', 'contactPhone', 'status', 'identificationNumber']);
    expect(
      validateCase({ subject: 's', description: 'd', identificationTypeId: 't', identificationNumber: '112340567' }, '[1-9]\\d{8}'),
    ).toEqual([]);
  });

  it('wants a type for an identification number, and refuses non-text values', () => {
    expect(validateCase({ subject: 's', description: 'd', identificationNumber: '1' }).map((i) => i.field)).toEqual([
      'identificationTypeId',
    ]);
    expect(validateCase({ subject: ['s'], description: 'd' }).map((i) => [i.field, i.key])).toEqual([['subject', 'pattern']]);
  });
});
