import { afterAll, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import {
  isStrictCompatible,
  toStrictSchema,
} from '../../../../../src/services/providers/tool-mapper';
import {
  type EditFileResult,
  editFileTool,
} from '../../../../../src/services/tools/builtin/edit-file';
import { createMemoryFreshnessLedger } from '../../../../../src/services/tools/index';
import {
  callTool,
  containmentEscapes,
  createContext,
  createFsFixture,
  denySecret,
  type FsFixture,
  failure,
} from '../../../../support/fs-tool-fixture';

const fixture: FsFixture = createFsFixture('edit-file');
let counter = 0;

afterAll(() => {
  fixture.remove();
});

function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A file in its own directory, read completely by a fresh chat. */
async function prepared(
  content: string | Uint8Array,
  options: { read?: boolean; view?: 'hex' } = {},
) {
  counter += 1;
  const rel = `e${counter}/file.txt`;
  const abs = path.join(fixture.work, rel);
  mkdirSync(path.dirname(abs));
  writeFileSync(abs, content);
  const context = createContext(fixture, { freshness: createMemoryFreshnessLedger() });
  if (options.read !== false) {
    await callTool(
      'read_file',
      { path: rel, ...(options.view ? { view: options.view } : {}) },
      context,
    );
  }
  return {
    rel,
    abs,
    context,
    edit: (args: Record<string, unknown>) =>
      callTool<EditFileResult>('edit_file', { path: rel, ...args }, context),
    bytes: () => readFileSync(abs),
  };
}

describe('edit_file: replacing', () => {
  test('replaces the single occurrence and reports where', async () => {
    const file = await prepared('one\ntwo\nthree\n');
    const result = await file.edit({ oldString: 'two', newString: 'TWO\nand a half' });
    const expected = 'one\nTWO\nand a half\nthree\n';
    expect(file.bytes().toString()).toBe(expected);
    expect(result).toEqual({
      path: file.rel,
      replacements: 1,
      sha256: sha256(expected),
      firstChangedLine: 2,
    });
  });

  test('an empty newString deletes', async () => {
    const file = await prepared('keep\ndrop me\nkeep\n');
    await file.edit({ oldString: 'drop me\n', newString: '' });
    expect(file.bytes().toString()).toBe('keep\nkeep\n');
  });

  test('replaceAll replaces every occurrence and counts them', async () => {
    const file = await prepared('a x a x a\nx\n');
    const result = await file.edit({ oldString: 'x', newString: 'yy', replaceAll: true });
    expect(file.bytes().toString()).toBe('a yy a yy a\nyy\n');
    expect(result).toMatchObject({ replacements: 3, firstChangedLine: 1 });
  });

  test('replacement text with $ patterns is inserted literally', async () => {
    const file = await prepared('price\n');
    await file.edit({ oldString: 'price', newString: "$& $1 $$ $'" });
    expect(file.bytes().toString()).toBe("$& $1 $$ $'\n");
  });

  test('sequential edits after one read all succeed', async () => {
    const file = await prepared('1\n2\n3\n');
    await file.edit({ oldString: '1', newString: 'one' });
    await file.edit({ oldString: '2', newString: 'two' });
    await file.edit({ oldString: '3', newString: 'three' });
    expect(file.bytes().toString()).toBe('one\ntwo\nthree\n');
  });

  test('concurrent edits of one path are serialised: none is lost', async () => {
    const letters = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const file = await prepared(`${letters.join(' ')}\n`);
    await Promise.all(
      letters.map((letter) => file.edit({ oldString: letter, newString: letter.toUpperCase() })),
    );
    expect(file.bytes().toString()).toBe(`${letters.join(' ').toUpperCase()}\n`);
  });

  test('the atomic write keeps mode bits and leaves no temp file', async () => {
    const file = await prepared('mode\n');
    chmodSync(file.abs, 0o600);
    await file.edit({ oldString: 'mode', newString: 'kept' });
    expect(statSync(file.abs).mode & 0o7777).toBe(0o600);
    expect(readdirSync(path.dirname(file.abs))).toEqual(['file.txt']);
  });
});

describe('edit_file: failed matches say how to fix the call', () => {
  test('no occurrence', async () => {
    const file = await prepared('alpha\n');
    const error = await failure(file.edit({ oldString: 'omega', newString: 'x' }));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('not found');
    expect(error.message).toContain('read_file');
  });

  test('no occurrence because of whitespace, or a copied line-number prefix', async () => {
    const file = await prepared('function f() {\n\treturn 1;\n}\n');
    const spaces = await failure(file.edit({ oldString: '    return 1;', newString: 'x' }));
    expect(spaces.message).toContain('whitespace');
    const prefixed = await failure(file.edit({ oldString: '     2\t\treturn 1;', newString: 'x' }));
    expect(prefixed.message).toContain('line-number prefix');
  });

  test('several occurrences without replaceAll name the lines', async () => {
    const file = await prepared('x\ny\nx\nx\n');
    const error = await failure(file.edit({ oldString: 'x', newString: 'z' }));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('3 times');
    expect(error.message).toContain('lines 1, 3, 4');
    expect(error.message).toContain('replaceAll');
    expect(file.bytes().toString()).toBe('x\ny\nx\nx\n');
  });

  test('identical oldString and newString change nothing', async () => {
    const file = await prepared('same\n');
    expect((await failure(file.edit({ oldString: 'same', newString: 'same' }))).code).toBe(
      'validation_failed',
    );
  });
});

describe('edit_file: byte-exact matching and encodings', () => {
  test('Unicode is matched exactly, without normalisation', async () => {
    const composed = 'caf\u00e9\n';
    const file = await prepared(composed);
    const error = await failure(file.edit({ oldString: 'cafe\u0301', newString: 'bar' }));
    expect(error.message).toContain('normalisation');
    await file.edit({ oldString: 'caf\u00e9', newString: 'bar' });
    expect(file.bytes().toString()).toBe('bar\n');
  });

  test('a CRLF file: LF strings copied from read_file match, and CRLF is written', async () => {
    const file = await prepared('one\r\ntwo\r\nthree\r\n');
    const result = await file.edit({ oldString: 'one\ntwo', newString: 'uno\ndos\nmas' });
    expect(file.bytes().equals(Buffer.from('uno\r\ndos\r\nmas\r\nthree\r\n'))).toBe(true);
    expect(result.firstChangedLine).toBe(1);
    await file.edit({ oldString: 'three\r\n', newString: 'tres\r\n' });
    expect(file.bytes().equals(Buffer.from('uno\r\ndos\r\nmas\r\ntres\r\n'))).toBe(true);
  });

  test('a BOM survives an edit byte-exact', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const file = await prepared(Buffer.concat([bom, Buffer.from('hello\r\nworld\r\n')]));
    await file.edit({ oldString: 'world', newString: 'mundo' });
    expect(file.bytes().equals(Buffer.concat([bom, Buffer.from('hello\r\nmundo\r\n')]))).toBe(true);
  });

  test('UTF-16 files are edited in UTF-16', async () => {
    const encode = (text: string) =>
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const file = await prepared(encode('ab😀cd\n'));
    await file.edit({ oldString: '😀', newString: '🎉' });
    expect(file.bytes().equals(encode('ab🎉cd\n'))).toBe(true);
  });

  test('a binary file read with a byte view can be edited when it is valid UTF-8', async () => {
    const file = await prepared(Buffer.from('head\0tail\n'), { view: 'hex' });
    await file.edit({ oldString: 'tail', newString: 'TAIL' });
    expect(file.bytes().equals(Buffer.from('head\0TAIL\n'))).toBe(true);
  });

  test('a file that is not valid UTF-8 is refused, untouched', async () => {
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);
    const file = await prepared(latin1);
    const error = await failure(file.edit({ oldString: 'caf', newString: 'tea' }));
    expect(error.message).toContain('not valid UTF-8');
    expect(file.bytes().equals(latin1)).toBe(true);
  });
});

