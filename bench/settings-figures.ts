/**
 * The settings bench's arithmetic (bench/settings-api.ts): its rounds come
 * from several processes, and every figure is taken over all their rounds,
 * so one process that runs slow (docs/operations.md#a-slow-process) is one
 * voice of several rather than the whole result.
 */
import { median } from './load/figures';

/**
 * The bare routes (`ok`, and the very bytes of a settings list), then the
 * settings route for its users: `cookie` and `apiKey` are the server's admin;
 * `granted` a plain user with a granted root, whose shells' availability
 * follows the sandbox's status; `mcp` a plain user with an MCP server of
 * their own, listed from memory.
 */
export const ROUTES = [
  'bare',
  'sameBody',
  'cookie',
  'apiKey',
  'granted',
  'mcpSameBody',
  'mcp',
] as const;
export type Route = (typeof ROUTES)[number];

export const SETTINGS_ROUTES = ['cookie', 'apiKey', 'granted', 'mcp'] as const;
export type SettingsRoute = (typeof SETTINGS_ROUTES)[number];

/** Each settings route's baseline: the bare route answering the same bytes it answers. */
export const BASELINE_OF: Record<SettingsRoute, Route> = {
  cookie: 'sameBody',
  apiKey: 'sameBody',
  granted: 'sameBody',
  mcp: 'mcpSameBody',
};

/** One route loaded for one round. */
export interface RouteLoad {
  requestsPerSecond: number;
  /** CPU time of the servers' process per request, µs. */
  cpuMicrosPerRequest: number;
  /** The same by thread (`main` runs the JavaScript), µs per request. */
  threadMicrosPerRequest: Record<string, number>;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

export type RoundLoads = Record<Route, RouteLoad>;

/** What one process measured: its rounds, and how fast its memory answered afterwards. */
export interface ProcessLoads {
  rounds: RoundLoads[];
  memoryNsPerRead: number;
}

export interface RouteSummary {
  requestsPerSecond: number;
  cpuMicros: number;
  /** Each thread's median µs per request, busiest first. */
  threads: [name: string, micros: number][];
  p99Ms: number;
  failures: number;
}

export interface Ratio {
  median: number;
  lowest: number;
  highest: number;
}

function roundsOf(processes: readonly ProcessLoads[]): RoundLoads[] {
  return processes.flatMap((process) => process.rounds);
}

/** A route's medians over every round of every process. */
export function summariseRoute(processes: readonly ProcessLoads[], route: Route): RouteSummary {
  const loads = roundsOf(processes).map((round) => round[route]);
  const names = [...new Set(loads.flatMap((load) => Object.keys(load.threadMicrosPerRequest)))];
  return {
    requestsPerSecond: median(loads.map((load) => load.requestsPerSecond)),
    cpuMicros: median(loads.map((load) => load.cpuMicrosPerRequest)),
    threads: names
      .map((name): [string, number] => [
        name,
        median(loads.map((load) => load.threadMicrosPerRequest[name] ?? 0)),
      ])
      .sort((a, b) => b[1] - a[1]),
    p99Ms: median(loads.map((load) => load.p99Ms)),
    failures: loads.reduce((sum, load) => sum + load.errors + load.non2xx, 0),
  };
}

/**
 * The route's throughput over the baseline's, taken within each round (both
 * loaded minutes apart at most, in the same process), then the median, the
 * lowest and the highest over every round of every process.
 */
export function throughputRatio(
  processes: readonly ProcessLoads[],
  route: Route,
  baseline: Route,
): Ratio {
  const values = roundsOf(processes).map(
    (round) => round[route].requestsPerSecond / round[baseline].requestsPerSecond,
  );
  return { median: median(values), lowest: Math.min(...values), highest: Math.max(...values) };
}

/** A route's median µs per request on the JavaScript thread within one process. */
export function mainMicros(process: ProcessLoads, route: Route): number {
  return median(process.rounds.map((round) => round[route].threadMicrosPerRequest.main ?? 0));
}

/**
 * The processes whose memory answered within `tolerance` of the fastest one's
 * (1.2: up to 20 % slower), in their order: on a machine where some processes
 * read memory far slower than others, the figures over these are what the
 * server's code costs at the machine's usual speed. Printed beside the figures
 * over all processes, never instead of them.
 */
export function processesAtUsualSpeed<P extends ProcessLoads>(
  processes: readonly P[],
  tolerance = 1.2,
): P[] {
  const fastest = Math.min(...processes.map((process) => process.memoryNsPerRead));
  return processes.filter((process) => process.memoryNsPerRead <= fastest * tolerance);
}
