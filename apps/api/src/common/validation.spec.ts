import { Type } from 'class-transformer';
import {
  IsEmail,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { AppException } from './app.exception';
import { createValidationPipe } from './validation';

class Address {
  @IsString()
  city!: string;
}

class Sample {
  @IsEmail()
  email!: string;

  @IsInt()
  count!: number;

  @ValidateNested()
  @Type(() => Address)
  address!: Address;
}

describe('createValidationPipe', () => {
  const pipe = createValidationPipe();
  const validate = (value: unknown): Promise<unknown> => pipe.transform(value, { type: 'body', metatype: Sample, data: '' });

  it('names each failing field, nested ones by path, in one message', async () => {
    const error = (await validate({ email: 'nope', count: 'x', address: { city: 5 } }).catch((thrown: unknown) => thrown)) as AppException;
    expect(error).toBeInstanceOf(AppException);
    expect(error.code).toBe('validation');
    expect(error.message).toBe('email must be an email; count must be an integer number; address.city must be a string');
    expect(error.data).toEqual({
      fields: {
        email: ['email must be an email'],
        count: ['count must be an integer number'],
        'address.city': ['address.city must be a string'],
      },
      issues: [
        { field: 'email', rule: 'isEmail' },
        { field: 'count', rule: 'isInt' },
        { field: 'address.city', rule: 'isString' },
      ],
    });
  });

  it('refuses properties the DTO does not declare', async () => {
    const error = (await validate({ email: 'a@b.co', count: 1, address: { city: 'x' }, role: 'ADMIN' }).catch(
      (thrown: unknown) => thrown,
    )) as AppException;
    expect(error.message).toBe('property role should not exist');
    expect((error.data as { issues: unknown }).issues).toEqual([{ field: 'role', rule: 'whitelistValidation' }]);
  });

  it('returns an instance of the DTO for valid input', async () => {
    await expect(validate({ email: 'a@b.co', count: 1, address: { city: 'x' } })).resolves.toBeInstanceOf(Sample);
  });
});

class Limits {
  @IsOptional()
  @MaxLength(12)
  name?: string;

  @IsOptional()
  @Length(2, 4)
  code?: string;

  @IsOptional()
  @Min(3)
  level?: number;

  @IsOptional()
  @IsIn(['asc', 'desc'])
  order?: string;

  @IsOptional()
  @Matches(/^[A-Z]{2}$/)
  country?: string;

  @IsOptional()
  @IsUUID('4')
  id?: string;

  @IsNotEmpty()
  title!: string;
}

describe('validation issues', () => {
  const pipe = createValidationPipe();
  const issuesOf = async (value: unknown) => {
    const error = (await pipe
      .transform(value, { type: 'body', metatype: Limits, data: '' })
      .catch((thrown: unknown) => thrown)) as AppException;
    expect(error).toBeInstanceOf(AppException);
    return (error.data as { issues: unknown }).issues;
  };

  it('names each failing constraint with its values, so a client can word it in any language', async () => {
    await expect(
      issuesOf({ name: 'x'.repeat(13), code: 'ABCDE', level: 1, order: 'up', country: 'cr', id: 'nope', title: '' }),
    ).resolves.toEqual([
      { field: 'name', rule: 'maxLength', params: { max: 12 } },
      { field: 'code', rule: 'isLength', params: { min: 2, max: 4 } },
      { field: 'level', rule: 'min', params: { min: 3 } },
      { field: 'order', rule: 'isIn', params: { values: ['asc', 'desc'] } },
      { field: 'country', rule: 'matches', params: { pattern: '^[A-Z]{2}$' } },
      { field: 'id', rule: 'isUuid', params: { version: '4' } },
      { field: 'title', rule: 'isNotEmpty' },
    ]);
  });

  it('keeps the English message and fields beside the issues for API clients', async () => {
    const error = (await pipe
      .transform({ title: 'ok', name: 'x'.repeat(13) }, { type: 'body', metatype: Limits, data: '' })
      .catch((thrown: unknown) => thrown)) as AppException;
    expect(error.message).toBe('name must be shorter than or equal to 12 characters');
    expect(error.data).toEqual({
      fields: { name: ['name must be shorter than or equal to 12 characters'] },
      issues: [{ field: 'name', rule: 'maxLength', params: { max: 12 } }],
    });
  });
});
