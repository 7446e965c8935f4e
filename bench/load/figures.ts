/** The load bench's arithmetic: percentiles of samples, medians over rounds, how far runs agree. */
import type { RoundResult } from './load-client';

/** The nearest-rank percentile (p in 0–100) of `values`; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return Number.isInteger(middle)
    ? ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
    : (sorted[Math.floor(middle)] as number);
}

export interface Spread {
  min: number;
  /** The 25th percentile (nearest rank). */
  q1: number;
  median: number;
  /** The 75th percentile (nearest rank). */
  q3: number;
  max: number;
}

/**
 * How a figure spreads over the rounds: lowest, quartiles and highest. A
 * median over rounds is only as steady as the rounds near it; quartiles far
 * apart say more rounds will not make runs agree.
 */
export function spreadOf(values: readonly number[]): Spread {
  return {
    min: percentile(values, 0),
    q1: percentile(values, 25),
    median: median(values),
    q3: percentile(values, 75),
    max: percentile(values, 100),
  };
}

export interface LoadCaseFigures {
  concurrency: number;
  rounds: RoundResult[];
  /** Medians over the rounds, ms. */
  turnP50: number;
  turnP99: number;
  directP50: number;
  directP99: number;
  addedP50: number;
  addedP99: number;
  /**
   * Percentiles of every round's samples taken together (p99 of 4,000 turns
   * rather than the median of twenty rounds' second-worst): the steadier figure.
   */
  pooled: { turnP50: number; turnP99: number; directP50: number; directP99: number };
  serverCpuPerTurn: number;
  /** The same by thread, medians over the rounds, busiest first. */
  serverCpuPerTurnByThread: [name: string, ms: number][];
  /** The fake provider's and the load client's CPU per turn and per direct sequence, medians over the rounds, ms. */
  benchCpu: RoundResult['benchCpu'];
  /** The rounds' added p99 from lowest to highest, with its quartiles, ms: how far one round is from the next. */
  addedP99Spread: Spread;
  /** The same figures for each server's own rounds, in the servers' order. */
  byServer: ServerShare[];
  /**
   * Added p50 and p99 by the server's own clock (its turns' stamps against the
   * direct baseline), medians over the rounds; absent on PostgreSQL.
   */
  serverTimed?: { addedP50: number; addedP99: number };
}

/** One server's rounds of a case, medians over them, ms. */
export interface ServerShare {
  rounds: number;
  addedP50: number;
  addedP99: number;
  /** CPU time of the thread that runs the server's JavaScript, per turn. */
  mainThreadPerTurn: number;
}

/** A figure of each round, median over the rounds. */
const medianOver = (rounds: readonly RoundResult[], pick: (round: RoundResult) => number) =>
  median(rounds.map(pick));
const addedP50Of = (round: RoundResult) => round.turn.p50 - round.direct.p50;
const addedP99Of = (round: RoundResult) => round.turn.p99 - round.direct.p99;

function shareOf(rounds: RoundResult[]): ServerShare {
  return {
    rounds: rounds.length,
    addedP50: medianOver(rounds, addedP50Of),
    addedP99: medianOver(rounds, addedP99Of),
    mainThreadPerTurn: medianOver(
      rounds,
      (round) => round.serverCpuPerTurnByThread.main ?? Number.NaN,
    ),
  };
}

export function figuresOf(
  concurrency: number,
  rounds: RoundResult[],
  servers: number,
): LoadCaseFigures {
  const of = (pick: (round: RoundResult) => number) => medianOver(rounds, pick);
  const turns = rounds.flatMap((round) => round.turnSamples);
  const directs = rounds.flatMap((round) => round.directSamples);
  const addedP99s = rounds.map(addedP99Of);
  return {
    concurrency,
    rounds,
    turnP50: of((round) => round.turn.p50),
    turnP99: of((round) => round.turn.p99),
    directP50: of((round) => round.direct.p50),
    directP99: of((round) => round.direct.p99),
    addedP50: of(addedP50Of),
    addedP99: median(addedP99s),
    pooled: {
      turnP50: percentile(turns, 50),
      turnP99: percentile(turns, 99),
      directP50: percentile(directs, 50),
      directP99: percentile(directs, 99),
    },
    serverCpuPerTurn: of((round) => round.serverCpuPerTurn),
    serverCpuPerTurnByThread: [
      ...new Set(rounds.flatMap((round) => Object.keys(round.serverCpuPerTurnByThread))),
    ]
      .map((name): [string, number] => [
        name,
        of((round) => round.serverCpuPerTurnByThread[name] ?? 0),
      ])
      .sort((a, b) => b[1] - a[1]),
    ...(rounds.every((round) => round.serverTimedSamples.length > 0)
      ? {
          serverTimed: {
            addedP50: of((round) => percentile(round.serverTimedSamples, 50) - round.direct.p50),
            addedP99: of((round) => percentile(round.serverTimedSamples, 99) - round.direct.p99),
          },
        }
      : {}),
    addedP99Spread: spreadOf(addedP99s),
    byServer: Array.from({ length: servers }, (_, index) =>
      shareOf(rounds.filter((round) => round.server === index)),
    ),
    benchCpu: {
      fakePerTurn: of((round) => round.benchCpu.fakePerTurn),
      clientPerTurn: of((round) => round.benchCpu.clientPerTurn),
      fakePerDirect: of((round) => round.benchCpu.fakePerDirect),
      clientPerDirect: of((round) => round.benchCpu.clientPerDirect),
    },
  };
}
