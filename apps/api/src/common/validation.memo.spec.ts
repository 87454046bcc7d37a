import { getMetadataStorage, IsInt, IsString, MinLength, validate } from 'class-validator';
import { memoizeValidationMetadata } from './validation';

/** Remembering class-validator's rule lookups must never change what is validated. */
describe(memoizeValidationMetadata.name, () => {
  beforeAll(() => memoizeValidationMetadata());

  class Base {
    @IsString() name!: unknown;
  }
  class Derived extends Base {
    @IsInt() count!: unknown;
  }
  const failed = async (object: object): Promise<string[]> => (await validate(object)).map((error) => error.property).sort();

  it('gives the same rules as before, inherited ones included, call after call', async () => {
    for (let i = 0; i < 3; i++) {
      expect(await failed(Object.assign(new Derived(), { name: 1, count: 'x' }))).toEqual(['count', 'name']);
      expect(await failed(Object.assign(new Derived(), { name: 'ok', count: 2 }))).toEqual([]);
      expect(await failed(Object.assign(new Base(), { name: 1, count: 'x' }))).toEqual(['name']);
    }
  });

  it('sees a rule added after the lookup was remembered, on the class and on its subclasses', async () => {
    expect(await failed(Object.assign(new Derived(), { name: 'a', count: 2 }))).toEqual([]);
    MinLength(3)(Base.prototype, 'name');
    expect(await failed(Object.assign(new Derived(), { name: 'a', count: 2 }))).toEqual(['name']);
    expect(await failed(Object.assign(new Base(), { name: 'a' }))).toEqual(['name']);
  });

  it('is applied once, however often the pipe is created', () => {
    const lookup = getMetadataStorage().getTargetValidationMetadatas;
    memoizeValidationMetadata();
    expect(getMetadataStorage().getTargetValidationMetadatas).toBe(lookup);
  });
});
