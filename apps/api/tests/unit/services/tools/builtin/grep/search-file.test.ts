import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { FileStatus } from '../../../../../../src/services/tools/builtin/grep/grep-protocol';
import { cutAroundMatch } from '../../../../../../src/services/tools/builtin/grep/match-lines';
import { requiredLiteralsOf } from '../../../../../../src/services/tools/builtin/grep/required-literal';
import {
  compileFileSearch,
  type FileSearchOutcome,
  searchFile,
} from '../../../../../../src/services/tools/builtin/grep/search-file';
import { BINARY_SNIFF_BYTES } from '../../../../../../src/services/tools/fs/binary';
import { createTempTree, type TempTree } from '../../../../../support/temp-tree';

/**
 * The plain definition searchFile must equal: read the whole file, skip it
 * when it is over the cap or has a NUL in its first 8 KiB, decode it as
 * read_file does, split it into lines and test each line on its own with a
 * fresh RegExp.
 */
function reference(
  path: string,
  source: string,
  caseInsensitive: boolean,
  limit: number,
  maxBytes: number,
): unknown {
  const bytes = readFileSync(path);
  if (bytes.length > maxBytes) return { status: FileStatus.tooLarge };
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return { status: FileStatus.binary };
  let text: string;
  if (bytes[0] === 0xff && bytes[1] === 0xfe)
    text = new TextDecoder('utf-16le').decode(bytes.subarray(2));
  else if (bytes[0] === 0xfe && bytes[1] === 0xff)
    text = new TextDecoder('utf-16be').decode(bytes.subarray(2));
  else text = new TextDecoder('utf-8', { ignoreBOM: false }).decode(bytes);
  const lines = text.split('\n');
  if (text.endsWith('\n') || text === '') lines.pop();
  const pattern = new RegExp(source, caseInsensitive ? 'i' : '');
  const matches: Array<{ line: number; text: string; textTruncated?: true }> = [];
  for (let index = 0; index < lines.length && matches.length <= limit; index++) {
    const line = (lines[index] as string).replace(/\r$/, '');
    const match = pattern.exec(line);
    if (!match) continue;
    if (line.length > 500) {
      matches.push({
        line: index + 1,
        text: cutAroundMatch(line, match.index, match[0].length),
        textTruncated: true,
      });
    } else matches.push({ line: index + 1, text: line });
  }
  return { status: FileStatus.scanned, matches };
}

function search(
  path: string,
  source: string,
  caseInsensitive: boolean,
  limit: number,
  maxBytes: number,
): unknown {
  const job = compileFileSearch({
    source,
    caseInsensitive,
    requiredLiterals: requiredLiteralsOf(source, caseInsensitive),
    perFileLimit: limit,
    maxFileSizeBytes: maxBytes,
  });
  const outcome: FileSearchOutcome = searchFile(path, job, () => false);
  if (outcome.status !== FileStatus.scanned) return { status: outcome.status };
  expect(outcome.stopped).toBe(false);
  expect(outcome.slowLines).toEqual([]);
  return { status: outcome.status, matches: outcome.matches };
}

let seed = 11;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

const PIECES = [
  'abc',
  'ABC',
  'aBc',
  'x',
  'new URL(',
  'a.b',
  ' ',
  'é',
  'ß',
  '😀',
  'İ',
  'ſ',
  '\n',
  '\r\n',
];

/** Text of about `length` characters from PIECES, with long lines now and then. */
function generatedText(length: number): string {
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    const piece = random() < 0.02 ? 'q'.repeat(600) : pick(PIECES);
    parts.push(piece);
    size += piece.length;
  }
  return parts.join('');
}

let tree: TempTree;
const files: string[] = [];

