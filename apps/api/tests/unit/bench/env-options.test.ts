/** The benches' options from the environment (bench/env-options.ts). */
import { afterEach, describe, expect, test } from 'bun:test';
import { choiceFromEnv, numberFromEnv } from '../../../../../bench/env-options';

const NAME = 'MANGO_BENCH_OPTION_TEST';
afterEach(() => {
  delete process.env[NAME];
});

describe('numberFromEnv', () => {
  test('unset or empty gives the default', () => {
    expect(numberFromEnv(NAME, 7)).toBe(7);
    process.env[NAME] = ' ';
    expect(numberFromEnv(NAME, 7)).toBe(7);
  });

  test('a whole number at or above the least is taken', () => {
    process.env[NAME] = '20';
    expect(numberFromEnv(NAME, 7)).toBe(20);
    process.env[NAME] = '0';
    expect(numberFromEnv(NAME, 7, { min: 0 })).toBe(0);
  });

  test('anything else is refused, naming the variable, what it takes and what it got', () => {
    for (const raw of ['twenty', '2.5', '0', '-3', 'Infinity', '1e400']) {
      process.env[NAME] = raw;
      expect(() => numberFromEnv(NAME, 7)).toThrow(
        `${NAME} must be a whole number, 1 or more; got "${raw}".`,
      );
    }
  });

  test('fractions where the option takes them, still above the least', () => {
    process.env[NAME] = '0.5';
    expect(numberFromEnv(NAME, 2, { min: 0.1, fractional: true })).toBe(0.5);
    process.env[NAME] = '0.05';
    expect(() => numberFromEnv(NAME, 2, { min: 0.1, fractional: true })).toThrow(
      `${NAME} must be a number, 0.1 or more; got "0.05".`,
    );
  });
});

describe('choiceFromEnv', () => {
  test('unset gives the default; a listed choice is taken', () => {
    expect(choiceFromEnv(NAME, 'sqlite', ['sqlite', 'postgres'])).toBe('sqlite');
    process.env[NAME] = 'postgres';
    expect(choiceFromEnv(NAME, 'sqlite', ['sqlite', 'postgres'])).toBe('postgres');
  });

  test('anything else is refused with the choices, not read as the default', () => {
    process.env[NAME] = 'pg';
    expect(() => choiceFromEnv(NAME, 'sqlite', ['sqlite', 'postgres'])).toThrow(
      `${NAME} must be one of sqlite, postgres; got "pg".`,
    );
  });
});
