import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import {
  isStrictCompatible,
  toStrictSchema,
} from '../../../../../src/services/providers/tool-mapper';
import {
  BYTE_VIEW_MAX_BYTES,
  type ReadFileResult,
  readFileTool,
  TEXT_VIEW_MAX_BYTES,
} from '../../../../../src/services/tools/builtin/read-file';
import { FileOverCapError, readAllCapped } from '../../../../../src/services/tools/fs/capped-read';
import { MAX_WINDOW_BYTES } from '../../../../../src/services/tools/fs/text-window';
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
import { waitUntil } from '../../../../support/wait-until';

// Created at load time so test names can list the fixture's escape paths.
const fixture: FsFixture = createFsFixture('read-file');
const files = path.join(fixture.work, 'files');
mkdirSync(files);

afterAll(() => {
  fixture.remove();
});

function write(name: string, content: string | Uint8Array): string {
  const file = path.join(files, name);
  writeFileSync(file, content);
  return file;
}

function read(args: Record<string, unknown>, options: Parameters<typeof createContext>[1] = {}) {
  return callTool<ReadFileResult>('read_file', args, createContext(fixture, options));
}

function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function lines(count: number, make: (n: number) => string = (n) => `line ${n}`): string {
  return Array.from({ length: count }, (_, index) => `${make(index + 1)}\n`).join('');
}

describe('read_file: the text view format', () => {
  test('is exactly `cat -n` of the file, with the whole-file metadata', async () => {
    const file = write('three.txt', 'first\n\tsecond\nthird\n');
    const result = await read({ path: 'files/three.txt' });
    const catN = spawnSync('cat', ['-n', file], { encoding: 'utf8' }).stdout;
    expect(result.content).toBe(catN);
    expect(result).toEqual({
      content: '     1\tfirst\n     2\t\tsecond\n     3\tthird\n',
      path: 'files/three.txt',
      size: 20,
      sha256: sha256('first\n\tsecond\nthird\n'),
      totalLines: 3,
      startLine: 1,
      endLine: 3,
      truncated: false,
      encoding: 'utf-8',
      eol: 'lf',
    });
  });

  test('a last line without a newline is shown without one, like cat -n', async () => {
    const file = write('no-newline.txt', 'a\nb');
    const result = await read({ path: file });
    expect(result.content).toBe('     1\ta\n     2\tb');
    expect(result.content).toBe(spawnSync('cat', ['-n', file], { encoding: 'utf8' }).stdout);
    expect(result.totalLines).toBe(2);
  });

  test('a file ending in a newline has no extra empty last line', async () => {
    write('one.txt', 'x\n');
    expect((await read({ path: 'files/one.txt' })).totalLines).toBe(1);
    write('blank-line.txt', '\n');
    const blank = await read({ path: 'files/blank-line.txt' });
    expect(blank.totalLines).toBe(1);
    expect(blank.content).toBe('     1\t\n');
    write('two-blank.txt', 'x\n\n');
    expect((await read({ path: 'files/two-blank.txt' })).totalLines).toBe(2);
  });

  test('an empty file has no lines and says so', async () => {
    write('empty.txt', '');
    const result = await read({ path: 'files/empty.txt' });
    expect(result).toMatchObject({
      content: '',
      size: 0,
      totalLines: 0,
      startLine: 1,
      endLine: 0,
      truncated: false,
    });
    expect(result.sha256).toBe(sha256(''));
    expect(result.note).toContain('empty');
    const error = await failure(read({ path: 'files/empty.txt', startLine: 2 }));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('empty');
  });

  test('line numbers wider than six columns keep the tab separator', async () => {
    write(
      'wide.txt',
      lines(1_000_001, () => ''),
    );
    const result = await read({ path: 'files/wide.txt', startLine: 999_999, maxLines: 3 });
    expect(result.content).toBe('999999\t\n1000000\t\n1000001\t\n');
  });
});

