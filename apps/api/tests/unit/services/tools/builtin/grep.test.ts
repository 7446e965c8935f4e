import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import {
  executeTool,
  GrepPatternError,
  getDefaultToolSettings,
  getTool,
  NotFoundError,
  ToolArgumentError,
} from '../../../../../src/services/tools';
import { runGrep } from '../../../../../src/services/tools/builtin/grep';
import { BINARY_SNIFF_BYTES } from '../../../../../src/services/tools/fs/binary';
import { createTempTree, type TempTree } from '../../../../support/temp-tree';
import { createTestCallContext, createTestToolContext } from '../../../../support/tool-context';

let tree: TempTree;

beforeAll(() => {
  tree = createTempTree('grep', {
    'w/src/a.ts': 'const needle = 1;\nnothing here\nexport function needleFinder() {}\n',
    'w/src/b.js': 'NEEDLE upper\nneedle lower\n',
    'w/src/deep/c.ts': 'x\ny\nneedle at three\n',
    'w/docs/readme.md': 'a needle in the docs\n',
    'w/.hidden/h.ts': 'needle hidden\n',
    'w/bom.txt': '\uFEFFneedle first\n',
    'w/crlf.txt': 'one needle\r\ntwo\r\n',
  });
  execFileSync('mkfifo', [tree.at('w/src/fifo')]);
});

afterAll(() => tree.remove());

const agent = (parameters: Record<string, unknown> = {}) =>
  createTestToolContext({
    mode: 'agent',
    workingDirectory: tree.at('w'),
    restrictToWorkingDirectory: true,
    parameters,
  });

describe('grep: searching', () => {
  test('a directory search, in walk order, with paths relative to the working directory', async () => {
    const result = await runGrep({ pattern: 'needle', path: '.' }, agent());
    expect(result).toEqual({
      pattern: 'needle',
      path: '.',
      matches: [
        { file: 'bom.txt', line: 1, text: 'needle first' },
        { file: 'crlf.txt', line: 1, text: 'one needle' },
        { file: 'docs/readme.md', line: 1, text: 'a needle in the docs' },
        { file: 'src/a.ts', line: 1, text: 'const needle = 1;' },
        { file: 'src/a.ts', line: 3, text: 'export function needleFinder() {}' },
        { file: 'src/b.js', line: 2, text: 'needle lower' },
        { file: 'src/deep/c.ts', line: 3, text: 'needle at three' },
      ],
      filesScanned: 6,
      truncated: false,
    });
  });

  test('results are re-anchored from the search root to the working directory', async () => {
    const result = await runGrep({ pattern: 'three', path: 'src/deep' }, agent());
    expect(result.path).toBe('src/deep');
    expect(result.matches).toEqual([{ file: 'src/deep/c.ts', line: 3, text: 'needle at three' }]);
  });

  test('a single file; the BOM is not part of line 1', async () => {
    const result = await runGrep({ pattern: '^needle', path: 'bom.txt' }, agent());
    expect(result.matches).toEqual([{ file: 'bom.txt', line: 1, text: 'needle first' }]);
    expect(result.filesScanned).toBe(1);
  });

  test('caseInsensitive', async () => {
    const result = await runGrep(
      { pattern: 'NEEDLE', path: 'src/b.js', caseInsensitive: true },
      agent(),
    );
    expect(result.matches.map((match) => match.line)).toEqual([1, 2]);
    const exact = await runGrep({ pattern: 'NEEDLE', path: 'src/b.js' }, agent());
    expect(exact.matches.map((match) => match.line)).toEqual([1]);
  });

  test('glob: a name pattern matches at any depth, a path pattern is relative to path', async () => {
    const byName = await runGrep({ pattern: 'needle', path: '.', glob: '*.ts' }, agent());
    expect([...new Set(byName.matches.map((match) => match.file))]).toEqual([
      'src/a.ts',
      'src/deep/c.ts',
    ]);
    const byPath = await runGrep({ pattern: 'needle', path: 'src', glob: 'deep/*.ts' }, agent());
    expect(byPath.matches.map((match) => match.file)).toEqual(['src/deep/c.ts']);
    const negated = await runGrep({ pattern: 'needle', path: 'src', glob: '!*.ts' }, agent());
    expect(negated.matches.map((match) => match.file)).toEqual(['src/b.js']);
  });

  test('dot files are skipped unless includeDotfiles is on', async () => {
    const hidden = await runGrep(
      { pattern: 'hidden', path: '.' },
      agent({ includeDotfiles: true }),
    );
    expect(hidden.matches).toEqual([{ file: '.hidden/h.ts', line: 1, text: 'needle hidden' }]);
    expect((await runGrep({ pattern: 'hidden', path: '.' }, agent())).matches).toEqual([]);
  });

  test('chat mode: an absolute path is required and results are absolute', async () => {
    const chat = createTestToolContext({ workingDirectory: tree.at('w') });
    await expect(runGrep({ pattern: 'x', path: 'src' }, chat)).rejects.toBeInstanceOf(
      ToolArgumentError,
    );
    const result = await runGrep({ pattern: 'three', path: tree.at('w/src') }, chat);
    expect(result.matches).toEqual([
      { file: tree.at('w/src/deep/c.ts'), line: 3, text: 'needle at three' },
    ]);
  });

  test('results are the same on every run (order does not depend on which worker finished first)', async () => {
    const many = createTempTree('grep-many');
    try {
      for (let index = 0; index < 400; index++) {
        many.add({
          [`d${index % 9}/f${index}.txt`]: `${'filler\n'.repeat(index % 50)}hit ${index}\n`,
        });
      }
      const context = createTestToolContext({ mode: 'agent', workingDirectory: many.root });
      const first = await runGrep({ pattern: 'hit', path: '.' }, context);
      expect(first.matches.length).toBe(100);
      expect(first.truncated).toBe(true);
      const files = first.matches.map((match) => match.file);
      expect(files).toEqual([...files].sort());
      for (let run = 0; run < 3; run++) {
        expect(await runGrep({ pattern: 'hit', path: '.' }, context)).toEqual(first);
      }
    } finally {
      many.remove();
    }
  });
});

