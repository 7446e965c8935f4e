import { describe, expect, test } from 'bun:test';
import {
  isProcessTableAvailable,
  readLastPid,
} from '../../../../../../src/services/tools/builtin/shell/process-table';

describe('readLastPid: the last pid the kernel handed out', () => {
  test.if(isProcessTableAvailable())(
    'reads afresh on every call, though the file stays open between calls',
    async () => {
      const before = readLastPid();
      expect(before).toBeGreaterThan(0);
      for (let round = 0; round < 3; round++) {
        const child = Bun.spawn(['true'], { stdio: ['ignore', 'ignore', 'ignore'] });
        await child.exited;
        // Other processes may start meanwhile, so the value is at least the child's pid
        // (or, after the numbers wrapped around, smaller than the value before).
        const after = readLastPid() as number;
        expect(after >= child.pid || after < (before as number)).toBe(true);
        expect(after).not.toBe(before);
      }
    },
  );

  test.if(isProcessTableAvailable())('the open file is not handed to commands', async () => {
    readLastPid();
    const child = Bun.spawn(['sh', '-c', 'ls -l /proc/self/fd/'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const listing = await new Response(child.stdout).text();
    await child.exited;
    expect(listing).toContain('/dev/null');
    expect(listing).not.toContain('ns_last_pid');
  });
});
