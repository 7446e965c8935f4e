/** The numbers docs/security.md states are the code's (request bodies, rate limits). */
import { expect, test } from 'bun:test';
import { DEFAULT_AUTH_ATTEMPTS_PER_MINUTE } from '../../src/config';
import {
  BODY_LIMITS,
  DEFAULT_BODY_LIMIT_BYTES,
  MAX_JSON_DEPTH,
} from '../../src/routes/request-body';
import { DEFAULT_TURN_LIMITS } from '../../src/services/chat/turn-rate-limit';
import { docSection, flatten } from '../support/markdown-docs';

function bytesOf(cell: string): number {
  const [, amount, unit] = cell.trim().match(/^(\d+) (KiB|MiB)$/) ?? [];
  return Number(amount) * (unit === 'MiB' ? 1024 * 1024 : 1024);
}

test('the body limits table is BODY_LIMITS and the default, row for row', () => {
  const section = docSection('docs/security.md', '## Request bodies');
  const rows = [...section.matchAll(/^\| (`[^|]+`[^|]*|any other route)\s*\| ([^|]+)\|/gm)].map(
    ([, route, limit]) => [route?.trim().replace(/^`([^`]+)`.*$/, '$1'), bytesOf(limit ?? '')],
  );
  expect(rows).toEqual([
    ...BODY_LIMITS.map((limit) => [limit.route, limit.maxBytes]),
    ['any other route', DEFAULT_BODY_LIMIT_BYTES],
  ]);
  expect(flatten(section)).toContain(`at most ${MAX_JSON_DEPTH} levels deep`);
});

test('the rate limits section states the defaults the code has', () => {
  const section = flatten(docSection('docs/security.md', '## Rate limits'));
  expect(section).toContain(
    `\`MANGO_AUTH_ATTEMPTS_PER_MINUTE\` (default ${DEFAULT_AUTH_ATTEMPTS_PER_MINUTE})`,
  );
  expect(section).toContain(
    `\`MANGO_TURNS_PER_MINUTE\` (default ${DEFAULT_TURN_LIMITS.startsPerMinute})`,
  );
  expect(section).toContain(
    `\`MANGO_CONCURRENT_TURNS\` (default ${DEFAULT_TURN_LIMITS.concurrent})`,
  );
});
