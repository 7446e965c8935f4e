/**
 * The bash/zsh tools end to end with real processes: disabled by default,
 * arguments, the environment the command sees, `cwd` through the path policy,
 * the bubblewrap sandbox under containment, and how the execution layer's
 * budget and the tool's own timer meet.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  executeTool,
  getTool,
  type ShellCommandResult,
  ToolError,
} from '../../../../../../src/services/tools';
import { getSandboxStatus } from '../../../../../../src/services/tools/builtin/shell/bubblewrap-sandbox';
import { findShellInterpreter } from '../../../../../../src/services/tools/builtin/shell/shell-interpreters';
import {
  buildShellTool,
  SANDBOX_SWITCHED_OFF_REASON,
  sandboxRequiredReason,
} from '../../../../../../src/services/tools/builtin/shell/shell-tool';
import type { ToolCallContext } from '../../../../../../src/services/tools/types';
import { createPidJanitor, isRunning, pidsIn } from '../../../../../support/processes';
import { createTestCallContext, createTestToolContext } from '../../../../../support/tool-context';
import { waitUntil } from '../../../../../support/wait-until';

const janitor = createPidJanitor();

/** Pids of running processes whose command line holds `argument`. */
function runningWithArgument(argument: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').includes(argument);
      } catch {
        return false;
      }
    })
    .filter(isRunning);
}
let root: string;
let workspace: string;
let outside: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'shell-tool-')));
  workspace = path.join(root, 'workspace');
  outside = path.join(root, 'outside');
  mkdirSync(path.join(workspace, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(workspace, 'file.txt'), 'x');
});

afterAll(() => {
  janitor.killLeftovers();
  rmSync(root, { recursive: true, force: true });
});

const enabled = (parameters: Record<string, unknown> = {}) => ({ enabled: true, parameters });

async function call(
  args: unknown,
  overrides: Partial<ToolCallContext> = {},
  parameters: Record<string, unknown> = {},
  shell = 'bash',
): Promise<ShellCommandResult> {
  return (await executeTool(
    shell,
    args,
    createTestCallContext(overrides),
    enabled(parameters),
  )) as ShellCommandResult;
}

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected a ToolError');
}

const agent = (extra: Partial<ToolCallContext> = {}): Partial<ToolCallContext> => ({
  mode: 'agent',
  workingDirectory: workspace,
  restrictToWorkingDirectory: true,
  ...extra,
});

describe('shell tools: availability and arguments', () => {
  test('disabled by default: a call without saved settings is tool_disabled', async () => {
    const error = await failure(
      executeTool('bash', { command: 'echo hi' }, createTestCallContext()),
    );
    expect(error.code).toBe('tool_disabled');
  });

  test('bash runs the command with bash', async () => {
    const result = await call({ command: 'echo $BASH_VERSION' });
    expect(result.shell).toBe('bash');
    expect(result.stdout).toMatch(/^\d+\.\d+/);
  });

  // zsh is optional: where it is installed the tool runs it; where it is not,
  // the tool does not exist and a call to it is refused like any unknown tool.
  const zshExecutable = Bun.which('zsh');
  test(
    zshExecutable
      ? 'zsh is installed here: the zsh tool runs the command with zsh'
      : 'zsh is not installed here: there is no zsh tool, and a call to it is unknown_tool',
    async () => {
      if (zshExecutable) {
        const zsh = await call({ command: 'echo $ZSH_VERSION' }, {}, {}, 'zsh');
        expect(zsh.shell).toBe('zsh');
        expect(zsh.stdout).toMatch(/^\d+\.\d+/);
        return;
      }
      expect(getTool('zsh')).toBeUndefined();
      const error = await failure(call({ command: 'echo $ZSH_VERSION' }, {}, {}, 'zsh'));
      expect(error.code).toBe('unknown_tool');
    },
  );

  test.each([
    [{}, 'Missing required argument "command"'],
    [{ command: '   ' }, 'must not be blank'],
    [{ command: 42 }, 'must be a string'],
    [{ command: 'echo', timeout: 3 }, 'Unknown argument "timeout"'],
    [{ command: 'echo a\0b' }, 'NUL'],
    [{ command: 'echo', cwd: 7 }, 'must be a string'],
  ])('%j is refused with validation_failed', async (args, message) => {
    const error = await failure(call(args));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain(message);
  });

  test('null cwd means absent', async () => {
    const result = await call({ command: 'pwd', cwd: null });
    expect(result.stdout.trim()).toBe(realpathSync(process.cwd()));
  });
});