describe('grep: several searches at once', () => {
  test('each answers what it answers alone, whatever the others and a slow first file do', async () => {
    const many = createTempTree('grep-concurrent');
    try {
      // A large file first in walk order keeps one worker busy while the rest race ahead.
      many.add({ 'a/big.txt': `${'line with a hit in it\n'.repeat(200_000)}last hit\n` });
      for (let index = 0; index < 1200; index++) {
        many.add({
          [`b${index % 7}/f${String(index).padStart(4, '0')}.txt`]: `${'filler\n'.repeat(index % 30)}hit ${index}\n${index % 3 === 0 ? 'second hit\n' : ''}`,
        });
      }
      const context = (parameters: Record<string, unknown>) =>
        createTestToolContext({ mode: 'agent', workingDirectory: many.root, parameters });
      const full = context({
        maxResults: 5000,
        maxMatchesPerFile: 3,
        maxFileSizeBytes: 10_000_000,
      });
      const capped = context({});
      const searches = [
        () => runGrep({ pattern: 'hit', path: '.' }, full),
        () => runGrep({ pattern: 'hit \\d+5$', path: '.' }, full),
        () => runGrep({ pattern: 'second', path: '.' }, capped),
        () => runGrep({ pattern: 'hit', path: 'b3' }, capped),
      ];
      const alone = [];
      for (const search of searches) alone.push(await search());
      expect(alone[0]?.matches.length).toBe(1 * 3 + 1200 + 400);
      expect(alone[0]?.filesScanned).toBe(1201);
      const together = await Promise.all([...searches, ...searches].map((search) => search()));
      expect(together).toEqual([...alone, ...alone]);
    } finally {
      many.remove();
    }
  });
});

describe('grep: errors', () => {
  test('an invalid regex is a GrepPatternError (validation_failed) that says what to do', async () => {
    const error = await runGrep({ pattern: 'foo(', path: '.' }, agent()).catch((caught) => caught);
    expect(error).toBeInstanceOf(GrepPatternError);
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('not a valid JavaScript regular expression');
    const inline = await runGrep({ pattern: '(?i)foo', path: '.' }, agent()).catch((c) => c);
    expect(inline).toBeInstanceOf(GrepPatternError);
    expect(inline.message).toContain('caseInsensitive');
  });

  test('a missing path is not_found; a FIFO is refused without being opened', async () => {
    await expect(runGrep({ pattern: 'x', path: 'missing' }, agent())).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(runGrep({ pattern: 'x', path: 'src/fifo' }, agent())).rejects.toBeInstanceOf(
      ToolArgumentError,
    );
  });
});

