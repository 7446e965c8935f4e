/**
 * The filesystem tools against the command-line tools that are the practical
 * limit, on one deterministic synthetic monorepo (bench/fs-synthetic-tree.ts,
 * about 15,000 files and 70 MB) built in a temp directory by this same run,
 * or on a real tree nobody here wrote: `TREE=real` is this repository's
 * `node_modules` (about 19,000 files of real packages), `TREE=<directory>` any
 * other. On a real tree, grep runs several literal, regex and case-insensitive
 * patterns and its counts are compared with ripgrep's in every round.
 * Each tool call runs in this warm process through executeTool (path policy
 * included); each baseline is a fresh process reading its whole output. Runs
 * are interleaved so both sides see the same machine load; the table shows
 * medians and the ratio ours / baseline (lower is better).
 *
 *   npm run bench:fs                (ROUNDS=21 for more samples, WARMUP=20 for more warm-up rounds per case)
 *   npm run bench:fs:real           (TREE=/some/checkout npm run bench:fs for another tree)
 *
 * Needs ripgrep (`rg`) and fd (`fdfind` on Debian, `fd` elsewhere).
 */
import { lstatSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createMemoryFreshnessLedger, executeTool, getTool } from '../apps/api/src/services/tools';
import type { StoredToolSettings, ToolCallContext } from '../apps/api/src/services/tools/types';
import { numberFromEnv } from './env-options';
import { buildSyntheticTree } from './fs-synthetic-tree';

type SyntheticTree = ReturnType<typeof buildSyntheticTree>;
const SYNTHETIC_REGEX = 'function (get|set)\\w+Async\\(';

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const ROUNDS = numberFromEnv('ROUNDS', 11);
const TREE = process.env.TREE ?? 'synthetic';
const WARMUP = numberFromEnv('WARMUP', 2, { min: 0 });
const rg = Bun.which('rg') ?? '';
const fd = Bun.which('fdfind') ?? Bun.which('fd') ?? '';
if (!rg || !fd) {
  console.error('This benchmark needs ripgrep and fd: apt-get install ripgrep fd-find');
  process.exit(1);
}

/** What one call of ours gave; `count` runs after the timer has stopped. */
interface OurResult {
  count: () => number;
}

interface Case {
  label: string;
  target: string;
  ours: () => Promise<OurResult>;
  baseline: string[];
  /** Compare the result counts (both sides find the same lines or paths). */
  sameCount: boolean;
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

interface Sample {
  wallMs: number;
  /** CPU time of every thread involved (ours: this process; baseline: the child and its children). */
  cpuMs: number;
  count: number;
}

function countLines(output: string): number {
  let lines = 0;
  for (let index = output.indexOf('\n'); index !== -1; index = output.indexOf('\n', index + 1)) {
    lines++;
  }
  return lines;
}

async function runBaseline(command: string[], cwd: string): Promise<Sample> {
  const started = performance.now();
  const child = Bun.spawn(command, { cwd, stdout: 'pipe', stderr: 'ignore' });
  const output = await new Response(child.stdout).text();
  await child.exited;
  const wallMs = performance.now() - started;
  const cpu = child.resourceUsage()?.cpuTime;
  return { wallMs, cpuMs: cpu ? Number(cpu.total) / 1000 : Number.NaN, count: countLines(output) };
}

async function runOurs(task: () => Promise<OurResult>): Promise<Sample> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = await task();
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, count: result.count() };
}

const synthetic = TREE === 'synthetic';
const root = synthetic
  ? mkdtempSync(path.join(tmpdir(), 'mango-bench-fs-'))
  : realpathSync(TREE === 'real' ? path.join(import.meta.dir, '..', 'node_modules') : TREE);
