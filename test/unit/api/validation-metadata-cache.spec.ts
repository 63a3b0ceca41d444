import { IsInt, IsString, MaxLength, validate } from 'class-validator';
import { memoizeValidationMetadata } from '../../../src/api/validation-metadata-cache';

describe('memoizeValidationMetadata', () => {
  beforeAll(() => memoizeValidationMetadata());

  class Base {
    @IsString()
    name!: unknown;
  }
  class Derived extends Base {
    @IsInt()
    count!: unknown;
  }

  it('keeps inherited rules and answers the same on every call', async () => {
    const bad = Object.assign(new Derived(), { name: 1, count: 'x' });
    for (let i = 0; i < 3; i++) {
      const errors = await validate(bad);
      expect(errors.map((error) => error.property).sort()).toEqual(['count', 'name']);
    }
    expect(await validate(Object.assign(new Derived(), { name: 'a', count: 2 }))).toEqual([]);
  });

  it('sees rules declared after a class was first validated', async () => {
    class Late {
      @IsString()
      title!: unknown;
    }
    expect(await validate(Object.assign(new Late(), { title: 'x'.repeat(20) }))).toEqual([]);
    MaxLength(5)(Late.prototype, 'title');
    const errors = await validate(Object.assign(new Late(), { title: 'x'.repeat(20) }));
    expect(errors[0]?.constraints).toHaveProperty('maxLength');
  });
});