describe('grep: skipped files', () => {
  let skip: TempTree;
  beforeAll(() => {
    const nulAt = (offset: number) => {
      const bytes = Buffer.alloc(offset + 20, 'needle\n');
      bytes[offset] = 0;
      return bytes;
    };
    skip = createTempTree('grep-skip', {
      'binary-early.bin': nulAt(10),
      'binary-at-edge.bin': nulAt(BINARY_SNIFF_BYTES - 1),
      'text-nul-after-window.txt': nulAt(BINARY_SNIFF_BYTES),
      'exactly-100.txt': `needle${'.'.repeat(93)}\n`,
      'over-100.txt': `needle${'.'.repeat(94)}\n`,
    });
  });
  afterAll(() => skip.remove());

  const context = (parameters: Record<string, unknown> = {}) =>
    createTestToolContext({ mode: 'agent', workingDirectory: skip.root, parameters });

  test('binary files (NUL in the first 8 KiB) and files over maxFileSizeBytes are skipped and counted', async () => {
    const result = await runGrep(
      { pattern: '^needle', path: '.' },
      context({ maxFileSizeBytes: 100, maxMatchesPerFile: 1 }),
    );
    expect(result.matches.map((match) => match.file)).toEqual(['exactly-100.txt']);
    // The size is checked first: only the small binary file is counted as binary.
    expect(result.skippedFiles).toEqual({ binary: 1, tooLarge: 3, unreadable: 0 });
    const roomy = await runGrep(
      { pattern: '^needle', path: '.' },
      context({ maxFileSizeBytes: 1024 * 1024, maxMatchesPerFile: 1 }),
    );
    expect(roomy.matches.map((match) => match.file)).toEqual([
      'exactly-100.txt',
      'over-100.txt',
      'text-nul-after-window.txt',
    ]);
    expect(roomy.skippedFiles).toEqual({ binary: 2, tooLarge: 0, unreadable: 0 });
  });

  test('a single binary or over-size file says why it was not searched', async () => {
    const binary = await runGrep({ pattern: 'needle', path: 'binary-early.bin' }, context());
    expect(binary.filesScanned).toBe(0);
    expect(binary.notes?.[0]).toContain('binary');
    const large = await runGrep(
      { pattern: 'needle', path: 'over-100.txt' },
      context({ maxFileSizeBytes: 100 }),
    );
    expect(large.notes?.[0]).toContain('maxFileSizeBytes');
  });
});

describe('grep: caps', () => {
  let capped: TempTree;
  beforeAll(() => {
    capped = createTempTree('grep-caps', {
      'a.txt': 'm\n'.repeat(30),
      'b.txt': 'm\n'.repeat(3),
      'long.txt': `${'x'.repeat(2000)}MATCH${'y'.repeat(2000)}\n`,
    });
  });
  afterAll(() => capped.remove());
  const context = (parameters: Record<string, unknown> = {}) =>
    createTestToolContext({ mode: 'agent', workingDirectory: capped.root, parameters });

  test('maxMatchesPerFile cuts one file and says so', async () => {
    const result = await runGrep({ pattern: '^m$', path: '.' }, context());
    expect(result.matches.filter((match) => match.file === 'a.txt').length).toBe(20);
    expect(result.matches.filter((match) => match.file === 'b.txt').length).toBe(3);
    expect(result.truncated).toBe(true);
    expect(result.truncatedReason).toContain('maxMatchesPerFile');
  });

  test('maxResults cuts the total and says so; exactly maxResults is not truncated', async () => {
    const cut = await runGrep({ pattern: '^m$', path: '.' }, context({ maxResults: 22 }));
    expect(cut.matches.length).toBe(22);
    // Whichever file the directory lists first gives all its lines (at most 20), the other the rest;
    // each file's lines are its first ones, and the answer is in path order.
    const a = cut.matches.filter((match) => match.file === 'a.txt').map((match) => match.line);
    const b = cut.matches.filter((match) => match.file === 'b.txt').map((match) => match.line);
    expect(a.length + b.length).toBe(22);
    expect(a).toEqual(Array.from({ length: a.length }, (_, index) => index + 1));
    expect(b).toEqual(Array.from({ length: b.length }, (_, index) => index + 1));
    expect(cut.matches.map((match) => match.file)).toEqual([
      ...a.map(() => 'a.txt'),
      ...b.map(() => 'b.txt'),
    ]);
    expect(cut.truncated).toBe(true);
    expect(cut.truncatedReason).toContain('maxResults');
    const exact = await runGrep(
      { pattern: '^m$', path: '.' },
      context({ maxResults: 33, maxMatchesPerFile: 30 }),
    );
    expect(exact.matches.length).toBe(33);
    expect(exact.truncated).toBe(false);
  });

  test('a capped search takes the first lines in the order the file system lists the files, and answers in path order', async () => {
    const listed = createTempTree(
      'grep-order',
      Object.fromEntries(
        Array.from({ length: 40 }, (_, index) => [
          `f${String(index).padStart(2, '0')}.txt`,
          'hit\n',
        ]),
      ),
    );
    try {
      const inListedOrder = readdirSync(listed.root);
      const run = () =>
        runGrep(
          { pattern: 'hit', path: '.' },
          createTestToolContext({
            mode: 'agent',
            workingDirectory: listed.root,
            parameters: { maxResults: 10 },
          }),
        );
      const first = await run();
      expect(first.truncated).toBe(true);
      const files = first.matches.map((match) => match.file);
      expect(files).toEqual([...inListedOrder.slice(0, 10)].sort());
      // The same tree gives the same lines, call after call.
      expect((await run()).matches).toEqual(first.matches);
      // Uncapped, every file, in path order whatever order the directory lists them in.
      const all = await runGrep(
        { pattern: 'hit', path: '.' },
        createTestToolContext({ mode: 'agent', workingDirectory: listed.root }),
      );
      expect(all.matches.map((match) => match.file)).toEqual([...inListedOrder].sort());
    } finally {
      listed.remove();
    }
  });

  test('a matched line over 500 characters is cut around the match and marked', async () => {
    const result = await runGrep({ pattern: 'MATCH', path: 'long.txt' }, context());
    const [match] = result.matches;
    expect(match?.textTruncated).toBe(true);
    expect(match?.text).toContain('MATCH');
    expect(match?.text.length).toBeLessThanOrEqual(502);
  });
});

