/**
 * The Models section of docs/http-api.md names the cache lifetimes, the entry
 * fields, the listing states and the suggestion count; this keeps each of them
 * the code's.
 */
import { expect, test } from 'bun:test';
import { ModelEntry, ModelProviderListing } from '@mango/shared';
import {
  MODEL_LIST_FAILURE_TTL_MS,
  MODEL_LIST_RECHECK_AFTER_MS,
  MODEL_LIST_TIMEOUT_MS,
  MODEL_LIST_TTL_MS,
} from '../../src/services/providers/model-catalog';
import { MAX_MODEL_SUGGESTIONS } from '../../src/services/providers/model-suggestions';
import { docSection, flatten } from '../support/markdown-docs';

const section = flatten(docSection('docs/http-api.md', '## Models'));

test('the cache lifetimes and the listing budget are the code’s', () => {
  expect(MODEL_LIST_TTL_MS).toBe(10 * 60_000);
  expect(section).toContain('kept for 10 minutes');
  expect(MODEL_LIST_FAILURE_TTL_MS).toBe(30_000);
  expect(section).toContain('a failure is remembered for 30 s');
  expect(MODEL_LIST_TIMEOUT_MS).toBe(10_000);
  expect(section).toContain('one listing (every page) has 10 s');
  expect(MODEL_LIST_RECHECK_AFTER_MS).toBe(60_000);
  expect(section).toContain('older than a minute');
  expect(MAX_MODEL_SUGGESTIONS).toBe(3);
  expect(section).toContain('(up to three) closest offered names');
});

test('the fields and states it names are the contract’s', () => {
  const entryFields = Object.keys(ModelEntry.properties);
  expect(section).toContain(
    `{ ${entryFields.map((field) => ((ModelEntry.required as readonly string[]).includes(field) ? field : `${field}?`)).join(', ')} }`,
  );
  const states = (ModelProviderListing.properties.status.anyOf as { const: string }[]).map(
    (member) => member.const,
  );
  for (const state of states) expect(section).toContain(`\`${state}\``);
});
