import { afterAll, describe, expect, test } from 'bun:test';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
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
import type { WriteFileResult } from '../../../../../src/services/tools/builtin/write-file';
import { writeFileTool } from '../../../../../src/services/tools/builtin/write-file';
import {
  createMemoryFreshnessLedger,
  ToolAbortedError,
} from '../../../../../src/services/tools/index';
import {
  callTool,
  containmentEscapes,
  createContext,
  createFsFixture,
  denySecret,
  type FsFixture,
  failure,
} from '../../../../support/fs-tool-fixture';

const fixture: FsFixture = createFsFixture('write-file');
let counter = 0;

afterAll(() => {
  fixture.remove();
});

/** A fresh directory inside the working directory for one test. */
function scratch(): { dir: string; rel: (name: string) => string; abs: (name: string) => string } {
  counter += 1;
  const rel = `t${counter}`;
  const dir = path.join(fixture.work, rel);
  mkdirSync(dir);
  return { dir, rel: (name) => `${rel}/${name}`, abs: (name) => path.join(dir, name) };
}

function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function session(options: Parameters<typeof createContext>[1] = {}) {
  const context = createContext(fixture, { freshness: createMemoryFreshnessLedger(), ...options });
  return {
    context,
    write: (args: Record<string, unknown>) =>
      callTool<WriteFileResult>('write_file', args, context),
    read: (args: Record<string, unknown>) =>
      callTool<Record<string, unknown>>('read_file', args, context),
  };
}

describe('write_file: creating files', () => {
  test('creates a file with its missing parents, verbatim', async () => {
    const { rel, abs } = scratch();
    const { write } = session();
    const content = 'line one\r\nline two\n\ttabbed ü 😀';
    const result = await write({ path: rel('a/b/c.txt'), content });
    expect(result).toEqual({
      path: rel('a/b/c.txt'),
      bytesWritten: Buffer.byteLength(content),
      created: true,
      sha256: sha256(content),
    });
    expect(readFileSync(abs('a/b/c.txt'), 'utf8')).toBe(content);
  });

  test('empty content makes an empty file', async () => {
    const { rel, abs } = scratch();
    const result = await session().write({ path: rel('empty.txt'), content: '' });
    expect(result).toMatchObject({ bytesWritten: 0, created: true, sha256: sha256('') });
    expect(statSync(abs('empty.txt')).size).toBe(0);
  });

  test('leaves no temp files behind', async () => {
    const { rel, dir } = scratch();
    const { write } = session();
    await write({ path: rel('one.txt'), content: '1' });
    await write({ path: rel('one.txt'), content: '2' });
    expect(readdirSync(dir)).toEqual(['one.txt']);
  });

  test('two chats creating one path at once: exactly one creates, the other must read first', async () => {
    const { rel, abs } = scratch();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, index) =>
        session({ chatId: `chat-${index}` }).write({
          path: rel('race.txt'),
          content: `writer ${index}\n`,
        }),
      ),
    );
    const created = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(created.length).toBe(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(outcome.reason.code).toBe('file_not_read');
    }
    const winner = (created[0] as PromiseFulfilledResult<WriteFileResult>).value;
    expect(sha256(readFileSync(abs('race.txt')))).toBe(winner.sha256);
  });
});

