/**
 * The cost of one `echo hi` through the bash tool (executeTool → path policy →
 * environment filter → own process group → capture → tree cleanup) against a
 * bare `Bun.spawn` of the same command reading both pipes, measured in the
 * same run, interleaved so both see the same machine load. Prints the time
 * the tool adds (difference of the medians; target: at most 0.5 ms) and the
 * ratio of the medians, with the load average, and the CPU time this process
 * spends per call on each side (the children's own time is not counted).
 *
 * Both sides are warmed up first (`WARMUP` calls each, 500 by default): for
 * the first few hundred calls the JIT compiles the tool's path on its own
 * threads, which take the second core from the child that is starting, and
 * the tool's added time is then 0.2–0.4 ms higher than what a running server
 * pays (docs/tools/shell.md#benchmark).
 *
 *   npm run bench:shell            (ROUNDS=300 WARMUP=1000 npm run bench:shell to change the counts)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryFreshnessLedger, executeTool } from '../apps/api/src/services/tools';
import { getSandboxStatus } from '../apps/api/src/services/tools/builtin/shell/bubblewrap-sandbox';
import type { ToolCallContext } from '../apps/api/src/services/tools/types';
import { numberFromEnv } from './env-options';
import { memoryProbeNsPerRead } from './memory-probe';

const ROUNDS = numberFromEnv('ROUNDS', 200);
const WARMUP = numberFromEnv('WARMUP', 500);
const bash = Bun.which('bash');
if (!bash) throw new Error('bash is needed for this benchmark');

const context: ToolCallContext = {
  userId: 'bench',
  chatId: 'bench',
  mode: 'chat',
  restrictToWorkingDirectory: false,
  freshness: createMemoryFreshnessLedger(),
};
// The ratio is measured outside the sandbox (an admin's `sandbox: false`), as the bare spawn runs;
// the sandboxed call (the default wherever bubblewrap works) is measured apart below.
const settings = { enabled: true, parameters: { sandbox: false } };
const sandboxedSettings = { enabled: true, parameters: {} };

async function bare(): Promise<string> {
  const child = Bun.spawn([bash as string, '-c', 'echo hi'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const [stdout] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return stdout;
}

async function throughTool(): Promise<string> {
  const result = (await executeTool('bash', { command: 'echo hi' }, context, settings)) as {
    stdout: string;
  };
  return result.stdout;
}

/** CPU time of this process (user + system, µs) spent inside each side's calls. */
const cpuMicros = new Map<() => Promise<string>, number>();

async function time(task: () => Promise<string>): Promise<number> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const output = await task();
  const elapsed = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  cpuMicros.set(task, (cpuMicros.get(task) ?? 0) + cpu.user + cpu.system);
  if (output !== 'hi\n') throw new Error(`unexpected output ${JSON.stringify(output)}`);
  return elapsed;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

for (let index = 0; index < WARMUP; index++) {
  await time(bare);
  await time(throughTool);
}
cpuMicros.clear();
const bareTimes: number[] = [];
const toolTimes: number[] = [];
for (let index = 0; index < ROUNDS; index++) {
  // Alternate the order so neither side always runs right after the other.
  if (index % 2 === 0) {
    bareTimes.push(await time(bare));
    toolTimes.push(await time(throughTool));
  } else {
    toolTimes.push(await time(throughTool));
    bareTimes.push(await time(bare));
  }
}
const bareMedian = median(bareTimes);
const toolMedian = median(toolTimes);
const ratio = toolMedian / bareMedian;
console.log(
  `echo hi, ${ROUNDS} rounds each after ${WARMUP} warm-up calls each (medians; load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')})`,
);
console.log(`  bare Bun.spawn:  ${bareMedian.toFixed(2)} ms`);
console.log(`  bash tool:       ${toolMedian.toFixed(2)} ms`);
console.log(`  added:           ${(toolMedian - bareMedian).toFixed(2)} ms (target <= 0.50 ms)`);
console.log(`  overhead ratio:  ${ratio.toFixed(2)}×`);
// The server's own CPU per call (the child's is not counted): steadier than the wall-clock medians,
// which move by ±0.1 ms from run to run with the spawn's own variance.
const bareCpu = (cpuMicros.get(bare) ?? 0) / ROUNDS;
const toolCpu = (cpuMicros.get(throughTool) ?? 0) / ROUNDS;
console.log(
  `  server CPU/call: bare ${bareCpu.toFixed(0)} µs, tool ${toolCpu.toFixed(0)} µs (+${(toolCpu - bareCpu).toFixed(0)} µs)`,
);

// For information: the same call under containment, inside the bubblewrap sandbox when it works here.
const sandbox = await getSandboxStatus();
if (sandbox.available) {
  const directory = mkdtempSync(join(tmpdir(), 'bench-shell-'));
  const contained: ToolCallContext = {
    ...context,
    mode: 'agent',
    workingDirectory: directory,
    restrictToWorkingDirectory: true,
  };
  const sandboxed = async () =>
    (
      (await executeTool('bash', { command: 'echo hi' }, contained, sandboxedSettings)) as {
        stdout: string;
      }
    ).stdout;
  const times: number[] = [];
  for (let index = 0; index < Math.min(ROUNDS, 50); index++) times.push(await time(sandboxed));
  rmSync(directory, { recursive: true, force: true });
  console.log(
    `  sandboxed tool:  ${median(times).toFixed(2)} ms (${(median(times) / bareMedian).toFixed(2)}× bare; informational)`,
  );
} else {
  console.log(`  sandboxed tool:  not measured (${sandbox.reason})`);
}

// How fast this process read memory, last (docs/operations.md#a-slow-process): a slow one runs the tool's
// JavaScript slower, and the tool's added time with it.
console.log(
  `  this process:    ${memoryProbeNsPerRead().toFixed(1)} ns per random read over 64 MiB (bench/memory-probe.ts)`,
);