describe('read_file: window arithmetic', () => {
  beforeAll(() => {
    write('ten.txt', lines(10));
    write('big.txt', lines(6000));
  });

  test('startLine and maxLines select an inclusive window', async () => {
    const result = await read({ path: 'files/ten.txt', startLine: 3, maxLines: 4 });
    expect(result.content).toBe('     3\tline 3\n     4\tline 4\n     5\tline 5\n     6\tline 6\n');
    expect(result).toMatchObject({ startLine: 3, endLine: 6, totalLines: 10, truncated: true });
    expect(result.note).toContain('startLine=7');
  });

  test('a window reaching the end is not truncated', async () => {
    const result = await read({ path: 'files/ten.txt', startLine: 8, maxLines: 10 });
    expect(result).toMatchObject({ startLine: 8, endLine: 10, truncated: false });
    expect(result.note).toBeUndefined();
    expect((await read({ path: 'files/ten.txt', startLine: 10 })).content).toBe(
      '    10\tline 10\n',
    );
  });

  test('a startLine past the end is refused with the line count', async () => {
    const error = await failure(read({ path: 'files/ten.txt', startLine: 11 }));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('10 lines');
  });

  test('the default window is 2000 lines and says how to go on', async () => {
    const result = await read({ path: 'files/big.txt' });
    expect(result).toMatchObject({
      startLine: 1,
      endLine: 2000,
      totalLines: 6000,
      truncated: true,
    });
    expect(result.content.split('\n').length).toBe(2001);
    expect(result.note).toContain('startLine=2001');
  });

  test('maxLines goes up to 5000 and no further', async () => {
    const result = await read({ path: 'files/big.txt', maxLines: 5000 });
    expect(result.endLine).toBe(5000);
    expect((await failure(read({ path: 'files/big.txt', maxLines: 5001 }))).code).toBe(
      'validation_failed',
    );
    expect((await failure(read({ path: 'files/big.txt', maxLines: 0 }))).code).toBe(
      'validation_failed',
    );
    expect((await failure(read({ path: 'files/big.txt', startLine: 0 }))).code).toBe(
      'validation_failed',
    );
  });
});

describe('read_file: per-line and per-window limits', () => {
  test('a line over 2000 characters is cut and marked', async () => {
    write('long-line.txt', `${'a'.repeat(2500)}\nshort\n`);
    const result = await read({ path: 'files/long-line.txt' });
    const [first, second] = result.content.split('\n');
    expect(first).toBe(
      `     1\t${'a'.repeat(2000)}… [line truncated: 2000 of 2500 characters shown]`,
    );
    expect(second).toBe('     2\tshort');
    expect(result.truncated).toBe(true);
    expect(result.note).toContain('2000 characters');
  });

  test('the cut never falls inside a surrogate pair', async () => {
    write('emoji-line.txt', `${'a'.repeat(1999)}😀${'b'.repeat(100)}\n`);
    const result = await read({ path: 'files/emoji-line.txt' });
    const text = result.content.slice('     1\t'.length);
    expect(text.startsWith(`${'a'.repeat(1999)}…`)).toBe(true);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(result.content)).toBe(false);
    expect(text).toContain('1999 of 2101 characters shown');
  });

  test('a window stops at the byte limit and says where to continue', async () => {
    write(
      'wide-lines.txt',
      lines(2000, (n) => `${n}:${'x'.repeat(1000)}`),
    );
    const result = await read({ path: 'files/wide-lines.txt' });
    expect(Buffer.byteLength(result.content)).toBeLessThanOrEqual(MAX_WINDOW_BYTES);
    expect(result.endLine).toBeLessThan(2000);
    expect(result.endLine).toBeGreaterThan(50);
    expect(result.truncated).toBe(true);
    expect(result.note).toContain(`startLine=${result.endLine + 1}`);
    expect(result.content.endsWith(`${result.endLine}:${'x'.repeat(1000)}\n`)).toBe(true);
  });
});