describe('write_file: the read-before-overwrite guard', () => {
  test('an unread file is refused with file_not_read and told to read it', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('f.txt'), 'original\n');
    const error = await failure(session().write({ path: rel('f.txt'), content: 'new' }));
    expect(error.code).toBe('file_not_read');
    expect(error.message).toContain('read_file');
    expect(readFileSync(abs('f.txt'), 'utf8')).toBe('original\n');
  });

  test('a partial read is not enough, and the message says where to continue', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('long.txt'), Array.from({ length: 30 }, (_, i) => `${i}\n`).join(''));
    const { write, read } = session();
    await read({ path: rel('long.txt'), maxLines: 10 });
    const error = await failure(write({ path: rel('long.txt'), content: 'x' }));
    expect(error.code).toBe('file_not_read');
    expect(error.message).toContain('startLine=11');
    await read({ path: rel('long.txt'), startLine: 11 });
    expect((await write({ path: rel('long.txt'), content: 'x' })).created).toBe(false);
  });

  test('windows read out of order add up to a complete read', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('w.txt'), 'a\nb\nc\nd\ne\nf\n');
    const { write, read } = session();
    await read({ path: rel('w.txt'), startLine: 5 });
    await read({ path: rel('w.txt'), startLine: 3, maxLines: 1 });
    expect((await failure(write({ path: rel('w.txt'), content: 'x' }))).message).toContain(
      'startLine=1',
    );
    await read({ path: rel('w.txt'), maxLines: 2 });
    // lines 1-3 and 5-6 are covered; line 4 is still missing
    expect((await failure(write({ path: rel('w.txt'), content: 'x' }))).message).toContain(
      'startLine=4',
    );
    await read({ path: rel('w.txt'), startLine: 4, maxLines: 1 });
    expect((await write({ path: rel('w.txt'), content: 'x' })).created).toBe(false);
  });

  test('a file changed since it was read is stale_file', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('s.txt'), 'v1\n');
    const { write, read } = session();
    await read({ path: rel('s.txt') });
    writeFileSync(abs('s.txt'), 'v2 from someone else\n');
    const error = await failure(write({ path: rel('s.txt'), content: 'mine' }));
    expect(error.code).toBe('stale_file');
    expect(error.message).toContain('Read it again');
    expect(readFileSync(abs('s.txt'), 'utf8')).toBe('v2 from someone else\n');
    await read({ path: rel('s.txt') });
    await write({ path: rel('s.txt'), content: 'mine' });
    expect(readFileSync(abs('s.txt'), 'utf8')).toBe('mine');
  });

  test('same size and same mtime with different content is trusted (the fast path)', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('fast.txt'), 'aaaa');
    const { write, read } = session();
    await read({ path: rel('fast.txt') });
    const before = statSync(abs('fast.txt'));
    spawnSync('touch', ['-r', abs('fast.txt'), abs('reference')]);
    writeFileSync(abs('fast.txt'), 'bbbb');
    // put the old mtime back: size and mtime now match the record, so no re-hash happens
    spawnSync('touch', ['-r', abs('reference'), abs('fast.txt')]);
    expect(statSync(abs('fast.txt')).mtimeMs).toBe(before.mtimeMs);
    expect((await write({ path: rel('fast.txt'), content: 'c' })).created).toBe(false);
  });

  test('a touch that changes nothing but the mtime is still fresh (content re-hashed)', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('touched.txt'), 'same\n');
    const { write, read } = session();
    await read({ path: rel('touched.txt') });
    spawnSync('touch', ['-d', '2001-01-01T00:00:00Z', abs('touched.txt')]);
    expect((await write({ path: rel('touched.txt'), content: 'new\n' })).created).toBe(false);
  });

  test('a read by another chat does not count', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('other.txt'), 'x\n');
    await session({ chatId: 'reader' }).read({ path: rel('other.txt') });
    expect(
      (await failure(session({ chatId: 'writer' }).write({ path: rel('other.txt'), content: 'y' })))
        .code,
    ).toBe('file_not_read');
  });

  test('sequential writes after one read all succeed', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('seq.txt'), 'start\n');
    const { write, read } = session();
    await read({ path: rel('seq.txt') });
    for (let round = 1; round <= 4; round += 1) {
      await write({ path: rel('seq.txt'), content: `round ${round}\n` });
    }
    expect(readFileSync(abs('seq.txt'), 'utf8')).toBe('round 4\n');
  });

  test('a file this chat created can be overwritten without reading it', async () => {
    const { rel } = scratch();
    const { write } = session();
    await write({ path: rel('mine.txt'), content: 'first' });
    expect((await write({ path: rel('mine.txt'), content: 'second' })).created).toBe(false);
  });
});

describe('write_file: binary and non-UTF-8 files', () => {
  test('a binary file asks for a byte view, which then satisfies the guard', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('nul.dat'), Buffer.from('a\0b\n'));
    const { write, read } = session();
    const error = await failure(write({ path: rel('nul.dat'), content: 'text' }));
    expect(error.code).toBe('file_not_read');
    expect(error.message).toContain('view "hex"');
    await read({ path: rel('nul.dat'), view: 'base64' });
    await write({ path: rel('nul.dat'), content: 'now text\n' });
    expect(readFileSync(abs('nul.dat'), 'utf8')).toBe('now text\n');
  });

  test('a binary file over the byte-view cap says the guard cannot be satisfied', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('big.bin'), Buffer.alloc(256 * 1024 + 1, 0));
    const error = await failure(session().write({ path: rel('big.bin'), content: 'x' }));
    expect(error.code).toBe('file_not_read');
    expect(error.message).toContain('cannot overwrite it');
    expect(error.message).toContain('256 KiB');
  });

  test('a text file over 10 MiB says the guard cannot be satisfied', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('huge.txt'), Buffer.alloc(10 * 1024 * 1024 + 1, 0x61));
    const error = await failure(session().write({ path: rel('huge.txt'), content: 'x' }));
    expect(error.code).toBe('file_not_read');
    expect(error.message).toContain('10 MiB');
  });

  test('a file that is not valid UTF-8 is never re-encoded, even after a complete read', async () => {
    const { rel, abs } = scratch();
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);
    writeFileSync(abs('latin1.txt'), latin1);
    const { write, read } = session();
    await read({ path: rel('latin1.txt'), view: 'hex' });
    const error = await failure(write({ path: rel('latin1.txt'), content: 'café\n' }));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('not valid UTF-8');
    expect(readFileSync(abs('latin1.txt')).equals(latin1)).toBe(true);
  });
});

