import { describe, expect, test } from 'bun:test';
import { ToolArgumentError } from '../../../../../src/services/tools/errors';
import { compileFileFilter, compileGlob } from '../../../../../src/services/tools/fs/glob-pattern';

const compile = (pattern: string) =>
  compileGlob(pattern, { argument: 'pattern', baseArgument: 'cwd' });

describe('compileGlob', () => {
  test('the literal directory prefix the walk can start from', () => {
    expect(compile('src/components/**/*.tsx').literalPrefix).toEqual(['src', 'components']);
    expect(compile('src/index.ts').literalPrefix).toEqual(['src']);
    expect(compile('**/*.ts').literalPrefix).toEqual([]);
    expect(compile('{src,test}/*.ts').literalPrefix).toEqual([]);
    expect(compile('!src/*.ts').literalPrefix).toEqual([]);
    expect(compile('./src/*.ts').literalPrefix).toEqual(['src']);
  });

  test('the deepest level a match can lie at', () => {
    expect(compile('*.ts').maxDepth).toBe(1);
    expect(compile('src/*/x.ts').maxDepth).toBe(3);
    expect(compile('src/**/x.ts').maxDepth).toBeUndefined();
    expect(compile('{a/b,c}/*.ts').maxDepth).toBeUndefined();
    expect(compile('!*.ts').maxDepth).toBeUndefined();
  });

  test('dot entries the pattern names itself', () => {
    const github = compile('.github/**/*.yml');
    expect(github.namesDotEntry('.github')).toBe(true);
    expect(github.namesDotEntry('.git')).toBe(false);
    expect(compile('.*').namesDotEntry('.env')).toBe(true);
    expect(compile('{.vscode,.idea}/*').namesDotEntry('.idea')).toBe(true);
    expect(compile('**/*.ts').namesDotEntry('.cache')).toBe(false);
  });

  test('matching follows Bun.Glob, negation included', () => {
    const negated = compile('!**/*.test.ts');
    expect(negated.negated).toBe(true);
    expect(negated.matches('src/a.ts')).toBe(true);
    expect(negated.matches('src/a.test.ts')).toBe(false);
    expect(compile('src/[ab].ts').matches('src/b.ts')).toBe(true);
  });

  test('patterns that leave the base, blank ones and NUL bytes are refused', () => {
    for (const bad of ['', '  ', '../x', 'a/../../b', '/etc/*', '~/x', 'a\0b', '!', './']) {
      expect(() => compile(bad)).toThrow(ToolArgumentError);
    }
  });
});

describe('compileFileFilter (grep glob)', () => {
  test('a pattern without "/" matches names at any depth', () => {
    const filter = compileFileFilter('*.ts', 'glob');
    expect(filter.matches('a.ts')).toBe(true);
    expect(filter.matches('src/deep/a.ts')).toBe(true);
    expect(filter.matches('src/a.js')).toBe(false);
    expect(compileFileFilter('!*.ts', 'glob').matches('src/a.js')).toBe(true);
    expect(compileFileFilter('!*.ts', 'glob').matches('src/a.ts')).toBe(false);
  });

  test('a pattern with "/" is relative to the search root', () => {
    const filter = compileFileFilter('src/*.ts', 'glob');
    expect(filter.matches('src/a.ts')).toBe(true);
    expect(filter.matches('lib/src/a.ts')).toBe(false);
  });
});