beforeAll(() => {
  tree = createTempTree('grep-search-file');
  const spec: Record<string, string | Uint8Array> = {};
  for (let index = 0; index < 40; index++) {
    const text = generatedText(Math.floor(random() * 3000));
    const prefix = index % 7 === 0 ? '\uFEFF' : '';
    spec[`generated-${index}.txt`] = prefix + text;
  }
  // Around the first read (64 KiB): one byte under, at, over; a match only past it.
  const filler = 'filler line without it\n';
  for (const size of [65535, 65536, 65537, 200_000]) {
    const body = filler.repeat(Math.ceil(size / filler.length)).slice(0, size - 12);
    spec[`sized-${size}.txt`] = `${body}abc ABC end\n`;
  }
  // A NUL past the binary window is text; one inside it makes the file binary however large.
  const long = 'abc line\n'.repeat(10_000);
  spec['nul-after-window.txt'] = `${'x'.repeat(BINARY_SNIFF_BYTES)}\0\n${long}`;
  spec['nul-in-window-large.bin'] = `abc\0${long}`;
  spec['nul-in-window-small.bin'] = 'abc\0abc\n';
  spec['utf16.txt'] = Buffer.concat([
    Buffer.from([0xff, 0xfe]),
    Buffer.from('abc\nxABCx\n', 'utf16le'),
  ]);
  spec['invalid-utf8.txt'] = Buffer.from([
    0x61, 0x62, 0x63, 0xe2, 0x28, 0x0a, 0xc3, 0x61, 0x62, 0x63, 0x0a, 0xff, 0x41, 0x42, 0x43,
  ]);
  spec['empty.txt'] = '';
  tree.add(spec);
  files.push(...Object.keys(spec).map((name) => tree.at(name)));
});

afterAll(() => tree.remove());

describe('searchFile equals reading, decoding and testing every line', () => {
  const sources = [
    'abc',
    'ABC',
    'new URL\\(',
    'a\\.b',
    'qqq',
    'abc end',
    'é',
    'b[cC]',
    'ab?c',
    '^abc',
    'abc$',
    '(abc|x)x',
    '\\w+ URL',
  ];

  test('generated and edge-case files, literal and regex patterns, both cases, several caps', () => {
    let compared = 0;
    for (const path of files) {
      for (const source of sources) {
        for (const caseInsensitive of [false, true]) {
          for (const [limit, maxBytes] of [
            [1000, 10 * 1024 * 1024],
            [2, 70_000],
            [5, 65_536],
            [1000, 100],
          ] as const) {
            expect([
              path,
              source,
              caseInsensitive,
              limit,
              maxBytes,
              search(path, source, caseInsensitive, limit, maxBytes),
            ]).toEqual([
              path,
              source,
              caseInsensitive,
              limit,
              maxBytes,
              reference(path, source, caseInsensitive, limit, maxBytes),
            ]);
            compared++;
          }
        }
      }
    }
    expect(compared).toBe(files.length * sources.length * 2 * 4);
  });

  test('the statuses of the edge cases are the ones expected', () => {
    const status = (name: string, maxBytes = 10 * 1024 * 1024) =>
      (search(tree.at(name), 'abc', false, 10, maxBytes) as { status: number }).status;
    expect(status('nul-after-window.txt')).toBe(FileStatus.scanned);
    expect(status('nul-in-window-large.bin')).toBe(FileStatus.binary);
    expect(status('nul-in-window-small.bin')).toBe(FileStatus.binary);
    expect(status('sized-65537.txt', 65_536)).toBe(FileStatus.tooLarge);
    expect(status('sized-65536.txt', 65_536)).toBe(FileStatus.scanned);
    expect(status('sized-200000.txt', 65_536)).toBe(FileStatus.tooLarge);
    // Over the cap and binary: the cap decides, as before the first read was split.
    expect(status('nul-in-window-large.bin', 70_000)).toBe(FileStatus.tooLarge);
    expect(status('missing.txt')).toBe(FileStatus.unreadable);
  });

  test('a match past the first read is found, with its line number', () => {
    const outcome = search(tree.at('sized-200000.txt'), 'abc ABC', false, 10, 10 * 1024 * 1024) as {
      matches: Array<{ line: number }>;
    };
    expect(outcome.matches).toHaveLength(1);
    const text = readFileSync(tree.at('sized-200000.txt'), 'utf8');
    expect(outcome.matches[0]?.line).toBe(text.split('\n').length - 1);
  });
});
