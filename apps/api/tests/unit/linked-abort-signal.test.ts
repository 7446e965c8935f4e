/**
 * linkAbortSignal (linked-abort-signal.ts): follows its sources until
 * released, and once released nothing of it stays reachable from them.
 */
import { expect, test } from 'bun:test';
import { linkAbortSignal } from '../../src/linked-abort-signal';

test('aborts with the reason of the first source that aborts', () => {
  const first = new AbortController();
  const second = new AbortController();
  const link = linkAbortSignal([first.signal, undefined, second.signal]);
  const heard: unknown[] = [];
  link.signal.addEventListener('abort', () => heard.push(link.signal.reason));
  second.abort('second');
  first.abort('first');
  expect(link.signal.aborted).toBe(true);
  expect(heard).toEqual(['second']);
});

test('a source aborted already aborts the signal at once', () => {
  const gone = new AbortController();
  gone.abort(new Error('gone'));
  const link = linkAbortSignal([new AbortController().signal, gone.signal]);
  expect(link.signal.aborted).toBe(true);
  expect((link.signal.reason as Error).message).toBe('gone');
});

test('with no sources it never aborts', () => {
  expect(linkAbortSignal([undefined]).signal.aborted).toBe(false);
});

test('once released it no longer follows its sources', () => {
  const source = new AbortController();
  const link = linkAbortSignal([source.signal]);
  link.release();
  link.release();
  source.abort('late');
  expect(link.signal.aborted).toBe(false);
});

/** Links made from `source` with a listener on each (as the provider SDKs add), dropped at once. */
function linksHeardOnce(source: AbortSignal, count: number, release: boolean): WeakRef<object>[] {
  const refs: WeakRef<object>[] = [];
  for (let index = 0; index < count; index++) {
    const link = linkAbortSignal([source]);
    const request = new AbortController();
    link.signal.addEventListener('abort', () => request.abort(), { once: true });
    if (release) link.release();
    refs.push(new WeakRef(link.signal), new WeakRef(request));
  }
  return refs;
}

test('a released signal and what listens to it can be collected while the source lives', async () => {
  const source = new AbortController();
  const released = linksHeardOnce(source.signal, 200, true);
  const kept = linksHeardOnce(source.signal, 200, false);
  await Bun.sleep(0);
  Bun.gc(true);
  const alive = (refs: WeakRef<object>[]) => refs.filter((ref) => ref.deref() !== undefined).length;
  // The collector scans the stack conservatively, so a stray word may keep one or two.
  expect(alive(released)).toBeLessThan(10);
  // Unreleased, the source's listener holds each of them.
  expect(alive(kept)).toBe(400);
  source.abort();
});
