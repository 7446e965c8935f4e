import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { createLineBatcher, createLogger, LOG_FLUSH_BYTES } from '../../src/logger';

function capture(now: () => number, level: 'debug' | 'info' | 'warn' = 'info') {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level, now, write: (line) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('createLogger', () => {
  test('each line has the time of its own millisecond, also when several share one', () => {
    let clock = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
    const { logger, lines } = capture(() => clock);
    logger.info('a');
    logger.info('b');
    clock += 1;
    logger.info('c');
    clock += 60_000;
    logger.warn('d');
    expect(lines.map((line) => [line.msg, line.time])).toEqual([
      ['a', '2026-01-02T03:04:05.006Z'],
      ['b', '2026-01-02T03:04:05.006Z'],
      ['c', '2026-01-02T03:04:05.007Z'],
      ['d', '2026-01-02T03:05:05.007Z'],
    ]);
  });

  test('fields follow time, level and msg; errors become name, message and stack', () => {
    const { logger, lines } = capture(() => 0);
    const error = new TypeError('bad thing');
    logger.warn('failed', { requestId: 'r1', status: 500, error });
    expect(Object.keys(lines[0] ?? {})).toEqual([
      'time',
      'level',
      'msg',
      'requestId',
      'status',
      'error',
    ]);
    expect(lines[0]).toMatchObject({ level: 'warn', msg: 'failed', requestId: 'r1', status: 500 });
    expect(lines[0]?.error).toEqual({
      name: 'TypeError',
      message: 'bad thing',
      stack: error.stack,
    });
  });

  test('only own fields are written, and levels below the threshold are dropped', () => {
    const { logger, lines } = capture(() => 0, 'info');
    const fields = Object.create({ inherited: 'no' }) as Record<string, unknown>;
    fields.own = 'yes';
    logger.debug('hidden', { own: 'x' });
    logger.info('shown', fields);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'shown', own: 'yes' });
    expect(lines[0]).not.toHaveProperty('inherited');
  });
});

describe('createLineBatcher', () => {
  function batcher() {
    const written: string[] = [];
    const scheduled: (() => void)[] = [];
    const lines = createLineBatcher(
      (text) => written.push(text),
      (flush) => scheduled.push(flush),
    );
    return { lines, written, scheduled };
  }

  test('lines queued before the interval ends are written together, once, when it ends', () => {
    const { lines, written, scheduled } = batcher();
    lines.write('a');
    lines.write('b');
    expect(written).toEqual([]);
    expect(scheduled).toHaveLength(1);
    scheduled[0]?.();
    expect(written).toEqual(['a\nb\n']);
    lines.write('c');
    expect(scheduled).toHaveLength(2);
    scheduled[1]?.();
    expect(written).toEqual(['a\nb\n', 'c\n']);
  });

  test('a line written now goes out at once, after the lines queued before it; nothing is written twice', () => {
    const { lines, written, scheduled } = batcher();
    lines.write('info');
    lines.write('error', true);
    expect(written).toEqual(['info\nerror\n']);
    scheduled[0]?.();
    lines.flush();
    expect(written).toEqual(['info\nerror\n']);
  });

  test('a queue that reaches LOG_FLUSH_BYTES is written without waiting for the interval', () => {
    const { lines, written } = batcher();
    const line = 'x'.repeat(1023);
    for (let index = 0; index < LOG_FLUSH_BYTES / 1024 - 1; index += 1) lines.write(line);
    expect(written).toEqual([]);
    lines.write(line);
    expect(written).toEqual([`${line}\n`.repeat(LOG_FLUSH_BYTES / 1024)]);
  });

  test("the server's logger writes what it holds when the process exits", () => {
    const logger = join(import.meta.dir, '../../src/logger.ts');
    const script = `import { createLogger } from ${JSON.stringify(logger)};
const log = createLogger();
log.info('first');
log.info('second');
process.exit(0);`;
    const child = Bun.spawnSync([process.execPath, '-e', script], { stdout: 'pipe' });
    const lines = child.stdout
      .toString()
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(lines).toEqual(['first', 'second']);
  });
});