describe('edit_file: the guard', () => {
  test('an unread file is file_not_read', async () => {
    const file = await prepared('x\n', { read: false });
    expect((await failure(file.edit({ oldString: 'x', newString: 'y' }))).code).toBe(
      'file_not_read',
    );
  });

  test('a partially read file is file_not_read', async () => {
    const file = await prepared('1\n2\n3\n', { read: false });
    await callTool('read_file', { path: file.rel, maxLines: 1 }, file.context);
    const error = await failure(file.edit({ oldString: '1', newString: 'one' }));
    expect(error.code).toBe('file_not_read');
    expect(error.message).toContain('startLine=2');
  });

  test('a file changed since the read is stale_file', async () => {
    const file = await prepared('v1\n');
    writeFileSync(file.abs, 'v2\n');
    expect((await failure(file.edit({ oldString: 'v', newString: 'w' }))).code).toBe('stale_file');
    expect(file.bytes().toString()).toBe('v2\n');
  });

  test('a missing file is not_found and points to write_file', async () => {
    const file = await prepared('x\n');
    const error = await failure(
      callTool(
        'edit_file',
        { path: 'e-missing/none.txt', oldString: 'a', newString: 'b' },
        file.context,
      ),
    );
    expect(error.code).toBe('not_found');
    expect(error.message).toContain('write_file');
  });

  test('a symbolic link is refused', async () => {
    const file = await prepared('x\n');
    symlinkSync('file.txt', path.join(path.dirname(file.abs), 'alias.txt'));
    const error = await failure(
      callTool(
        'edit_file',
        { path: path.join(path.dirname(file.rel), 'alias.txt'), oldString: 'x', newString: 'y' },
        file.context,
      ),
    );
    expect(error.message).toContain('symbolic link');
  });
});

