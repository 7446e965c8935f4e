/**
 * The filesystem tools against the command-line tools that are the practical
 * limit, on one deterministic synthetic monorepo (bench/fs-synthetic-tree.ts,
 * about 15,000 files and 70 MB) built in a temp directory by this same run.
 * Each tool call runs in this warm process through executeTool (path policy
 * included); each baseline is a fresh process reading its whole output. Runs
 * are interleaved so both sides see the same machine load; the table shows
 * medians and the ratio ours / baseline (lower is better).
 *
 *   npm run bench:fs                (ROUNDS=21 npm run bench:fs for more samples)
 *
 * Needs ripgrep (`rg`) and fd (`fdfind` on Debian, `fd` elsewhere).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMemoryFreshnessLedger, executeTool, getTool } from '../apps/api/src/services/tools';
import type { StoredToolSettings, ToolCallContext } from '../apps/api/src/services/tools/types';
import { buildSyntheticTree } from './fs-synthetic-tree';

const ROUNDS = Number(process.env.ROUNDS ?? 11);
const WARMUP = 2;
const rg = Bun.which('rg');
const fd = Bun.which('fdfind') ?? Bun.which('fd');
if (!rg || !fd) {
  console.error('This benchmark needs ripgrep and fd: apt-get install ripgrep fd-find');
  process.exit(1);
}

interface Case {
  label: string;
  target: string;
  ours: () => Promise<number>;
  baseline: string[];
  /** Compare the result counts (both sides find the same lines or paths). */
  sameCount: boolean;
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function runBaseline(command: string[], cwd: string): Promise<number> {
  const child = Bun.spawn(command, { cwd, stdout: 'pipe', stderr: 'ignore' });
  const output = await new Response(child.stdout).text();
  await child.exited;
  let lines = 0;
  for (let index = output.indexOf('\n'); index !== -1; index = output.indexOf('\n', index + 1)) {
    lines++;
  }
  return lines;
}

async function timed(task: () => Promise<number>): Promise<[number, number]> {
  const started = performance.now();
  const count = await task();
  return [performance.now() - started, count];
}

const root = mkdtempSync(path.join(tmpdir(), 'mango-bench-fs-'));
try {
  const buildStarted = performance.now();
  const tree = buildSyntheticTree(root);
  console.log(
    `synthetic tree: ${tree.files} files, ${tree.directories} directories, ${(tree.bytes / 1e6).toFixed(1)} MB (built in ${((performance.now() - buildStarted) / 1000).toFixed(1)} s)`,
  );

  const context: ToolCallContext = {
    userId: 'bench',
    chatId: 'bench',
    mode: 'agent',
    workingDirectory: root,
    restrictToWorkingDirectory: true,
    freshness: createMemoryFreshnessLedger(),
  };
  const call = async (name: string, args: unknown, saved?: StoredToolSettings) => {
    const result = (await executeTool(name, args, context, saved)) as {
      matches?: unknown[];
      endLine?: number;
    };
    return result.matches?.length ?? result.endLine ?? 0;
  };
  // The full scan: no practical result cap, every file size read_file's text view accepts.
  const fullScan = {
    parameters: {
      maxResults: 5000,
      maxMatchesPerFile: 1000,
      maxFileSizeBytes: 10 * 1024 * 1024,
      includeDotfiles: true,
    },
  };
  const literal = tree.rareLiteral;
  const regex = 'function (get|set)\\w+Async\\(';
  const sh = (script: string) => ['sh', '-c', script];

  const cases: Case[] = [
    {
      label: `grep full scan, literal "${literal}"`,
      target: '≤ 1.5×',
      ours: () => call('grep', { pattern: literal, path: '.' }, fullScan),
      baseline: [rg, '-uu', literal],
      sameCount: true,
    },
    {
      label: `grep full scan, regex /${regex}/`,
      target: '≤ 1×',
      ours: () => call('grep', { pattern: regex, path: '.' }, fullScan),
      baseline: [rg, '-uu', `(?-u)${regex}`],
      sameCount: true,
    },
    {
      label: 'grep default caps (100 results, 20 per file)',
      target: '≤ 1×',
      ours: () => call('grep', { pattern: literal, path: '.' }),
      baseline: sh(`${rg} -uu -m 20 ${literal} | head -100`),
      sameCount: true,
    },
    {
      label: 'glob **/*.ts (all of them)',
      target: '≤ 1×',
      ours: () =>
        call(
          'glob',
          { pattern: '**/*.ts' },
          { parameters: { maxResults: 5000, includeDotfiles: true } },
        ),
      baseline: [fd, '-u', '-g', '*.ts'],
      sameCount: true,
    },
    {
      label: 'glob **/*.ts, stops at maxResults 200',
      target: '≤ 10 ms',
      ours: () => call('glob', { pattern: '**/*.ts' }),
      baseline: sh(`${fd} -u -g '*.ts' | head -200`),
      sameCount: true,
    },
  ];
  if (getTool('read_file')) {
    cases.push({
      label: 'read_file 10 MiB text (sha256 + 2000 lines)',
      target: '≤ 1×',
      ours: () => call('read_file', { path: tree.largeTextFile }),
      baseline: sh(
        `sha256sum '${tree.largeTextFile}' >/dev/null && head -2000 '${tree.largeTextFile}' | cat -n`,
      ),
      sameCount: true,
    });
  } else {
    console.log('read_file is not registered: its case is skipped.');
  }

  const rows: string[][] = [];
  for (const benchCase of cases) {
    const ours: number[] = [];
    const theirs: number[] = [];
    let ourCount = 0;
    let theirCount = 0;
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      const [ourTime, ourResult] = await timed(benchCase.ours);
      const [theirTime, theirResult] = await timed(() => runBaseline(benchCase.baseline, root));
      ourCount = ourResult;
      theirCount = theirResult;
      if (round >= WARMUP) {
        ours.push(ourTime);
        theirs.push(theirTime);
      }
    }
    const ourMedian = median(ours);
    const theirMedian = median(theirs);
    rows.push([
      benchCase.label,
      `${ourMedian.toFixed(1)} ms`,
      `${theirMedian.toFixed(1)} ms`,
      `${(ourMedian / theirMedian).toFixed(2)}×`,
      benchCase.target,
      `${ourCount} / ${theirCount}${benchCase.sameCount && ourCount !== theirCount ? ' (differ!)' : ''}`,
    ]);
  }
  const header = ['case', 'ours', 'baseline', 'ratio', 'target', 'results ours / baseline'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] as string).length)),
  );
  const line = (cells: string[]) =>
    cells.map((cell, column) => cell.padEnd(widths[column] as number)).join('  ');
  console.log(`\nmedians of ${ROUNDS} interleaved rounds after ${WARMUP} warm-up rounds\n`);
  console.log(line(header));
  console.log(line(widths.map((width) => '-'.repeat(width))));
  for (const row of rows) console.log(line(row));
  console.log(
    `\nbaselines: ${[
      `rg -uu ${literal}`,
      `rg -uu '(?-u)${regex}'`,
      `rg -uu -m 20 ${literal} | head -100`,
      `${path.basename(fd)} -u -g '*.ts'`,
      `${path.basename(fd)} -u -g '*.ts' | head -200`,
      `sha256sum + head -2000 | cat -n`,
    ].join('; ')}`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