try {
  const buildStarted = performance.now();
  const tree = synthetic ? buildSyntheticTree(root) : undefined;
  // Flush the new files to disk now, so background writeback does not land in a timed case,
  // and read the tree once so both sides start from a warm page cache.
  Bun.spawnSync(['sync']);
  await runBaseline([rg, '-uu', '--count', 'warm-up'], root);
  if (tree)
    console.log(
      `synthetic tree: ${tree.files} files, ${tree.directories} directories, ${(tree.bytes / 1e6).toFixed(1)} MB (built in ${((performance.now() - buildStarted) / 1000).toFixed(1)} s)`,
    );
  else {
    const files = countLines(
      await new Response(
        Bun.spawn([fd, '-u', '-t', 'f', '.', root], { stdout: 'pipe' }).stdout,
      ).text(),
    );
    console.log(`real tree: ${root}, ${files} files`);
  }

  const context: ToolCallContext = {
    userId: 'bench',
    chatId: 'bench',
    mode: 'agent',
    workingDirectory: root,
    restrictToWorkingDirectory: true,
    freshness: createMemoryFreshnessLedger(),
  };
  /**
   * grep follows a symbolic link to a file and reports its lines under the
   * link too (node_modules/.bin/*), while `rg -uu` does not follow links: so
   * that both sides count the same lines, ours counts only the lines of
   * files that are not links. (Links to directories add nothing: the real
   * directory is walked once, under its real path.) Counted after the timer.
   */
  const linkCache = new Map<string, boolean>();
  const isLink = (file: string): boolean => {
    let known = linkCache.get(file);
    if (known === undefined) {
      known = lstatSync(path.join(root, file)).isSymbolicLink();
      linkCache.set(file, known);
    }
    return known;
  };
  const call = async (
    name: string,
    args: unknown,
    saved?: StoredToolSettings,
  ): Promise<OurResult> => {
    const result = (await executeTool(name, args, context, saved)) as {
      matches?: Array<{ file?: string }>;
      endLine?: number;
    };
    return {
      count: () =>
        result.matches
          ? result.matches.filter((match) => match.file === undefined || !isLink(match.file)).length
          : (result.endLine ?? 0),
    };
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
  const sh = (script: string) => ['sh', '-c', script];
  const cases: Case[] = tree ? syntheticCases(tree) : realTreeCases();

  /**
   * The default caps (100 results, at most 20 per file, files up to 1 MB)
   * against two baselines. `rg` stops at the first 100 lines its threads
   * meet, in whatever order they meet them; grep answers the first 100 in
   * walk order (depth first, each directory in the order the file system
   * lists it), so the same call on an unchanged tree always gives the same
   * lines, and must read every file before the 100th. `rg -j1` walks one
   * thread in that same order and is the like-for-like baseline; the
   * unordered one is the practical limit.
   */
  function defaultCaps(pattern: string, name: string): Case[] {
    const capped = `${rg} -uu --max-filesize 1M -m 20 '${pattern}'`;
    const label = `grep default caps (100 results, 20 per file)${name ? `, ${name}` : ''}`;
    const ours = () => call('grep', { pattern, path: '.' });
    return [
      { label, target: '≤ 1×', ours, baseline: sh(`${capped} | head -100`), sameCount: true },
      {
        label: `${label}, vs rg in walk order (one thread)`,
        target: '≤ 1×',
        ours,
        baseline: sh(`${capped} -j1 | head -100`),
        sameCount: true,
      },
    ];
  }

  /** Every `*.ts` file, with a result cap above the tree's count. */
  function globAll(maxResults: number): Case {
    return {
      label: 'glob **/*.ts (all of them)',
      target: '≤ 1×',
      ours: () =>
        call('glob', { pattern: '**/*.ts' }, { parameters: { maxResults, includeDotfiles: true } }),
      baseline: [fd, '-u', '-g', '*.ts'],
      sameCount: true,
    };
  }

  function realTreeCases(): Case[] {
    // rg reads files of any size; grep's full scan stops at 10 MiB, so rg is told the same.
    const rgScan = [rg, '-uu', '--max-filesize', '10M'];
    const literals = ['Symbol.asyncIterator', 'new URL(', 'TODO'];
    const regexes = ['class \\w+Error extends', 'export (async )?function \\w+Sync\\('];
    const insensitive = ['abortsignal', 'econnrefused'];
    return [
      ...literals.map((pattern) => ({
        label: `grep full scan, literal "${pattern}"`,
        target: '≤ 1×',
        ours: () => call('grep', { pattern: escapeRegex(pattern), path: '.' }, fullScan),
        baseline: [...rgScan, '-F', pattern],
        sameCount: true,
      })),
      ...regexes.map((pattern) => ({
        label: `grep full scan, regex /${pattern}/`,
        target: '≤ 1×',
        ours: () => call('grep', { pattern, path: '.' }, fullScan),
        baseline: [...rgScan, `(?-u)${pattern}`],
        sameCount: true,
      })),
      ...insensitive.map((pattern) => ({
        label: `grep full scan, case-insensitive "${pattern}"`,
        target: '≤ 1×',
        ours: () => call('grep', { pattern, path: '.', caseInsensitive: true }, fullScan),
        baseline: [...rgScan, '-i', '-F', pattern],
        sameCount: true,
      })),
      // Where the first 100 lines lie in walk order decides this case, so it runs several
      // everyday patterns, chosen before measuring, not one that happens to match early.
      ...['TODO', 'deprecated', 'Buffer.from'].flatMap((pattern) =>
        defaultCaps(pattern, `"${pattern}"`),
      ),
      globAll(100_000),
    ];
  }

  function syntheticCases(tree: SyntheticTree): Case[] {
    const literal = tree.rareLiteral;
    const regex = 'function (get|set)\\w+Async\\(';
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
        label: `grep full scan, case-insensitive "${literal.toUpperCase()}"`,
        target: '≤ 1×',
        ours: () =>
          call(
            'grep',
            { pattern: literal.toUpperCase(), path: '.', caseInsensitive: true },
            fullScan,
          ),
        baseline: [rg, '-uu', '-i', literal.toUpperCase()],
        sameCount: true,
      },
      ...defaultCaps(literal, ''),
      globAll(5000),
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
        // read_file's window also stops at 100 KiB of numbered text, so it shows fewer lines.
        sameCount: false,
      });
    } else {
      console.log('read_file is not registered: its case is skipped.');
    }
    return cases;
  }

  const rows: string[][] = [];
  for (const benchCase of cases) {
    const ours: Sample[] = [];
    const theirs: Sample[] = [];
    let roundsThatDiffer = 0;
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      const our = await runOurs(benchCase.ours);
      const their = await runBaseline(benchCase.baseline, root);
      if (our.count !== their.count) roundsThatDiffer++;
      if (round >= WARMUP) {
        ours.push(our);
        theirs.push(their);
      }
    }
    const wall = [
      median(ours.map((item) => item.wallMs)),
      median(theirs.map((item) => item.wallMs)),
    ];
    const cpu = [median(ours.map((item) => item.cpuMs)), median(theirs.map((item) => item.cpuMs))];
    const ourCount = ours.at(-1)?.count ?? 0;
    const theirCount = theirs.at(-1)?.count ?? 0;
    rows.push([
      benchCase.label,
      `${(wall[0] as number).toFixed(1)} ms`,
      `${(wall[1] as number).toFixed(1)} ms`,
      `${((wall[0] as number) / (wall[1] as number)).toFixed(2)}×`,
      benchCase.target,
      `${((cpu[0] as number) / (cpu[1] as number)).toFixed(2)}×`,
      `${ourCount} / ${theirCount}${benchCase.sameCount && roundsThatDiffer > 0 ? ` (differ in ${roundsThatDiffer} rounds!)` : ''}`,
    ]);
  }
  const header = [
    'case',
    'ours',
    'baseline',
    'ratio',
    'target',
    'cpu ratio',
    'results ours / baseline',
  ];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] as string).length)),
  );
  const line = (cells: string[]) =>
    cells.map((cell, column) => cell.padEnd(widths[column] as number)).join('  ');
  console.log(
    `\nwall-clock medians of ${ROUNDS} interleaved rounds after ${WARMUP} warm-up rounds; ratio = ours / baseline; cpu ratio = CPU time of all threads, ours / baseline; load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')} on ${availableParallelism()} cores\n`,
  );
  console.log(line(header));
  console.log(line(widths.map((width) => '-'.repeat(width))));
  for (const row of rows) console.log(line(row));
  if (tree)
    console.log(
      `\nbaselines: ${[
        `rg -uu ${tree.rareLiteral}`,
        `rg -uu '(?-u)${SYNTHETIC_REGEX}'`,
        `rg -uu -i ${tree.rareLiteral.toUpperCase()}`,
        `rg -uu --max-filesize 1M -m 20 ${tree.rareLiteral} [-j1] | head -100`,
        `${path.basename(fd)} -u -g '*.ts'`,
        `${path.basename(fd)} -u -g '*.ts' | head -200`,
        `sha256sum + head -2000 | cat -n`,
      ].join('; ')}`,
    );
} finally {
  if (synthetic) rmSync(root, { recursive: true, force: true });
}