describe('read_file: encodings and line endings', () => {
  test('a UTF-8 BOM is reported, not shown and not silently dropped', async () => {
    write('bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo\n')]));
    const result = await read({ path: 'files/bom.txt' });
    expect(result.encoding).toBe('utf-8-bom');
    expect(result.content).toBe('     1\théllo\n');
    expect(result.size).toBe(10);
  });

  test('CRLF files show their lines without CR and report crlf', async () => {
    write('crlf.txt', 'one\r\ntwo\r\n');
    const result = await read({ path: 'files/crlf.txt' });
    expect(result.content).toBe('     1\tone\n     2\ttwo\n');
    expect(result.eol).toBe('crlf');
    write('mixed.txt', 'one\r\ntwo\nthree\n');
    expect((await read({ path: 'files/mixed.txt' })).eol).toBe('mixed');
    write('no-break.txt', 'single');
    expect((await read({ path: 'files/no-break.txt' })).eol).toBe('lf');
  });

  test('UTF-16 files with a BOM are decoded in both byte orders', async () => {
    const text = 'héllo\r\nwörld 😀\r\n';
    const little = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const big = Buffer.from(little);
    big.swap16();
    write('utf16le.txt', little);
    write('utf16be.txt', big);
    for (const [name, encoding] of [
      ['utf16le.txt', 'utf-16le'],
      ['utf16be.txt', 'utf-16be'],
    ]) {
      const result = await read({ path: `files/${name}` });
      expect(result.encoding).toBe(encoding as 'utf-16le');
      expect(result.eol).toBe('crlf');
      expect(result.content).toBe('     1\théllo\n     2\twörld 😀\n');
      expect(result.totalLines).toBe(2);
    }
  });

  test('a file that is not valid UTF-8 is shown with a warning', async () => {
    write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const result = await read({ path: 'files/latin1.txt' });
    expect(result.content).toBe('     1\tcaf\uFFFD\n');
    expect(result.note).toContain('not valid UTF-8');
  });
});

describe('read_file: binary files and byte views', () => {
  test('a NUL byte in the first 8 KiB refuses the text view and names the byte views', async () => {
    write('nul.bin', Buffer.concat([Buffer.from('abc'), Buffer.from([0]), Buffer.from('def\n')]));
    const error = await failure(read({ path: 'files/nul.bin' }));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('"hex"');
    expect(error.message).toContain('"base64"');
  });

  test('a NUL byte past the first 8 KiB does not', async () => {
    const content = Buffer.alloc(8192 + 10, 0x61);
    content[8192] = 0;
    write('late-nul.txt', content);
    expect((await read({ path: 'files/late-nul.txt' })).size).toBe(8202);
  });

  test('hex and base64 return the whole file without line structure', async () => {
    const bytes = Buffer.from([0x00, 0x01, 0x7f, 0xff, 0x0a]);
    write('bytes.bin', bytes);
    const hex = await read({ path: 'files/bytes.bin', view: 'hex' });
    expect(hex).toEqual({
      content: '00017fff0a',
      path: 'files/bytes.bin',
      size: 5,
      sha256: sha256(bytes),
      totalLines: 0,
      startLine: 0,
      endLine: 0,
      truncated: false,
      view: 'hex',
    });
    const base64 = await read({ path: 'files/bytes.bin', view: 'base64' });
    expect(Buffer.from(base64.content, 'base64').equals(bytes)).toBe(true);
    expect(base64.view).toBe('base64');
  });

  test('byte views reject startLine and maxLines instead of dropping them', async () => {
    for (const extra of [{ startLine: 1 }, { maxLines: 10 }]) {
      const error = await failure(read({ path: 'files/bytes.bin', view: 'hex', ...extra }));
      expect(error.code).toBe('validation_failed');
      expect(error.message).toContain('text view only');
    }
    // null is absent, so it is accepted
    expect(
      (await read({ path: 'files/bytes.bin', view: 'base64', startLine: null, maxLines: null }))
        .size,
    ).toBe(5);
  });

  test('text view explicitly named behaves like the default', async () => {
    write('plain.txt', 'p\n');
    expect((await read({ path: 'files/plain.txt', view: 'text' })).content).toBe('     1\tp\n');
  });
});

