import { INPUT_LIMITS, inputProblem, pathProblem } from './input-sanitation';

describe('inputProblem', () => {
  it('accepts ordinary JSON, emoji and paired surrogates included', () => {
    expect(inputProblem({ name: 'Zoë 😀', tags: ['a', 'b'], nested: { n: 1, ok: true, none: null } }, 'body')).toBeNull();
    expect(inputProblem(undefined, 'body')).toBeNull();
  });

  it('names the field that holds a NUL or a lone surrogate', () => {
    expect(inputProblem({ questions: [{ text: 'a\u0000' }] }, 'body')?.message).toBe('questions.0.text must not contain NUL characters');
    expect(inputProblem({ name: 'x\udc00' }, 'body')?.message).toBe('name must be valid Unicode text (it contains a lone surrogate)');
    expect(inputProblem({ q: ['ok', 'b\u0000'] }, 'query')?.message).toBe('q.1 must not contain NUL characters');
    expect(inputProblem({ 'a\u0000': 1 }, 'body')?.message).toBe('A property name of the request body must not contain NUL characters');
  });

  it('refuses depth beyond the bound without recursing', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(inputProblem(deep, 'body')?.message).toBe(`The request body is nested too deeply (at most ${INPUT_LIMITS.maxDepth} levels)`);
  });

  it('refuses too many values, prototype keys and numbers beyond 2^53', () => {
    const wide = Array.from({ length: INPUT_LIMITS.maxValues }, () => 1);
    expect(inputProblem(wide, 'body')?.message).toBe(`The request body has too many values (at most ${INPUT_LIMITS.maxValues})`);
    expect(inputProblem(JSON.parse('{"a":{"__proto__":{}}}'), 'body')?.message).toBe('property a.__proto__ should not exist');
    expect(inputProblem({ n: 1e20 }, 'body')?.status).toBe(400);
    expect(inputProblem({ n: Number.MAX_SAFE_INTEGER }, 'body')).toBeNull();
  });
});

describe('pathProblem', () => {
  it('refuses NUL, encoded surrogates and bad percent-encoding in the path', () => {
    expect(pathProblem('/api/users/7f1c')).toBeNull();
    expect(pathProblem('/api/users/caf%C3%A9')).toBeNull();
    expect(pathProblem('/api/users/a%00b')?.message).toBe('The request path must not contain NUL characters');
    expect(pathProblem('/api/users/%ED%A0%80')?.message).toBe('The request path is not valid percent-encoded UTF-8');
    expect(pathProblem('/api/users/%E0%A4%A')?.message).toBe('The request path is not valid percent-encoded UTF-8');
  });
});