describe('edit_file: containment and path policy', () => {
  for (const [name, input] of [
    ...containmentEscapes(fixture),
    ['link into a denied path', 'link-secret/key.txt'],
  ]) {
    test(`refuses ${name}`, async () => {
      const error = await failure(
        callTool(
          'edit_file',
          { path: input, oldString: 'o', newString: 'x' },
          createContext(fixture),
          denySecret(fixture),
        ),
      );
      expect(error.code).toBe('permission_denied');
    });
  }

  test('nothing outside changed', () => {
    expect(readFileSync(path.join(fixture.outside, 'o.txt'), 'utf8')).toBe('outside\n');
    expect(readFileSync(path.join(fixture.work, 'secret', 'key.txt'), 'utf8')).toBe('key\n');
  });
});

describe('edit_file: arguments (docs/tool-system.md#tool-arguments)', () => {
  test('wrong types, unknown names and missing arguments are rejected', async () => {
    const context = createContext(fixture);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ path: 'a.txt', oldString: 1, newString: 'x' }, 'oldString'],
      [{ path: 'a.txt', oldString: 'a', newString: false }, 'newString'],
      [{ path: 'a.txt', oldString: 'a', newString: 'b', replaceAll: 'true' }, 'replaceAll'],
      [{ path: 'a.txt', oldString: '', newString: 'b' }, 'oldString'],
      [{ path: 'a.txt', newString: 'b' }, 'oldString'],
      [{ path: 'a.txt', oldString: 'a' }, 'newString'],
      [{ path: 'a.txt', oldString: 'a', newString: 'b', count: 2 }, 'count'],
    ];
    for (const [args, argument] of cases) {
      const error = await failure(callTool('edit_file', args, context));
      expect(error.code).toBe('validation_failed');
      expect(error.message).toContain(argument);
    }
  });

  test('replaceAll null reads as absent (one occurrence required)', async () => {
    const file = await prepared('q q\n');
    expect(
      (await failure(file.edit({ oldString: 'q', newString: 'r', replaceAll: null }))).message,
    ).toContain('2 times');
  });

  test('the schema passes the strict-mode check', () => {
    expect(isStrictCompatible(toStrictSchema(editFileTool.definition.parameters))).toBe(true);
  });
});
