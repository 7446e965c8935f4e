import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import {
  PermissionDeniedError,
  ToolArgumentError,
  ToolError,
} from '../../../../src/services/tools/errors';
import { BINARY_SNIFF_BYTES, looksBinary } from '../../../../src/services/tools/fs/binary';
import {
  createPathFilter,
  createReportedPathBuilder,
  getEffectiveWorkingDirectory,
  isContainmentActive,
  isPathInside,
  type PathPolicyContext,
  resolveAndValidatePath,
  toReportedPath,
} from '../../../../src/services/tools/path-policy';
import { CONTAINMENT_TREE, createTempTree, type TempTree } from '../../../support/temp-tree';

let tree: TempTree;
let root: string;
let work: string;
let outside: string;

/*
 * The containment tree (tests/support/temp-tree.ts) plus, in w/:
 *     link-in-file  -> a.txt
 *     broken-in  -> a-missing-file
 *     loop1 <-> loop2
 * (secret/key.txt is denied in some tests.)
 */
beforeAll(() => {
  tree = createTempTree('path-policy', {
    ...CONTAINMENT_TREE,
    'w/link-in-file': { link: 'a.txt' },
    'w/broken-in': { link: 'a-missing-file' },
    'w/loop1': { link: 'loop2' },
    'w/loop2': { link: 'loop1' },
  });
  root = tree.root;
  work = tree.at('w');
  outside = tree.at('outside');
});

afterAll(() => tree.remove());

function agent(overrides: Partial<PathPolicyContext> = {}): PathPolicyContext {
  return {
    mode: 'agent',
    workingDirectory: work,
    restrictToWorkingDirectory: true,
    parameters: {},
    ...overrides,
  };
}

async function refusal(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error('expected the path to be refused');
}

describe('isPathInside', () => {
  test('is segment-aware and inclusive', () => {
    expect(isPathInside('/a/b', '/a/b/c')).toBe(true);
    expect(isPathInside('/a/b', '/a/b')).toBe(true);
    expect(isPathInside('/a/b/', '/a/b')).toBe(true);
    expect(isPathInside('/a/b', '/a/bc')).toBe(false);
    expect(isPathInside('/a/b', '/a')).toBe(false);
    expect(isPathInside('/', '/anything')).toBe(true);
    expect(isPathInside('/a/b', '/a/b/../c')).toBe(false);
  });
});

describe('working directory and containment switches', () => {
  test('agent mode uses the bound directory, chat mode never does', () => {
    expect(getEffectiveWorkingDirectory(agent())).toBe(work);
    expect(getEffectiveWorkingDirectory(agent({ mode: 'chat' }))).toBeUndefined();
    expect(getEffectiveWorkingDirectory(agent({ workingDirectory: undefined }))).toBeUndefined();
  });

  test('containment needs agent mode, the restriction and a directory', () => {
    expect(isContainmentActive(agent())).toBe(true);
    expect(isContainmentActive(agent({ restrictToWorkingDirectory: false }))).toBe(false);
    expect(isContainmentActive(agent({ mode: 'chat' }))).toBe(false);
    expect(isContainmentActive(agent({ workingDirectory: undefined }))).toBe(false);
  });
});

