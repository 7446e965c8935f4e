/** docs/errors.md lists exactly the code vocabulary of `apps/shared`, with each code's status and retryable default. */
import { expect, test } from 'bun:test';
import { ERROR_CODE_LIST, ERROR_CODES } from '@mango/shared';
import { docSection } from '../support/markdown-docs';

test('the code table of docs/errors.md is ERROR_CODES, row for row', () => {
  const section = docSection('docs/errors.md', '## The codes');
  const rows = [...section.matchAll(/^\| `([a-z_]+)` +\| (\d{3}) +\| (yes|no) +\|/gm)].map(
    ([, code, status, retryable]) => [code, Number(status), retryable === 'yes'],
  );
  expect(rows).toEqual(
    ERROR_CODE_LIST.map((code) => [code, ERROR_CODES[code].status, ERROR_CODES[code].retryable]),
  );
});