describe('write_file: encodings, line endings and metadata survive', () => {
  test('a CRLF file gets CRLF for content written with LF, byte-exact', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('crlf.txt'), 'one\r\ntwo\r\n');
    const { write, read } = session();
    await read({ path: rel('crlf.txt') });
    await write({ path: rel('crlf.txt'), content: 'uno\ndos\r\ntres\n' });
    expect(readFileSync(abs('crlf.txt')).equals(Buffer.from('uno\r\ndos\r\ntres\r\n'))).toBe(true);
  });

  test('an LF file keeps the content exactly as sent', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('lf.txt'), 'one\ntwo\n');
    const { write, read } = session();
    await read({ path: rel('lf.txt') });
    await write({ path: rel('lf.txt'), content: 'a\r\nb\n' });
    expect(readFileSync(abs('lf.txt'), 'utf8')).toBe('a\r\nb\n');
  });

  test('a UTF-8 BOM is kept and never doubled', async () => {
    const { rel, abs } = scratch();
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    writeFileSync(abs('bom.txt'), Buffer.concat([bom, Buffer.from('old\n')]));
    const { write, read } = session();
    await read({ path: rel('bom.txt') });
    const result = await write({ path: rel('bom.txt'), content: 'new\n' });
    const expected = Buffer.concat([bom, Buffer.from('new\n')]);
    expect(readFileSync(abs('bom.txt')).equals(expected)).toBe(true);
    expect(result.sha256).toBe(sha256(expected));
    await write({ path: rel('bom.txt'), content: '\uFEFFagain\n' });
    expect(readFileSync(abs('bom.txt')).equals(Buffer.concat([bom, Buffer.from('again\n')]))).toBe(
      true,
    );
  });

  test('a CRLF file with a BOM round-trips byte-exact through read and write', async () => {
    const { rel, abs } = scratch();
    const original = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('α\r\nβ\r\n')]);
    writeFileSync(abs('round.txt'), original);
    const { write, read } = session();
    const shown = (await read({ path: rel('round.txt') })) as { content: string };
    const content = shown.content
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => `${line.split('\t')[1]}\n`)
      .join('');
    await write({ path: rel('round.txt'), content });
    expect(readFileSync(abs('round.txt')).equals(original)).toBe(true);
  });

  test('UTF-16 files are rewritten in UTF-16 with their BOM', async () => {
    const { rel, abs } = scratch();
    writeFileSync(
      abs('u16.txt'),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hi\r\n', 'utf16le')]),
    );
    const { write, read } = session();
    await read({ path: rel('u16.txt') });
    await write({ path: rel('u16.txt'), content: 'olá\n' });
    const expected = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('olá\r\n', 'utf16le')]);
    expect(readFileSync(abs('u16.txt')).equals(expected)).toBe(true);
  });

  test('permission bits are kept', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('script.sh'), '#!/bin/sh\n');
    chmodSync(abs('script.sh'), 0o751);
    const { write, read } = session();
    await read({ path: rel('script.sh') });
    await write({ path: rel('script.sh'), content: '#!/bin/sh\necho hi\n' });
    expect(statSync(abs('script.sh')).mode & 0o7777).toBe(0o751);
  });
});