describe('resolveAndValidatePath: resolution', () => {
  test('relative paths resolve against the working directory', async () => {
    const resolved = await resolveAndValidatePath('sub/b.txt', agent());
    expect(resolved).toEqual({
      input: 'sub/b.txt',
      absolutePath: path.join(work, 'sub', 'b.txt'),
      realPath: path.join(work, 'sub', 'b.txt'),
      exists: true,
    });
  });

  test('"." , "//" and trailing slashes normalise', async () => {
    expect((await resolveAndValidatePath('.', agent())).absolutePath).toBe(work);
    expect((await resolveAndValidatePath(`${work}//sub/./`, agent())).absolutePath).toBe(
      path.join(work, 'sub'),
    );
  });

  test('~ expands to the server user home', async () => {
    const resolved = await resolveAndValidatePath(
      '~/some-file',
      agent({ restrictToWorkingDirectory: false }),
    );
    expect(resolved.absolutePath).toBe(path.join(homedir(), 'some-file'));
    expect(
      (await resolveAndValidatePath('~', agent({ restrictToWorkingDirectory: false })))
        .absolutePath,
    ).toBe(path.resolve(homedir()));
  });

  test('~name forms are refused, not guessed', async () => {
    const error = await refusal(resolveAndValidatePath('~root/x', agent()));
    expect(error).toBeInstanceOf(ToolArgumentError);
    expect(error.message).toContain('./~root/x');
  });

  test('a new file reports exists false and its real location', async () => {
    const resolved = await resolveAndValidatePath('new-dir/deeper/file.txt', agent());
    expect(resolved.exists).toBe(false);
    expect(resolved.realPath).toBe(path.join(work, 'new-dir', 'deeper', 'file.txt'));
  });

  test('a link inside the directory to a file inside is allowed and resolved', async () => {
    const resolved = await resolveAndValidatePath('link-in-file', agent());
    expect(resolved.absolutePath).toBe(path.join(work, 'link-in-file'));
    expect(resolved.realPath).toBe(path.join(work, 'a.txt'));
  });

  test('a broken link inside pointing inside resolves to its target', async () => {
    const resolved = await resolveAndValidatePath('broken-in', agent());
    expect(resolved.exists).toBe(true);
    expect(resolved.realPath).toBe(path.join(work, 'a-missing-file'));
  });

  test('a symlink loop is refused with a clear message', async () => {
    const error = await refusal(resolveAndValidatePath('loop1/x', agent()));
    expect(error).toBeInstanceOf(ToolArgumentError);
    expect(error.message).toContain('loop');
    const direct = await refusal(resolveAndValidatePath('loop1', agent()));
    expect(direct.code).toBe('validation_failed');
  });
});

describe('resolveAndValidatePath: malformed arguments', () => {
  test('blank, NUL and over-long paths are validation_failed', async () => {
    for (const bad of ['', '   ', 'a\0b', `/${'x'.repeat(300)}`, `/${'abc/'.repeat(1100)}`]) {
      const error = await refusal(resolveAndValidatePath(bad, agent()));
      expect(error).toBeInstanceOf(ToolArgumentError);
      expect(error.code).toBe('validation_failed');
    }
  });

  test('the argument name appears in the message', async () => {
    const error = await refusal(resolveAndValidatePath('', agent(), { argument: 'cwd' }));
    expect(error.message).toContain('"cwd"');
    expect(error.details).toEqual({ argument: 'cwd' });
  });

  test('a relative path without a working directory is refused before touching the disk', async () => {
    // From inside the fixture, "loop1" is a symlink loop: any disk access would report the loop.
    const previous = process.cwd();
    process.chdir(work);
    const noDirectory = agent({ workingDirectory: undefined });
    let error: ToolError;
    try {
      error = await refusal(resolveAndValidatePath('loop1/x', noDirectory));
    } finally {
      process.chdir(previous);
    }
    expect(error).toBeInstanceOf(ToolArgumentError);
    expect(error.message).toContain('no working directory');
  });

  test('chat mode does not use the bound directory', async () => {
    const chat = agent({ mode: 'chat' });
    const error = await refusal(resolveAndValidatePath('a.txt', chat));
    expect(error.message).toContain('chat mode');
    // absolute paths work, and containment does not apply in chat mode
    const resolved = await resolveAndValidatePath(path.join(outside, 'o.txt'), chat);
    expect(resolved.realPath).toBe(path.join(outside, 'o.txt'));
  });
});