describe('read_file: caps on delivered bytes', () => {
  test('the text view reads exactly 10 MiB and refuses one byte more', async () => {
    const file = write('ten-mib.txt', '');
    truncateSync(file, TEXT_VIEW_MAX_BYTES);
    // a sparse file is all NUL bytes: give it text at the start
    const handle = await open(file, 'r+');
    await handle.write(Buffer.alloc(8192, 0x61), 0, 8192, 0);
    await handle.close();
    const result = await read({ path: 'files/ten-mib.txt', view: 'text', maxLines: 1 });
    expect(result.size).toBe(TEXT_VIEW_MAX_BYTES);
    appendFileSync(file, 'z');
    const error = await failure(read({ path: 'files/ten-mib.txt' }));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('10 MiB');
  });

  test('byte views read exactly 256 KiB and refuse one byte more', async () => {
    const file = write('cap.bin', Buffer.alloc(BYTE_VIEW_MAX_BYTES, 7));
    expect((await read({ path: 'files/cap.bin', view: 'base64' })).size).toBe(BYTE_VIEW_MAX_BYTES);
    appendFileSync(file, Buffer.from([7]));
    const error = await failure(read({ path: 'files/cap.bin', view: 'hex' }));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('256 KiB');
  });

  test('a file that grows after it was opened is refused at the cap, not read past it', async () => {
    const file = write('growing.bin', Buffer.alloc(100, 1));
    const handle = await open(file, 'r');
    const declared = (await handle.stat()).size;
    appendFileSync(file, Buffer.alloc(200, 2));
    await expect(readAllCapped(handle, 256, declared)).rejects.toBeInstanceOf(FileOverCapError);
    await handle.close();
    const exact = await open(file, 'r');
    expect((await readAllCapped(exact, 300, declared)).length).toBe(300);
    await exact.close();
  });

  test('a file being appended to while read_file runs is refused, never over-read', async () => {
    const file = write('appending.bin', Buffer.alloc(BYTE_VIEW_MAX_BYTES - 64, 3));
    // The chunk it appends lives in the fixture's own directory, like the file.
    const chunk = path.join(fixture.root, 'append-chunk');
    const writer = Bun.spawn(
      [
        'sh',
        '-c',
        'head -c 4096 /dev/zero > "$2"; while :; do cat "$2" >> "$1"; done',
        'sh',
        file,
        chunk,
      ],
      { stdout: 'ignore', stderr: 'ignore' },
    );
    try {
      expect(await waitUntil(() => Bun.file(file).size > BYTE_VIEW_MAX_BYTES, 10_000)).toBe(true);
      const error = await failure(read({ path: 'files/appending.bin', view: 'hex' }));
      expect(error.message).toContain('256 KiB');
    } finally {
      writer.kill('SIGKILL');
      await writer.exited;
    }
  });

  test('a /proc file that declares size 0 is read for what it delivers', async () => {
    const result = await read({ path: '/proc/self/status' }, { mode: 'chat' });
    expect(result.size).toBeGreaterThan(0);
    expect(result.content).toContain('Name:');
  });

  test('a /proc file larger than the byte-view cap is refused at the cap', async () => {
    const error = await failure(read({ path: '/proc/kallsyms', view: 'hex' }, { mode: 'chat' }));
    expect(error.message).toContain('delivers more than');
  });
});

