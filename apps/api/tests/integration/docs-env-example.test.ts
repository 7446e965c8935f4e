/**
 * `.env.example` lists every variable of the README's configuration table,
 * each with the default the table states (empty where the default is
 * "unset", "generated" or described in words), and nothing else.
 */
import { expect, test } from 'bun:test';
import { docSection, readDoc } from '../support/markdown-docs';

/** Each variable of the table with its default: the backticked value, or '' when there is none. */
function tableDefaults(): Map<string, string> {
  const table = docSection('README.md', '## Configuration');
  const defaults = new Map<string, string>();
  for (const [, variableCell, defaultCell] of table.matchAll(/^\| ([^|]+)\| ([^|]+)\|/gm)) {
    const names = [...(variableCell as string).matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map(
      (match) => match[1] as string,
    );
    if (names.length === 0) continue;
    const parts = (defaultCell as string).trim().split(' / ');
    names.forEach((name, index) => {
      const part = (parts.length === names.length ? parts[index] : parts[0]) ?? '';
      defaults.set(name, part.match(/^`([^`]*)`$/)?.[1] ?? '');
    });
  }
  return defaults;
}

function exampleValues(): Map<string, string> {
  const values = new Map<string, string>();
  for (const [, name, value] of readDoc('.env.example').matchAll(
    /^#? ?([A-Z][A-Z0-9_]*)=(.*)$/gm,
  )) {
    values.set(name as string, (value as string).trim());
  }
  return values;
}

test('.env.example names every configuration variable with its documented default', () => {
  const defaults = tableDefaults();
  expect(defaults.size).toBeGreaterThan(10);
  expect(defaults.get('PORT')).toBe('3001');
  expect(Object.fromEntries(exampleValues())).toEqual(Object.fromEntries(defaults));
});