describe('resolveAndValidatePath: containment', () => {
  const escapes: Array<[string, () => string]> = [
    ['../ escape', () => '../outside/o.txt'],
    ['deep ../ escape', () => 'sub/../../outside/o.txt'],
    ['absolute outside', () => path.join(outside, 'o.txt')],
    ['sibling prefix /w vs /w2', () => path.join(root, 'w2', 'x.txt')],
    ['symlinked file pointing outside', () => 'link-out-file'],
    ['symlinked directory pointing outside', () => 'link-out-dir/o.txt'],
    ['the symlinked directory itself', () => 'link-out-dir'],
    ['relative symlink chain', () => 'chain1'],
    ['broken link pointing outside', () => 'broken-out'],
    ['new file under a missing dir below a link out', () => 'link-out-dir/new/deeper/file.txt'],
    ['the parent of the working directory', () => '..'],
    ['root', () => '/'],
  ];
  for (const [name, input] of escapes) {
    test(`refuses ${name}`, async () => {
      const error = await refusal(resolveAndValidatePath(input(), agent()));
      expect(error).toBeInstanceOf(PermissionDeniedError);
      expect(error.code).toBe('permission_denied');
      expect(error.details?.rule).toBe('containment');
      expect(error.message).toContain('working directory');
    });
  }

  test('the real destination is named when a link was followed', async () => {
    const error = await refusal(resolveAndValidatePath('link-out-file', agent()));
    expect(error.message).toContain(path.join(outside, 'o.txt'));
  });

  test('the same paths pass without the restriction', async () => {
    const open = agent({ restrictToWorkingDirectory: false });
    expect((await resolveAndValidatePath('link-out-file', open)).realPath).toBe(
      path.join(outside, 'o.txt'),
    );
    expect((await resolveAndValidatePath('broken-out', open)).realPath).toBe(
      path.join(outside, 'missing.txt'),
    );
  });

  test('a working directory reached through a symlink still contains its files', async () => {
    const linkedWork = tree.at('linked-w');
    tree.add({ 'linked-w': { link: work } });
    try {
      const resolved = await resolveAndValidatePath(
        'sub/b.txt',
        agent({ workingDirectory: linkedWork }),
      );
      expect(resolved.realPath).toBe(path.join(work, 'sub', 'b.txt'));
      expect(toReportedPath(resolved.realPath, agent({ workingDirectory: linkedWork }))).toBe(
        'sub/b.txt',
      );
    } finally {
      rmSync(linkedWork);
    }
  });
});

