import { describe, expect, test } from 'bun:test';
import { createDateTimeFormatCache } from '../../../../../src/services/tools/builtin/date-time-format-cache';

const instant = new Date('2026-01-15T12:34:56.000Z');

describe('the date-time format cache', () => {
  test('the same locale and options give the same formatter; any difference gives another', () => {
    const cache = createDateTimeFormatCache(8);
    const lisbon = cache.get('pt-PT', { timeZone: 'Europe/Lisbon', weekday: 'long' });
    expect(cache.get('pt-PT', { timeZone: 'Europe/Lisbon', weekday: 'long' })).toBe(lisbon);
    const kathmandu = cache.get('pt-PT', { timeZone: 'Asia/Kathmandu', weekday: 'long' });
    const english = cache.get('en-US', { timeZone: 'Europe/Lisbon', weekday: 'long' });
    expect(kathmandu).not.toBe(lisbon);
    expect(english).not.toBe(lisbon);
    expect(cache.size).toBe(3);
    // Each formats as a new formatter with its own locale and options would.
    expect(english.format(instant)).toBe('Thursday');
    expect(
      cache
        .get('en-US', { timeZone: 'Asia/Kathmandu', hourCycle: 'h23', hour: '2-digit' })
        .format(instant),
    ).toBe('18');
    expect(
      cache
        .get('en-US', { timeZone: 'America/Sao_Paulo', hourCycle: 'h23', hour: '2-digit' })
        .format(instant),
    ).toBe('09');
  });

  test('past its bound the least recently used formatter goes, and a used one stays', () => {
    const cache = createDateTimeFormatCache(2);
    const utc = cache.get('en-US', { timeZone: 'UTC' });
    const lisbon = cache.get('en-US', { timeZone: 'Europe/Lisbon' });
    expect(cache.get('en-US', { timeZone: 'UTC' })).toBe(utc); // now the most recently used
    cache.get('en-US', { timeZone: 'Asia/Tokyo' });
    expect(cache.size).toBe(2);
    expect(cache.get('en-US', { timeZone: 'UTC' })).toBe(utc);
    expect(cache.get('en-US', { timeZone: 'Europe/Lisbon' })).not.toBe(lisbon);
  });

  test('an unknown timezone throws as the constructor does, and nothing is kept', () => {
    const cache = createDateTimeFormatCache(4);
    expect(() => cache.get('en-US', { timeZone: 'Mars/Olympus_Mons' })).toThrow(RangeError);
    expect(cache.size).toBe(0);
  });
});
