/**
 * Keeps the server's start-up environment out of its children's reach
 * (docs/security.md#the-servers-secrets). A shell the server starts runs as the
 * server's user, and `/proc/<server pid>/environ` shows the environment the
 * server was started with, whatever the shell's own environment was filtered
 * to. So, once the configuration is read, the server (Linux only):
 *
 * - overwrites, in its own memory, the secret entries of the block that
 *   `/proc/<pid>/environ` reads (Bun keeps its own copy in `process.env`, so
 *   nothing the server reads later changes); this holds for every reader,
 *   root included;
 * - makes itself non-dumpable (`prctl(PR_SET_DUMPABLE, 0)`), so a process of
 *   the same user that is not root can open none of its `/proc` files that
 *   need ptrace access (`environ`, `mem`, `maps`) and cannot attach a debugger.
 *   Root has `CAP_SYS_PTRACE` and is not stopped by this.
 */
import { readFileSync } from 'node:fs';

export interface ProcessProtection {
  /** Names of the entries overwritten in the start-up environment block. */
  scrubbed: string[];
  /** Whether the process is non-dumpable now. */
  nonDumpable: boolean;
  /** What could not be done, for the log. */
  problems: string[];
}

const PR_SET_DUMPABLE = 4;

/** env_start and env_end of /proc/self/stat (fields 50 and 51, Linux 3.5+). */
function environmentBlockBounds(): { start: number; end: number } | undefined {
  const stat = readFileSync('/proc/self/stat', 'latin1');
  // The command name (field 2) may hold spaces and parentheses: count from the last ")".
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[47]);
  const end = Number(fields[48]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start <= 0 || end <= start)
    return undefined;
  return { start, end };
}

async function scrubEnvironmentBlock(isSecret: (name: string) => boolean): Promise<string[]> {
  const bounds = environmentBlockBounds();
  if (!bounds) throw new Error('/proc/self/stat names no environment block');
  const { toArrayBuffer } = await import('bun:ffi');
  // A view of the block itself (on the process's initial stack), not a copy.
  const block = new Uint8Array(
    toArrayBuffer(
      bounds.start as unknown as Parameters<typeof toArrayBuffer>[0],
      0,
      bounds.end - bounds.start,
    ),
  );
  const scrubbed: string[] = [];
  let entryStart = 0;
  for (let index = 0; index <= block.length; index++) {
    if (index < block.length && block[index] !== 0) continue;
    if (index > entryStart) {
      const entry = Buffer.from(block.subarray(entryStart, index)).toString('latin1');
      const name = entry.slice(0, Math.max(0, entry.indexOf('=')));
      if (name !== '' && isSecret(name)) {
        block.fill(0, entryStart, index);
        scrubbed.push(name);
      }
    }
    entryStart = index + 1;
  }
  return scrubbed;
}

async function makeNonDumpable(): Promise<void> {
  const { dlopen, FFIType } = await import('bun:ffi');
  const candidates = ['libc.so.6', 'libc.musl-x86_64.so.1', 'libc.musl-aarch64.so.1'];
  let lastError: unknown;
  for (const name of candidates) {
    try {
      const libc = dlopen(name, {
        prctl: {
          args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64],
          returns: FFIType.i32,
        },
      });
      try {
        const result = libc.symbols.prctl(PR_SET_DUMPABLE, 0n, 0n, 0n, 0n);
        if (result !== 0) throw new Error(`prctl(PR_SET_DUMPABLE, 0) returned ${result}`);
        return;
      } finally {
        libc.close();
      }
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

/** Applies both measures; never throws (a measure that fails is reported in `problems`). */
export async function protectServerProcess(
  isSecret: (name: string) => boolean,
): Promise<ProcessProtection> {
  const protection: ProcessProtection = { scrubbed: [], nonDumpable: false, problems: [] };
  if (process.platform !== 'linux') {
    protection.problems.push(
      `not on Linux (${process.platform}): the environment block is left as it is`,
    );
    return protection;
  }
  try {
    protection.scrubbed = await scrubEnvironmentBlock(isSecret);
  } catch (error) {
    protection.problems.push(
      `the start-up environment could not be scrubbed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    await makeNonDumpable();
    protection.nonDumpable = true;
  } catch (error) {
    protection.problems.push(
      `the process could not be made non-dumpable: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return protection;
}