describe('write_file: what it refuses to write to', () => {
  test('a symbolic link, even one pointing inside the working directory', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('real.txt'), 'real\n');
    symlinkSync('real.txt', abs('alias.txt'));
    const { write, read } = session();
    await read({ path: rel('real.txt') });
    const error = await failure(write({ path: rel('alias.txt'), content: 'x' }));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('symbolic link');
    expect(error.message).toContain(rel('real.txt'));
    expect(lstatSync(abs('alias.txt')).isSymbolicLink()).toBe(true);
    expect(readFileSync(abs('real.txt'), 'utf8')).toBe('real\n');
  });

  test('a broken link inside the working directory', async () => {
    const { rel, abs } = scratch();
    symlinkSync('nothing-here.txt', abs('dangling'));
    const error = await failure(session().write({ path: rel('dangling'), content: 'x' }));
    expect(error.message).toContain('symbolic link');
    expect(existsSync(abs('nothing-here.txt'))).toBe(false);
  });

  test('a directory, a FIFO', async () => {
    const { rel, abs } = scratch();
    mkdirSync(abs('dir'));
    spawnSync('mkfifo', [abs('fifo')]);
    const { write } = session();
    expect((await failure(write({ path: rel('dir'), content: 'x' }))).message).toContain(
      'directory',
    );
    expect((await failure(write({ path: rel('fifo'), content: 'x' }))).message).toContain('fifo');
  });

  test('a path that goes through a regular file', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('file'), 'x');
    expect(
      (await failure(session().write({ path: rel('file/child.txt'), content: 'x' }))).code,
    ).toBe('validation_failed');
  });
});

describe('write_file: concurrency', () => {
  test('concurrent overwrites of one path are serialised and each lands whole', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('busy.txt'), 'start\n');
    const { write, read } = session();
    await read({ path: rel('busy.txt') });
    const contents = Array.from({ length: 8 }, (_, index) => `${String(index).repeat(50_000)}\n`);
    const results = await Promise.all(
      contents.map((content) => write({ path: rel('busy.txt'), content })),
    );
    expect(results.every((result) => result.created === false)).toBe(true);
    expect(contents).toContain(readFileSync(abs('busy.txt'), 'utf8'));
    expect(readdirSync(path.dirname(abs('busy.txt')))).toEqual(['busy.txt']);
  });
});

describe('write_file: cancellation', () => {
  test('a call cancelled before it writes changes nothing', async () => {
    const { rel, abs } = scratch();
    writeFileSync(abs('keep.txt'), 'keep\n');
    const { context, read } = session();
    await read({ path: rel('keep.txt') });
    const controller = new AbortController();
    controller.abort(new ToolAbortedError());
    const cancelled = { ...context, parameters: {}, signal: controller.signal };
    for (const name of ['keep.txt', 'new.txt']) {
      const error = await failure(
        writeFileTool.execute({ path: rel(name), content: 'changed' }, cancelled),
      );
      expect(error.code).toBe('aborted');
    }
    expect(readFileSync(abs('keep.txt'), 'utf8')).toBe('keep\n');
    expect(existsSync(abs('new.txt'))).toBe(false);
  });
});

describe('write_file: containment and path policy', () => {
  for (const [name, input] of [
    ...containmentEscapes(fixture),
    ['link into a denied path', 'link-secret/new.txt'],
    ['a denied path', 'secret/key.txt'],
  ]) {
    test(`refuses ${name}`, async () => {
      const error = await failure(
        callTool(
          'write_file',
          { path: input, content: 'x' },
          createContext(fixture),
          denySecret(fixture),
        ),
      );
      expect(error.code).toBe('permission_denied');
    });
  }

  test('nothing was written outside', () => {
    expect(readdirSync(fixture.outside)).toEqual(['o.txt']);
    expect(readFileSync(path.join(fixture.outside, 'o.txt'), 'utf8')).toBe('outside\n');
    expect(readdirSync(path.join(fixture.work, 'secret'))).toEqual(['key.txt']);
  });

  test('chat mode refuses relative paths', async () => {
    expect(
      (await failure(session({ mode: 'chat' }).write({ path: 'rel.txt', content: 'x' }))).code,
    ).toBe('validation_failed');
  });
});

describe('write_file: arguments (docs/tool-system.md#tool-arguments)', () => {
  test('wrong types, unknown names and missing arguments are rejected', async () => {
    const { write } = session();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ path: 7, content: 'x' }, 'path'],
      [{ path: 'a.txt', content: 5 }, 'content'],
      [{ path: 'a.txt', content: null }, 'content'],
      [{ path: 'a.txt' }, 'content'],
      [{ content: 'x' }, 'path'],
      [{ path: ' ', content: 'x' }, 'path'],
      [{ path: 'a.txt', content: 'x', force: true }, 'force'],
    ];
    for (const [args, argument] of cases) {
      const error = await failure(write(args));
      expect(error.code).toBe('validation_failed');
      expect(error.message).toContain(argument);
    }
  });

  test('the schema passes the strict-mode check', () => {
    expect(isStrictCompatible(toStrictSchema(writeFileTool.definition.parameters))).toBe(true);
  });
});