describe('resolveAndValidatePath: allowed and denied paths', () => {
  const entry = (p: string, enabled = true) => ({ path: p, enabled });

  test('with allowed paths set, the real path must be inside one', async () => {
    const context = agent({
      restrictToWorkingDirectory: false,
      parameters: { allowedPaths: [entry(work)] },
    });
    expect((await resolveAndValidatePath('a.txt', context)).exists).toBe(true);
    for (const input of [
      path.join(root, 'w2', 'x.txt'),
      'link-out-file',
      'link-out-dir/new/file',
    ]) {
      const error = await refusal(resolveAndValidatePath(input, context));
      expect(error.details?.rule).toBe('allowedPaths');
      expect(error.message).toContain('allowedPaths');
    }
  });

  test('disabled entries are ignored', async () => {
    const onlyDisabled = agent({
      restrictToWorkingDirectory: false,
      parameters: {
        allowedPaths: [entry(path.join(root, 'w2'), false)],
        deniedPaths: [entry(outside, false)],
      },
    });
    // the only allowed entry is disabled: no allow-list applies, and the disabled deny does not refuse
    expect((await resolveAndValidatePath(path.join(outside, 'o.txt'), onlyDisabled)).exists).toBe(
      true,
    );
  });

  test('deny wins over allow', async () => {
    const context = agent({
      parameters: { allowedPaths: [entry(work)], deniedPaths: [entry(path.join(work, 'secret'))] },
    });
    const error = await refusal(resolveAndValidatePath('secret/key.txt', context));
    expect(error.details?.rule).toBe('deniedPaths');
    expect(error.message).toContain('denied path');
    expect((await resolveAndValidatePath('sub/b.txt', context)).exists).toBe(true);
  });

  test('a link into a denied path is refused', async () => {
    const context = agent({ parameters: { deniedPaths: [entry(path.join(work, 'secret'))] } });
    for (const input of ['link-secret/key.txt', 'link-secret', 'link-secret/new-file']) {
      const error = await refusal(resolveAndValidatePath(input, context));
      expect(error.details?.rule).toBe('deniedPaths');
    }
  });

  test('a denied entry that is itself a link denies its target too', async () => {
    const context = agent({ parameters: { deniedPaths: [entry(path.join(work, 'link-secret'))] } });
    const error = await refusal(resolveAndValidatePath('secret/key.txt', context));
    expect(error.details?.rule).toBe('deniedPaths');
  });

  test('denied entries are segment-aware', async () => {
    const context = agent({
      restrictToWorkingDirectory: false,
      parameters: { deniedPaths: [entry(work)] },
    });
    expect((await resolveAndValidatePath(path.join(root, 'w2', 'x.txt'), context)).exists).toBe(
      true,
    );
    expect((await refusal(resolveAndValidatePath(work, context))).details?.rule).toBe(
      'deniedPaths',
    );
  });

  test('entries are ~-expanded and relative entries resolve against the working directory', async () => {
    const home = agent({
      restrictToWorkingDirectory: false,
      parameters: { deniedPaths: [entry('~')] },
    });
    expect((await refusal(resolveAndValidatePath('~/anything', home))).details?.rule).toBe(
      'deniedPaths',
    );
    const relative = agent({ parameters: { deniedPaths: [entry('secret')] } });
    expect((await refusal(resolveAndValidatePath('secret/key.txt', relative))).details?.rule).toBe(
      'deniedPaths',
    );
  });

  test('plain-string entries from an old stored row still apply', async () => {
    const context = agent({ parameters: { deniedPaths: [path.join(work, 'secret')] } });
    expect((await refusal(resolveAndValidatePath('secret/key.txt', context))).details?.rule).toBe(
      'deniedPaths',
    );
  });

  test('order: allowed is checked before denied, containment last', async () => {
    const context = agent({
      parameters: {
        allowedPaths: [entry(outside)],
        deniedPaths: [entry(path.join(work, 'secret'))],
      },
    });
    // outside the allowed list and denied: the allowed rule answers first
    expect((await refusal(resolveAndValidatePath('secret/key.txt', context))).details?.rule).toBe(
      'allowedPaths',
    );
    // allowed and not denied, but outside the working directory: containment answers
    expect(
      (await refusal(resolveAndValidatePath(path.join(outside, 'o.txt'), context))).details?.rule,
    ).toBe('containment');
  });
});

describe('createPathFilter', () => {
  test('applies the same rules to real paths', async () => {
    const filter = await createPathFilter(
      agent({ parameters: { deniedPaths: [{ path: path.join(work, 'secret'), enabled: true }] } }),
    );
    expect(filter(path.join(work, 'a.txt'))).toBe(true);
    expect(filter(path.join(work, 'secret', 'key.txt'))).toBe(false);
    expect(filter(path.join(outside, 'o.txt'))).toBe(false);
    expect(filter(path.join(root, 'w2', 'x.txt'))).toBe(false);
    const open = await createPathFilter(agent({ mode: 'chat' }));
    expect(open(path.join(outside, 'o.txt'))).toBe(true);
  });

  test('allowsEverythingBelow holds only where no rule reaches into the directory', async () => {
    const denySecret = await createPathFilter(
      agent({ parameters: { deniedPaths: [{ path: path.join(work, 'secret'), enabled: true }] } }),
    );
    expect(denySecret.allowsEverythingBelow(path.join(work, 'sub'))).toBe(true);
    // A denied path below it, at it, or above it.
    expect(denySecret.allowsEverythingBelow(work)).toBe(false);
    expect(denySecret.allowsEverythingBelow(path.join(work, 'secret'))).toBe(false);
    // Outside the working directory (containment), or on the sibling-prefix trick.
    expect(denySecret.allowsEverythingBelow(outside)).toBe(false);
    expect(denySecret.allowsEverythingBelow(path.join(root, 'w2'))).toBe(false);
    expect(denySecret.allowsEverythingBelow(root)).toBe(false);

    const allowSub = await createPathFilter(
      agent({
        mode: 'chat',
        parameters: { allowedPaths: [{ path: path.join(work, 'sub'), enabled: true }] },
      }),
    );
    expect(allowSub.allowsEverythingBelow(path.join(work, 'sub'))).toBe(true);
    // Only part of the working directory is allowed.
    expect(allowSub.allowsEverythingBelow(work)).toBe(false);
    expect(allowSub.allowsEverythingBelow(`${work}/sub/../sub`)).toBe(false);

    const chat = await createPathFilter(agent({ mode: 'chat' }));
    expect(chat.allowsEverythingBelow(outside)).toBe(true);
  });

  test('allowsEverythingBelow never trusts a directory holding the server data directory', async () => {
    const dataDirectory = path.join(work, 'sub', 'data');
    const filter = await createPathFilter({ ...agent(), protectedPaths: [dataDirectory] });
    expect(filter.allowsEverythingBelow(path.join(work, 'sub'))).toBe(false);
    expect(filter.allowsEverythingBelow(dataDirectory)).toBe(false);
    expect(filter.allowsEverythingBelow(path.join(work, 'secret'))).toBe(true);
  });
});