describe('read_file: what is not a regular file', () => {
  let server: Server;
  let socketPath: string;
  beforeAll(async () => {
    socketPath = path.join(files, 'sock');
    server = createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    spawnSync('mkfifo', [path.join(files, 'fifo')]);
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('a FIFO is refused without hanging', async () => {
    const error = await failure(read({ path: 'files/fifo' }));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('fifo');
  });

  test('a socket and /dev/zero are refused', async () => {
    expect((await failure(read({ path: 'files/sock' }))).message).toContain('socket');
    const zero = await failure(read({ path: '/dev/zero' }, { mode: 'chat' }));
    expect(zero.message).toContain('character device');
  });

  test('a directory points to list_directory', async () => {
    const error = await failure(read({ path: 'files' }));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('list_directory');
  });

  test('a missing file suggests similar names', async () => {
    write('config.json', '{}\n');
    write('config.yaml', 'a: 1\n');
    const error = await failure(read({ path: 'files/confg.json' }));
    expect(error.code).toBe('not_found');
    expect(error.message).toContain('"files/config.json"');
    const none = await failure(read({ path: 'files/zzzzqqqq.md' }));
    expect(none.message).not.toContain('Did you mean');
  });

  test('suggestions never name a denied path', async () => {
    const error = await failure(
      callTool('read_file', { path: 'secre' }, createContext(fixture), denySecret(fixture)),
    );
    expect(error.code).toBe('not_found');
    expect(error.message).not.toContain('secret');
  });

  test('a broken link inside the directory says where it points', async () => {
    symlinkSync('nowhere.txt', path.join(files, 'dangling'));
    const error = await failure(read({ path: 'files/dangling' }));
    expect(error.code).toBe('not_found');
    expect(error.message).toContain('symbolic link');
  });
});

describe('read_file: containment and path policy', () => {
  for (const [name, input] of [
    ...containmentEscapes(fixture),
    ['link into a denied path', 'link-secret/key.txt'],
  ]) {
    test(`refuses ${name}`, async () => {
      const error = await failure(
        callTool('read_file', { path: input }, createContext(fixture), denySecret(fixture)),
      );
      expect(error.code).toBe('permission_denied');
    });
  }

  test('NUL bytes and over-long paths are validation_failed', async () => {
    for (const bad of ['a\0b', `${'d/'.repeat(2100)}f`, 'x'.repeat(300)]) {
      expect((await failure(read({ path: bad }))).code).toBe('validation_failed');
    }
  });

  test('chat mode refuses a relative path and reads an absolute one', async () => {
    expect((await failure(read({ path: 'a.txt' }, { mode: 'chat' }))).code).toBe(
      'validation_failed',
    );
    const result = await read({ path: path.join(fixture.outside, 'o.txt') }, { mode: 'chat' });
    expect(result.path).toBe(path.join(fixture.outside, 'o.txt'));
  });
});

describe('read_file: arguments (docs/tool-system.md#tool-arguments)', () => {
  test('wrong types are rejected, naming the argument', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ path: 42 }, 'path'],
      [{ path: 'a.txt', startLine: '3' }, 'startLine'],
      [{ path: 'a.txt', startLine: 1.5 }, 'startLine'],
      [{ path: 'a.txt', maxLines: true }, 'maxLines'],
      [{ path: 'a.txt', view: 'binary' }, 'view'],
      [{ path: 'a.txt', encoding: 'utf-8' }, 'encoding'],
    ];
    for (const [args, argument] of cases) {
      const error = await failure(read(args));
      expect(error.code).toBe('validation_failed');
      expect(error.message).toContain(argument);
    }
  });

  test('a missing or blank path is validation_failed', async () => {
    for (const args of [{}, { path: null }, { path: '' }, { path: '   ' }]) {
      expect((await failure(read(args))).code).toBe('validation_failed');
    }
  });

  test('null reads as absent', async () => {
    const result = await read({ path: 'a.txt', startLine: null, maxLines: null, view: null });
    expect(result.content).toBe('     1\talpha\n');
  });

  test('the schema passes the strict-mode check', () => {
    expect(isStrictCompatible(toStrictSchema(readFileTool.definition.parameters))).toBe(true);
  });
});

describe('read_file: the freshness ledger', () => {
  test('every read records the whole file hash, even a partial window', async () => {
    const freshness = createMemoryFreshnessLedger();
    write('ledger.txt', lines(10));
    const partial = await read({ path: 'files/ledger.txt', maxLines: 4 }, { freshness });
    const record = await freshness.get(path.join(files, 'ledger.txt'));
    expect(record).toMatchObject({
      sha256: partial.sha256,
      complete: false,
      linesCovered: 4,
      totalLines: 10,
    });
    await read({ path: 'files/ledger.txt', startLine: 5 }, { freshness });
    expect(await freshness.get(path.join(files, 'ledger.txt'))).toMatchObject({
      complete: true,
      linesCovered: 10,
    });
  });

  test('a byte view counts as a complete read; a refused read records nothing', async () => {
    const freshness = createMemoryFreshnessLedger();
    await read({ path: 'files/bytes.bin', view: 'hex' }, { freshness });
    expect((await freshness.get(path.join(files, 'bytes.bin')))?.complete).toBe(true);
    await failure(read({ path: 'files/nul.bin' }, { freshness }));
    expect(await freshness.get(path.join(files, 'nul.bin'))).toBeUndefined();
  });
});