describe('grep: a catastrophic pattern', () => {
  test('ends at its time budget with a reason while the server keeps answering', async () => {
    const evil = createTempTree('grep-evil', {
      'evil.txt': `${'a'.repeat(4000)}!\n`.repeat(40),
      'fine.txt': 'aaa\n',
    });
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('ok') });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    let answered = 0;
    let searching = true;
    const pinging = (async () => {
      while (searching) {
        if ((await (await fetch(`http://127.0.0.1:${server.port}/`)).text()) === 'ok') answered++;
      }
    })();
    try {
      const context = createTestToolContext({ mode: 'agent', workingDirectory: evil.root });
      const result = await runGrep({ pattern: '(a+)+$', path: '.' }, context, {
        timeBudgetMs: 300,
      });
      searching = false;
      await pinging;
      expect(result.truncated).toBe(true);
      expect(result.truncatedReason).toContain('time budget');
      expect(result.truncatedReason).toContain('evil.txt');
      expect(answered).toBeGreaterThan(2);
      expect(ticks).toBeGreaterThan(2);
      // The pool recovers: the next search works normally.
      const after = await runGrep({ pattern: '^a+$', path: 'fine.txt' }, context);
      expect(after.matches).toEqual([{ file: 'fine.txt', line: 1, text: 'aaa' }]);
    } finally {
      searching = false;
      clearInterval(timer);
      server.stop(true);
      evil.remove();
    }
  });
});

describe('grep: cancel', () => {
  test('a cancelled call is aborted at once, and the next search works', async () => {
    const evil = createTempTree('grep-cancel', {
      'evil.txt': `${'a'.repeat(4000)}!\n`.repeat(40),
      'fine.txt': 'aaa\n',
    });
    try {
      const controller = new AbortController();
      const context = createTestCallContext({
        mode: 'agent',
        workingDirectory: evil.root,
        signal: controller.signal,
      });
      const running = executeTool('grep', { pattern: '(a+)+$', path: '.' }, context);
      setTimeout(() => controller.abort(), 50);
      const error = (await running.catch((caught) => caught)) as { code?: string };
      expect(error.code).toBe('aborted');
      const after = (await executeTool(
        'grep',
        { pattern: '^a+$', path: 'fine.txt' },
        createTestCallContext({ mode: 'agent', workingDirectory: evil.root }),
      )) as { matches: unknown[] };
      expect(after.matches).toEqual([{ file: 'fine.txt', line: 1, text: 'aaa' }]);
    } finally {
      evil.remove();
    }
  });
});

describe('grep: registration', () => {
  test('settings defaults', () => {
    const tool = getTool('grep');
    if (!tool) throw new Error('grep is not registered');
    expect(getDefaultToolSettings(tool).parameters).toEqual({
      allowedPaths: [],
      deniedPaths: [],
      maxResults: 100,
      maxMatchesPerFile: 20,
      maxFileSizeBytes: 1024 * 1024,
      includeDotfiles: false,
    });
  });

  test('runs through executeTool', async () => {
    const result = (await executeTool(
      'grep',
      { pattern: 'three', path: 'src' },
      createTestCallContext({ mode: 'agent', workingDirectory: tree.at('w') }),
    )) as { matches: unknown[] };
    expect(result.matches).toEqual([{ file: 'src/deep/c.ts', line: 3, text: 'needle at three' }]);
  });
});