describe('createReportedPathBuilder', () => {
  test('answers exactly what toReportedPath answers for each walk entry', () => {
    const entries = ['a.txt', 'sub/b.txt', 'deep/er/c.ts', 'x y/ü.md'];
    const contexts: Array<[string, PathPolicyContext]> = [
      ['agent', agent()],
      ['chat (no directory)', agent({ mode: 'chat' })],
      ['agent, unrestricted', agent({ restrictToWorkingDirectory: false })],
    ];
    const bases = [work, path.join(work, 'sub'), path.join(root, 'w2'), root, outside, '/'];
    for (const [label, context] of contexts) {
      for (const base of bases) {
        const build = createReportedPathBuilder(base, context);
        for (const entry of entries) {
          const absolute = `${base === '/' ? '' : base}/${entry}`;
          expect([label, base, build(entry)]).toEqual([
            label,
            base,
            toReportedPath(absolute, context),
          ]);
        }
      }
    }
    expect(createReportedPathBuilder(path.join(work, 'sub'), agent())('b.txt')).toBe('sub/b.txt');
    expect(createReportedPathBuilder(work, agent())('b.txt')).toBe('b.txt');
  });
});

describe('toReportedPath', () => {
  test('relative inside the working directory, absolute outside or without one', () => {
    expect(toReportedPath(path.join(work, 'sub', 'b.txt'), agent())).toBe('sub/b.txt');
    expect(toReportedPath(work, agent())).toBe('.');
    expect(toReportedPath(path.join(root, 'w2', 'x.txt'), agent())).toBe(
      path.join(root, 'w2', 'x.txt'),
    );
    expect(toReportedPath(path.join(work, 'a.txt'), agent({ mode: 'chat' }))).toBe(
      path.join(work, 'a.txt'),
    );
  });

  test('a reported path resolves back to the same file', async () => {
    const reported = toReportedPath(path.join(work, 'sub', 'b.txt'), agent());
    expect((await resolveAndValidatePath(reported, agent())).realPath).toBe(
      path.join(work, 'sub', 'b.txt'),
    );
  });
});

describe('binary sniff', () => {
  test('a NUL inside the first 8 KiB is binary, one past it is not', () => {
    const inside = new Uint8Array(BINARY_SNIFF_BYTES + 10).fill(0x61);
    inside[BINARY_SNIFF_BYTES - 1] = 0;
    expect(BINARY_SNIFF_BYTES).toBe(8192);
    expect(looksBinary(inside)).toBe(true);
    const past = new Uint8Array(BINARY_SNIFF_BYTES + 10).fill(0x61);
    past[BINARY_SNIFF_BYTES] = 0;
    expect(looksBinary(past)).toBe(false);
    expect(looksBinary(new Uint8Array(0))).toBe(false);
  });
});
