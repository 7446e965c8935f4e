/**
 * Structured logs: one JSON object per line (time, level, msg, and fields), on
 * stdout, so any log collector can parse them. Tests pass their own `write`.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface LoggerOptions {
  level?: LogLevel;
  /** Receives each finished line (without the newline); defaults to stdout. */
  write?: (line: string) => void;
  now?: () => number;
}

function serialiseError(value: unknown): unknown {
  if (!(value instanceof Error)) return value;
  return { name: value.name, message: value.message, stack: value.stack };
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = RANK[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = options.now ?? Date.now;
  // A line is logged for every request, so the time's text is made once per millisecond.
  let lastMs = Number.NaN;
  let lastTime = '';
  const timeOf = (ms: number) => {
    if (ms !== lastMs) {
      lastMs = ms;
      lastTime = new Date(ms).toISOString();
    }
    return lastTime;
  };
  const log =
    (level: Exclude<LogLevel, 'silent'>) =>
    (msg: string, fields: LogFields = {}) => {
      if (RANK[level] < threshold) return;
      const entry: LogFields = { time: timeOf(now()), level, msg };
      for (const key in fields) {
        if (Object.hasOwn(fields, key)) entry[key] = serialiseError(fields[key]);
      }
      write(JSON.stringify(entry));
    };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

/** A logger that drops everything. */
export const silentLogger: Logger = createLogger({ level: 'silent' });
