import { afterAll, describe, expect, test } from 'bun:test';
import path from 'node:path';
import { PermissionDeniedError } from '../../../../src/services/tools/errors';
import {
  createPathFilter,
  resolveAndValidatePath,
} from '../../../../src/services/tools/path-policy';
import { createTempTree } from '../../../support/temp-tree';

const tree = createTempTree('mango-server-data', {
  'data/mango.sqlite': 'db',
  'work/notes.txt': 'hello',
});
const root = tree.root;
const dataDir = tree.at('data');
const work = tree.at('work');
tree.add({ 'work/sneaky': { link: dataDir } });

afterAll(() => {
  tree.remove();
});

const unprotectedChat = {
  mode: 'chat' as const,
  restrictToWorkingDirectory: false,
  parameters: {},
};
const protectedPaths = [dataDir];
const chat = { ...unprotectedChat, protectedPaths };
const agent = {
  mode: 'agent' as const,
  workingDirectory: work,
  restrictToWorkingDirectory: false,
  parameters: { allowedPaths: [{ path: root, enabled: true }] },
  protectedPaths,
};

async function refusal(promise: Promise<unknown>): Promise<PermissionDeniedError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PermissionDeniedError) return error;
    throw error;
  }
  throw new Error('expected a PermissionDeniedError');
}

describe('the server data directory is never reachable through the path policy', () => {
  test('two calls with different protected paths do not share them (no global state)', async () => {
    tree.add({ 'other-data': { dir: true } });
    const other = tree.at('other-data');
    const inOther = path.join(other, 'x.txt');
    await refusal(resolveAndValidatePath(inOther, { ...chat, protectedPaths: [other] }));
    expect((await resolveAndValidatePath(inOther, chat)).exists).toBe(false);
  });

  test('without protection the data directory is an ordinary path', async () => {
    const resolved = await resolveAndValidatePath(
      path.join(dataDir, 'mango.sqlite'),
      unprotectedChat,
    );
    expect(resolved.exists).toBe(true);
  });

  test('with protection: refused in chat mode, in agent mode even when allowed, and through a symlink', async () => {
    const direct = await refusal(resolveAndValidatePath(path.join(dataDir, 'mango.sqlite'), chat));
    expect(direct.details?.rule).toBe('serverData');
    expect(direct.message).toContain("server's own data directory");
    const allowed = await refusal(resolveAndValidatePath(path.join(dataDir, 'new.txt'), agent));
    expect(allowed.details?.rule).toBe('serverData');
    const viaLink = await refusal(resolveAndValidatePath('sneaky/mango.sqlite', agent));
    expect(viaLink.details?.rule).toBe('serverData');
    // Everything else still works.
    expect((await resolveAndValidatePath('notes.txt', agent)).exists).toBe(true);
  });

  test('walks skip the data directory', async () => {
    const allowedByFilter = await createPathFilter(chat);
    expect(allowedByFilter(path.join(dataDir, 'mango.sqlite'))).toBe(false);
    expect(allowedByFilter(path.join(work, 'notes.txt'))).toBe(true);
  });

  test('a data directory that does not exist yet is protected by its location', async () => {
    const later = path.join(root, 'later-data');
    const error = await refusal(
      resolveAndValidatePath(path.join(later, 'x'), { ...chat, protectedPaths: [later] }),
    );
    expect(error.details?.rule).toBe('serverData');
  });
});
