/**
 * The benches' options from the environment (`ROUNDS=20 npm run bench:fs`):
 * unset or empty gives the bench's default; anything else must be what the
 * option takes, or the bench stops before it starts with an error naming the
 * variable, what it takes and what it got. `Number("twenty")` is NaN, and a
 * bench that ran with NaN rounds would print figures of nothing.
 */

export interface NumberOption {
  /** The least value taken (default 1). */
  min?: number;
  /** Whether fractions are taken too (default: whole numbers only). */
  fractional?: boolean;
}

export function numberFromEnv(name: string, fallback: number, option: NumberOption = {}): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const min = option.min ?? 1;
  const value = Number(raw);
  const kind = option.fractional ? 'a number' : 'a whole number';
  if (!Number.isFinite(value) || (!option.fractional && !Number.isInteger(value)) || value < min)
    throw new Error(`${name} must be ${kind}, ${min} or more; got "${raw}".`);
  return value;
}

export function choiceFromEnv<Choice extends string>(
  name: string,
  fallback: Choice,
  choices: readonly Choice[],
): Choice {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = raw.trim() as Choice;
  if (!choices.includes(value))
    throw new Error(`${name} must be one of ${choices.join(', ')}; got "${raw}".`);
  return value;
}
