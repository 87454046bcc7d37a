import { Type } from 'class-transformer';
import { IsEmail, IsInt, IsString, ValidateNested } from 'class-validator';
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
    });
  });

  it('refuses properties the DTO does not declare', async () => {
    const error = (await validate({ email: 'a@b.co', count: 1, address: { city: 'x' }, role: 'ADMIN' }).catch(
      (thrown: unknown) => thrown,
    )) as AppException;
    expect(error.message).toBe('property role should not exist');
  });

  it('returns an instance of the DTO for valid input', async () => {
    await expect(validate({ email: 'a@b.co', count: 1, address: { city: 'x' } })).resolves.toBeInstanceOf(Sample);
  });
});