describe('shell tools: environment', () => {
  const saved = { ...process.env };
  beforeAll(() => {
    process.env.OPENAI_API_KEY = 'sk-from-the-server';
    process.env.DATABASE_URL = 'postgres://mango:hunter2@db/mango';
    process.env.SHELL_TEST_TOKEN = 'token-of-a-tool';
    process.env.SHELL_TEST_ORDINARY = 'ordinary-value';
    process.env.PAGER = 'less';
  });
  afterAll(() => {
    for (const name of [
      'OPENAI_API_KEY',
      'DATABASE_URL',
      'SHELL_TEST_TOKEN',
      'SHELL_TEST_ORDINARY',
      'PAGER',
    ]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  test("OPENAI_API_KEY in the server's environment is not visible to the command", async () => {
    const result = await call({
      command: 'printenv OPENAI_API_KEY || echo unset; printenv SHELL_TEST_ORDINARY',
    });
    expect(result.stdout).toBe('unset\nordinary-value\n');
  });

  test('allowedEnvVars lets a named secret through, but never the server’s configuration', async () => {
    const result = await call(
      {
        command:
          'printenv SHELL_TEST_TOKEN || echo unset; printenv OPENAI_API_KEY || echo unset; printenv DATABASE_URL || echo unset',
      },
      {},
      { allowedEnvVars: ['SHELL_TEST_TOKEN', 'OPENAI_API_KEY', 'DATABASE_URL'] },
    );
    expect(result.stdout).toBe('token-of-a-tool\nunset\nunset\n');
  });

  test('deniedEnvVars withholds an ordinary variable', async () => {
    const result = await call(
      { command: 'printenv SHELL_TEST_ORDINARY || echo unset' },
      {},
      { deniedEnvVars: ['SHELL_TEST_ORDINARY'] },
    );
    expect(result.stdout).toBe('unset\n');
  });

  test('pagers and git prompts are switched off', async () => {
    const result = await call({ command: 'echo "$PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT"' });
    expect(result.stdout).toBe('cat cat 0\n');
  });
});

describe('shell tools: cwd and the path policy', () => {
  test('agent mode: no cwd runs in the working directory; a relative cwd resolves against it', async () => {
    // Without bubblewrap the sandbox does not change where the command runs.
    expect((await call({ command: 'pwd' }, agent())).stdout.trim()).toBe(workspace);
    const sub = await call({ command: 'pwd', cwd: 'sub' }, agent());
    expect(sub.stdout.trim()).toBe(path.join(workspace, 'sub'));
    expect(sub.cwd).toBe(path.join(workspace, 'sub'));
  });

  test('chat mode: no cwd falls back to the server process directory; a relative cwd is refused', async () => {
    const result = await call({ command: 'pwd' }, { workingDirectory: workspace });
    expect(result.stdout.trim()).toBe(realpathSync(process.cwd()));
    const error = await failure(
      call({ command: 'pwd', cwd: 'sub' }, { workingDirectory: workspace }),
    );
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('"cwd"');
  });

  test('under containment a cwd outside the working directory is refused', async () => {
    for (const cwd of ['..', outside, '/', '~']) {
      const error = await failure(call({ command: 'pwd', cwd }, agent()));
      expect(error.code).toBe('permission_denied');
    }
  });

  test('a symlink inside the working directory pointing outside cannot be used as cwd', async () => {
    const link = path.join(workspace, 'escape');
    symlinkSync(outside, link);
    try {
      const error = await failure(call({ command: 'pwd', cwd: 'escape' }, agent()));
      expect(error.code).toBe('permission_denied');
    } finally {
      rmSync(link);
    }
  });

  test('without containment an outside cwd is allowed', async () => {
    const result = await call(
      { command: 'pwd', cwd: outside },
      agent({ restrictToWorkingDirectory: false }),
    );
    expect(result.stdout.trim()).toBe(outside);
  });

  test('a missing cwd is not_found; a file is validation_failed', async () => {
    expect((await failure(call({ command: 'pwd', cwd: 'nope' }, agent()))).code).toBe('not_found');
    expect((await failure(call({ command: 'pwd', cwd: 'file.txt' }, agent()))).code).toBe(
      'validation_failed',
    );
  });
});

describe('shell tools: the bubblewrap sandbox under containment', () => {
  // The sandbox replaces /tmp with a private, empty one, so the probe of "read
  // only outside the working directory" needs a directory of its own outside
  // /tmp (/var/tmp, made and removed here), and the probe of "private /tmp" a
  // directory of its own under the host's /tmp. Whatever the branch, the
  // command writes nowhere else.
  let sandboxRoot: string;
  let sandboxWorkspace: string;
  let hostTmp: string;
  beforeAll(() => {
    sandboxRoot = realpathSync(mkdtempSync(path.join('/var/tmp', 'shell-sandbox-')));
    sandboxWorkspace = path.join(sandboxRoot, 'workspace');
    mkdirSync(sandboxWorkspace);
    mkdirSync(path.join(sandboxRoot, 'outside'));
    hostTmp = realpathSync(mkdtempSync(path.join('/tmp', 'shell-sandbox-')));
    writeFileSync(path.join(hostTmp, 'seen-on-host'), 'x');
  });
  afterAll(() => {
    rmSync(sandboxRoot, { recursive: true, force: true });
    rmSync(hostTmp, { recursive: true, force: true });
  });

  test('the sandbox status matches the machine: the bwrap on PATH and what its probe says, or "not installed"', async () => {
    const status = await getSandboxStatus();
    const bwrap = Bun.which('bwrap');
    if (bwrap) {
      expect(status.executable).toBe(bwrap);
      if (!status.available) expect(status.reason).toContain('bubblewrap could not');
      return;
    }
    expect(status).toEqual({ available: false, reason: 'bubblewrap (bwrap) is not installed.' });
  });

  test('sandboxed, writes outside the working directory fail and /tmp is private; unsandboxed (bubblewrap missing or unable to run), they land and the result says sandboxed: false', async () => {
    const status = await getSandboxStatus();
    const result = await call(
      {
        command: [
          'echo x > ../outside/escaped && echo outside-written',
          'echo inside > inside.txt && echo inside-written',
          `test -e ${hostTmp}/seen-on-host && echo host-tmp-seen`,
          `mkdir -p ${hostTmp} && echo private > ${hostTmp}/written && echo tmp-written`,
        ].join('; '),
      },
      agent({ workingDirectory: sandboxWorkspace }),
    );
    expect(result.sandboxed).toBe(status.available);
    expect(existsSync(path.join(sandboxWorkspace, 'inside.txt'))).toBe(true);
    if (status.available) {
      expect(result.stdout).toBe('inside-written\ntmp-written\n');
      expect(result.stderr).toContain('Read-only file system');
      expect(existsSync(path.join(sandboxRoot, 'outside', 'escaped'))).toBe(false);
      // The write to /tmp went to the sandbox's own /tmp, not the host's.
      expect(existsSync(path.join(hostTmp, 'written'))).toBe(false);
      return;
    }
    // The documented fallback: containment checks cwd only, not what the command writes.
    expect(result.stdout).toBe('outside-written\ninside-written\nhost-tmp-seen\ntmp-written\n');
    expect(existsSync(path.join(sandboxRoot, 'outside', 'escaped'))).toBe(true);
    expect(existsSync(path.join(hostTmp, 'written'))).toBe(true);
  });

  test('escaped background processes die with the command, sandboxed or not', async () => {
    const status = await getSandboxStatus();
    // A sleep with a unique duration, so it can be found on the host's process table afterwards.
    const duration = `1000.${process.pid}${Date.now() % 100000}`;
    const result = await call(
      { command: `setsid sleep ${duration} >/dev/null 2>&1 & ( sleep ${duration} & ) ; sleep 0.2` },
      agent(),
    );
    expect(result.sandboxed).toBe(status.available);
    expect(result.termination).toBe('exited');
    expect(runningWithArgument(duration)).toEqual([]);
  });

  test('without the sandbox (bubblewrap unavailable), containment binds cwd only, not what the command writes', async () => {
    const tool = buildShellTool(
      findShellInterpreter('bash') as NonNullable<ReturnType<typeof findShellInterpreter>>,
      {
        sandboxStatus: async () => ({ available: false, reason: 'not installed' }),
      },
    );
    const context = createTestToolContext({
      ...agent(),
      parameters: { timeoutSeconds: 30, maxOutputBytes: 102400 },
    });
    const result = (await tool.execute(
      { command: 'echo x > ../outside/unsandboxed && echo written' },
      context,
    )) as ShellCommandResult;
    expect(result.sandboxed).toBe(false);
    expect(result.stdout).toBe('written\n');
    expect(existsSync(path.join(outside, 'unsandboxed'))).toBe(true);
  });
});

describe('shell tools: the sandbox in chat mode, the opt-out, and non-admins', () => {
  // Outside /tmp (the sandbox's /tmp is private): a granted root, a directory beside it, and a
  // stand-in for the server's data directory.
  let base: string;
  let granted: string;
  let beside: string;
  let dataDir: string;
  beforeAll(() => {
    base = realpathSync(mkdtempSync(path.join('/var/tmp', 'shell-chat-sandbox-')));
    granted = path.join(base, 'granted');
    beside = path.join(base, 'beside');
    dataDir = path.join(granted, 'data');
    mkdirSync(dataDir, { recursive: true });
    mkdirSync(beside);
    writeFileSync(path.join(dataDir, 'mango.db'), 'secret rows');
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const probe = () =>
    [
      `echo x > ${beside}/from-chat && echo beside-written`,
      `echo x > ${granted}/in-root && echo root-written`,
      `cat ${dataDir}/mango.db 2>/dev/null; echo`,
    ].join('; ');

  test('chat mode, an admin, default settings: sandboxed wherever bubblewrap works; else the result says why not', async () => {
    const status = await getSandboxStatus();
    const result = await call({ command: probe(), cwd: granted }, { protectedPaths: [dataDir] });
    expect(result.sandboxed).toBe(status.available);
    if (status.available) {
      // The directory it runs in is writable, nothing else; the data directory is hidden.
      expect(result.stdout).toBe('root-written\n\n');
      expect(existsSync(path.join(beside, 'from-chat'))).toBe(false);
      expect(result.unsandboxedReason).toBeUndefined();
      return;
    }
    expect(result.unsandboxedReason).toBe(status.reason as string);
    expect(result.stdout).toBe('beside-written\nroot-written\nsecret rows\n');
  });

  test('an admin may switch the sandbox off: the command runs on the host and the result says so', async () => {
    const result = await call(
      { command: `echo x > ${beside}/unsandboxed && echo written` },
      {},
      { sandbox: false },
    );
    expect(result.sandboxed).toBe(false);
    expect(result.unsandboxedReason).toBe(SANDBOX_SWITCHED_OFF_REASON);
    expect(existsSync(path.join(beside, 'unsandboxed'))).toBe(true);
  });

  test('a non-admin: always sandboxed (the opt-out ignored), writable only in the granted roots; without bubblewrap, refused', async () => {
    const status = await getSandboxStatus();
    const context = { grantedRoots: [granted], protectedPaths: [dataDir] };
    if (!status.available) {
      const error = await failure(
        executeTool('bash', { command: 'echo hi' }, createTestCallContext(context), {
          enabled: true,
          parameters: { sandbox: false },
        }),
      );
      expect(error.code).toBe('tool_unavailable');
      expect(error.message).toContain(sandboxRequiredReason(status));
      return;
    }
    const result = await call({ command: probe() }, context, { sandbox: false });
    expect(result.sandboxed).toBe(true);
    // No cwd: the first granted root.
    expect(result.cwd).toBe(granted);
    expect(result.stdout).toBe('root-written\n\n');
    expect(existsSync(path.join(beside, 'from-chat'))).toBe(false);
    // A cwd outside the roots is refused by the path policy before anything runs.
    const outside = await failure(
      executeTool(
        'bash',
        { command: 'pwd', cwd: beside },
        createTestCallContext(context),
        enabled(),
      ),
    );
    expect(outside.code).toBe('permission_denied');
  });

  test('a non-admin’s shell is listed unavailable exactly when bubblewrap does not work here', async () => {
    const status = await getSandboxStatus();
    const tool = getTool('bash');
    const reason = await tool?.unavailableReason?.({
      userId: 'u',
      hostAccess: { kind: 'granted', roots: [granted] },
    });
    expect(reason).toBe(status.available ? undefined : sandboxRequiredReason(status));
    expect(await tool?.unavailableReason?.({ userId: 'u', hostAccess: { kind: 'admin' } })).toBe(
      undefined,
    );
  });
});

// These read the host's process table, so they run unsandboxed (an admin's `sandbox: false`):
// inside the sandbox the pids printed are the sandbox's own.
describe('shell tools: the execution layer budget', () => {
  test('a command that overruns timeoutSeconds comes back as a timed_out result, children gone', async () => {
    const result = await call(
      { command: 'sleep 100 & echo $!; setsid sleep 100 & echo $!; sleep 100' },
      {},
      { timeoutSeconds: 5, sandbox: false },
    );
    expect(result.sandboxed).toBe(false);
    expect(result.termination).toBe('timed_out');
    const pids = janitor.track(pidsIn(result.stdout));
    expect(pids).toHaveLength(2);
    expect(pids.filter(isRunning)).toEqual([]);
  });

  test('a parent cancel through executeTool is an aborted error, and the command is killed', async () => {
    const controller = new AbortController();
    const marker = path.join(root, 'started');
    const running = failure(
      executeTool(
        'bash',
        { command: `echo $$ > ${marker}; sleep 100` },
        createTestCallContext({ signal: controller.signal }),
        enabled({ sandbox: false }),
      ),
    );
    expect(await waitUntil(() => existsSync(marker), 10_000)).toBe(true);
    controller.abort();
    expect((await running).code).toBe('aborted');
    const [pid] = janitor.track(pidsIn(await Bun.file(marker).text()));
    // The tool kills the tree after the call has already been answered; give it a moment.
    expect(await waitUntil(() => !isRunning(pid as number), 5_000)).toBe(true);
  });
});
