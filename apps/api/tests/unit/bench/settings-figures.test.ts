/** The settings bench's arithmetic over several processes (bench/settings-figures.ts) and its memory probe. */
import { describe, expect, test } from 'bun:test';
import { memoryProbeNsPerRead } from '../../../../../bench/memory-probe';
import {
  mainMicros,
  type ProcessLoads,
  processesAtUsualSpeed,
  ROUTES,
  type RoundLoads,
  type RouteLoad,
  summariseRoute,
  throughputRatio,
} from '../../../../../bench/settings-figures';

function routeLoad(requestsPerSecond: number, main: number): RouteLoad {
  return {
    requestsPerSecond,
    cpuMicrosPerRequest: main + 2,
    threadMicrosPerRequest: { main, HeapHelper: 0.5 },
    p99Ms: 4,
    errors: 0,
    non2xx: 0,
  };
}

/** A round where every route is served at `rps` except the settings routes, at `settings`. */
function round(rps: number, settings: number, main = 20): RoundLoads {
  const loads = Object.fromEntries(ROUTES.map((route) => [route, routeLoad(rps, main)]));
  return {
    ...loads,
    cookie: routeLoad(settings, main * 2),
    apiKey: routeLoad(settings, main * 2),
    granted: routeLoad(settings, main * 2),
    mcp: routeLoad(settings, main * 2),
  } as RoundLoads;
}

describe('the settings figures over several processes', () => {
  // A fast process and two in which the machine ran the same routes at half the rate.
  const fast: ProcessLoads = {
    rounds: [round(20_000, 18_000), round(22_000, 19_800)],
    memoryNsPerRead: 9,
  };
  const slowA: ProcessLoads = { rounds: [round(10_000, 6_000, 40)], memoryNsPerRead: 16 };
  const slowB: ProcessLoads = { rounds: [round(12_000, 9_600, 40)], memoryNsPerRead: 15 };

  test('a ratio is taken within each round, then the median over every round of every process', () => {
    // Rounds: 0.9, 0.9 (fast), 0.6, 0.8: the median of the four is 0.85.
    const ratio = throughputRatio([fast, slowA, slowB], 'cookie', 'sameBody');
    expect(ratio.median).toBeCloseTo(0.85, 10);
    expect(ratio.lowest).toBeCloseTo(0.6, 10);
    expect(ratio.highest).toBeCloseTo(0.9, 10);
    // Throughputs pooled before dividing would give another figure: 14,300 / 16,000.
    expect(ratio.median).not.toBeCloseTo(14_300 / 16_000, 2);
  });

  test("a route's summary takes medians over all rounds, and adds up failures", () => {
    const failing: ProcessLoads = {
      rounds: [
        { ...round(20_000, 18_000), cookie: { ...routeLoad(18_000, 40), errors: 2, non2xx: 3 } },
      ],
      memoryNsPerRead: 9,
    };
    const summary = summariseRoute([fast, slowA, failing], 'cookie');
    expect(summary.requestsPerSecond).toBe(18_000);
    expect(summary.failures).toBe(5);
    expect(summary.threads).toEqual([
      ['main', 40],
      ['HeapHelper', 0.5],
    ]);
  });

  test("each process's JavaScript thread is read from its own rounds", () => {
    expect(mainMicros(fast, 'cookie')).toBe(40);
    expect(mainMicros(slowA, 'sameBody')).toBe(40);
  });
});

describe('processesAtUsualSpeed', () => {
  const at = (memoryNsPerRead: number): ProcessLoads => ({ rounds: [], memoryNsPerRead });

  test('keeps the processes within 20 % of the fastest, in their order', () => {
    const processes = [at(14.3), at(9.2), at(11.0), at(11.1)];
    expect(processesAtUsualSpeed(processes).map((one) => one.memoryNsPerRead)).toEqual([9.2, 11.0]);
  });

  test('keeps every process when all read at one speed, slow or not', () => {
    expect(processesAtUsualSpeed([at(14.3), at(14.1), at(14.4)])).toHaveLength(3);
  });
});

describe('memoryProbeNsPerRead', () => {
  test('gives a finite, positive time per read', () => {
    const small = memoryProbeNsPerRead({ mebibytes: 1, reads: 200_000, passes: 2 });
    expect(small).toBeGreaterThan(0);
    expect(Number.isFinite(small)).toBe(true);
  });
});
