/**
 * Reading a Chrome trace (bench only): the renderers' main threads, the self
 * time of trace events inside a span, and the V8 CPU samples the trace carries
 * (category `disabled-by-default-v8.cpu_profiler`) summed up by function.
 */
export interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  /** Thread (CPU) time of the event: what it cost, however long the thread waited meanwhile. */
  tdur?: number;
  /** Thread clock at the event (begin and end events carry it instead of `tdur`). */
  tts?: number;
  pid: number;
  tid: number;
  id?: string;
  args?: Record<string, unknown> & { data?: Record<string, unknown> };
}

export interface ProfileNode {
  id: number;
  parent?: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

/** Main threads of renderers. */
export function mainThreads(events: TraceEvent[]): Set<string> {
  return new Set(
    events
      .filter((event) => event.ph === 'M' && event.name === 'thread_name')
      .filter((event) => (event.args as { name?: string }).name === 'CrRendererMain')
      .map((event) => `${event.pid}:${event.tid}`),
  );
}

/** Self time per event name inside [from, to] on one thread. */
export function selfTimes(events: TraceEvent[], thread: string, from: number, to: number) {
  const inside = events
    .filter((event) => `${event.pid}:${event.tid}` === thread && event.ph === 'X' && event.dur)
    .filter((event) => event.ts >= from && event.ts + (event.dur ?? 0) <= to)
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const self = new Map<string, number>();
  const stack: { end: number; name: string; child: number; dur: number }[] = [];
  const close = (until: number) => {
    while (stack.length && (stack.at(-1)?.end ?? 0) <= until) {
      const top = stack.pop();
      if (!top) break;
      self.set(top.name, (self.get(top.name) ?? 0) + top.dur - top.child);
    }
  };
  for (const event of inside) {
    close(event.ts);
    const parent = stack.at(-1);
    if (parent) parent.child += event.dur ?? 0;
    const name =
      event.name === 'EventDispatch'
        ? `EventDispatch(${String(event.args?.data?.type)})`
        : event.name;
    stack.push({ end: event.ts + (event.dur ?? 0), name, child: 0, dur: event.dur ?? 0 });
  }
  close(Number.POSITIVE_INFINITY);
  return [...self.entries()].sort((a, b) => b[1] - a[1]);
}

/** The CPU samples of the trace: each sample's time and stack (innermost first). */
export function samples(events: TraceEvent[]) {
  const nodes = new Map<number, ProfileNode>();
  const byProfile = new Map<string, { start: number; times: number[]; ids: number[] }>();
  for (const event of events) {
    if (event.name === 'Profile')
      byProfile.set(`${event.pid}:${event.id}`, {
        start: Number((event.args?.data as { startTime?: number } | undefined)?.startTime ?? 0),
        times: [],
        ids: [],
      });
  }
  for (const event of events) {
    if (event.name !== 'ProfileChunk') continue;
    const profile = byProfile.get(`${event.pid}:${event.id}`);
    if (!profile) continue;
    const data = event.args?.data as {
      cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] };
      timeDeltas?: number[];
    };
    for (const node of data.cpuProfile?.nodes ?? []) nodes.set(node.id, node);
    let time = profile.times.at(-1) ?? profile.start;
    for (const [index, id] of (data.cpuProfile?.samples ?? []).entries()) {
      time += data.timeDeltas?.[index] ?? 0;
      profile.times.push(time);
      profile.ids.push(id);
    }
  }
  const result: { time: number; stack: string[] }[] = [];
  for (const profile of byProfile.values())
    for (const [index, id] of profile.ids.entries()) {
      const stack: string[] = [];
      for (
        let node = nodes.get(id);
        node;
        node = node.parent ? nodes.get(node.parent) : undefined
      ) {
        const { functionName, url, lineNumber } = node.callFrame;
        stack.push(
          `${functionName || '(anonymous)'}${url ? ` ${url.split('/').at(-1)}:${lineNumber + 1}` : ''}`,
        );
      }
      result.push({ time: profile.times[index] as number, stack });
    }
  return result.sort((a, b) => a.time - b.time);
}

export function topFunctions(
  all: { time: number; stack: string[] }[],
  from: number,
  to: number,
  count = 12,
) {
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  for (const [index, sample] of all.entries()) {
    if (sample.time < from || sample.time > to) continue;
    const next = all[index + 1]?.time ?? sample.time;
    const weight = Math.min(next - sample.time, 2000);
    const name = sample.stack[0] ?? '?';
    self.set(name, (self.get(name) ?? 0) + weight);
    for (const frame of new Set(sample.stack)) total.set(frame, (total.get(frame) ?? 0) + weight);
  }
  const ms = (us: number) => (us / 1000).toFixed(1);
  const list = (map: Map<string, number>) =>
    [...map.entries()]
      .filter(([name]) => !/^\((root|program|idle)\)/.test(name))
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, us]) => `      ${ms(us).padStart(6)} ms  ${name}`)
      .join('\n');
  return `    self:\n${list(self)}\n    total (inclusive):\n${list(total)}`;
}

/**
 * The CPU (thread) time of each `name` event on the given threads, in milliseconds, longest first:
 * complete events (`X`, their `tdur`) and begin/end pairs (`B`/`E`, the difference of their `tts`).
 */
export function cpuTimes(events: TraceEvent[], name: string, threads: Set<string>): number[] {
  const times: number[] = [];
  const open = new Map<string, TraceEvent[]>();
  for (const event of [...events].sort((a, b) => a.ts - b.ts)) {
    const thread = `${event.pid}:${event.tid}`;
    if (event.name !== name || !threads.has(thread)) continue;
    if (event.ph === 'X') times.push((event.tdur ?? 0) / 1000);
    else if (event.ph === 'B') open.set(thread, [...(open.get(thread) ?? []), event]);
    else if (event.ph === 'E') {
      const begun = open.get(thread)?.pop();
      if (begun?.tts !== undefined && event.tts !== undefined)
        times.push((event.tts - begun.tts) / 1000);
    }
  }
  return times.sort((a, b) => b - a);
}
