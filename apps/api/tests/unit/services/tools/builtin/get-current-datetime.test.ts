import { describe, expect, test } from 'bun:test';
import { executeTool, ToolError } from '../../../../../src/services/tools';
import { dateTimeFormats } from '../../../../../src/services/tools/builtin/date-time-format-cache';
import {
  type CurrentDateTimeResult,
  describeDateTime,
  getCurrentDateTimeTool,
} from '../../../../../src/services/tools/builtin/get-current-datetime';
import { ToolParameterError } from '../../../../../src/services/tools/errors';
import {
  getDefaultToolSettings,
  mergeToolSettings,
} from '../../../../../src/services/tools/settings-policy';
import { createTestCallContext } from '../../../../support/tool-context';

async function call(args: unknown, saved?: { parameters: Record<string, unknown> }) {
  return (await executeTool(
    'get_current_datetime',
    args,
    createTestCallContext(),
    saved,
  )) as CurrentDateTimeResult;
}

async function rejection(args: unknown): Promise<ToolError> {
  try {
    await call(args);
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected a ToolError');
}

describe('get_current_datetime', () => {
  test('returns the UTC instant, the localised date-time and the offset for a timezone and locale', async () => {
    const before = Date.now();
    const result = await call({ timezone: 'America/Sao_Paulo', locale: 'pt-BR' });
    const after = Date.now();
    expect(result.timezone).toBe('America/Sao_Paulo');
    expect(result.locale).toBe('pt-BR');
    expect(result.offset).toBe('-03:00');
    expect(Date.parse(result.utc)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(result.utc)).toBeLessThanOrEqual(after);
    expect(result.utc).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(result.localIso).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}-03:00$/);
    // The local ISO string denotes the same instant (to the second) as the UTC one.
    expect(Math.abs(Date.parse(result.localIso) - Date.parse(result.utc))).toBeLessThan(1000);
    expect(result.localDateTime).toContain('de');
  });

  test('formats a fixed instant exactly', () => {
    const instant = new Date('2026-01-15T12:34:56.000Z');
    const result = describeDateTime(instant, 'Asia/Kathmandu', 'en-US');
    expect(result).toEqual({
      utc: '2026-01-15T12:34:56.000Z',
      unixMs: instant.getTime(),
      timezone: 'Asia/Kathmandu',
      locale: 'en-US',
      localDateTime: new Intl.DateTimeFormat('en-US', {
        timeZone: 'Asia/Kathmandu',
        dateStyle: 'full',
        timeStyle: 'long',
      }).format(instant),
      localIso: '2026-01-15T18:19:56+05:45',
      offset: '+05:45',
      dayOfWeek: 'Thursday',
    });
    expect(describeDateTime(instant, 'UTC', 'en-GB').offset).toBe('+00:00');
    expect(
      describeDateTime(new Date('2026-07-01T00:00:00Z'), 'Europe/Lisbon', 'pt-PT').offset,
    ).toBe('+01:00');
  });

  test('calls within one second share its local fields; the instant stays exact, and the next second, the next zone or a DST change are formatted anew', () => {
    const first = describeDateTime(new Date('2026-03-29T00:59:59.001Z'), 'Europe/Lisbon', 'en-GB');
    const later = describeDateTime(new Date('2026-03-29T00:59:59.999Z'), 'Europe/Lisbon', 'en-GB');
    expect(later.utc).toBe('2026-03-29T00:59:59.999Z');
    expect(later.unixMs).toBe(first.unixMs + 998);
    expect(later.localIso).toBe('2026-03-29T00:59:59+00:00');
    expect(later.localDateTime).toBe(first.localDateTime);
    // Lisbon moves to summer time at 01:00 UTC that day.
    const next = describeDateTime(new Date('2026-03-29T01:00:00.000Z'), 'Europe/Lisbon', 'en-GB');
    expect(next.localIso).toBe('2026-03-29T02:00:00+01:00');
    expect(next.offset).toBe('+01:00');
    const elsewhere = describeDateTime(new Date('2026-03-29T00:59:59.500Z'), 'Asia/Tokyo', 'en-GB');
    expect(elsewhere.localIso).toBe('2026-03-29T09:59:59+09:00');
    const otherLocale = describeDateTime(
      new Date('2026-03-29T00:59:59.500Z'),
      'Europe/Lisbon',
      'pt-PT',
    );
    expect(otherLocale.dayOfWeek).toBe('domingo');
    expect(first.dayOfWeek).toBe('Sunday');
  });

  test('formatters are made once per timezone and locale, then reused', async () => {
    const before = dateTimeFormats.size;
    await call({ timezone: 'Pacific/Chatham', locale: 'en-NZ' });
    const formatters = dateTimeFormats.size;
    expect(formatters).toBeGreaterThan(before);
    const again = await call({ timezone: 'Pacific/Chatham', locale: 'en-NZ' });
    await call({ timezone: 'Pacific/Chatham', locale: 'en-NZ' });
    expect(dateTimeFormats.size).toBe(formatters);
    expect(again.offset).toMatch(/^\+1[23]:45$/);
  });

  test('no arguments and null arguments both use the defaults (UTC, en-US)', async () => {
    const omitted = await call({});
    const nulls = await call({ timezone: null, locale: null });
    expect(omitted.timezone).toBe('UTC');
    expect(omitted.locale).toBe('en-US');
    expect(nulls.timezone).toBe('UTC');
    expect(nulls.locale).toBe('en-US');
  });

  test('the user’s default timezone and locale settings apply when the model names none', async () => {
    const result = await call(
      {},
      { parameters: { defaultTimezone: 'Asia/Tokyo', defaultLocale: 'ja-JP' } },
    );
    expect(result.timezone).toBe('Asia/Tokyo');
    expect(result.offset).toBe('+09:00');
    expect(result.locale).toBe('ja-JP');
  });

  test('a corrupt stored default timezone falls back to UTC instead of failing', async () => {
    const result = await call({}, { parameters: { defaultTimezone: 'Mars/Olympus' } });
    expect(result.timezone).toBe('UTC');
  });

  test('saving an unknown default timezone or locale is refused, naming what is expected', () => {
    const refusal = (parameters: Record<string, unknown>): ToolParameterError => {
      try {
        mergeToolSettings(getCurrentDateTimeTool, null, { parameters });
      } catch (error) {
        if (error instanceof ToolParameterError) return error;
        throw error;
      }
      throw new Error('expected a ToolParameterError');
    };
    const zone = refusal({ defaultTimezone: 'Sao_Paulo' });
    expect(zone.message).toContain('"Sao_Paulo" is not an IANA timezone');
    expect(zone.message).toContain('America/Sao_Paulo');
    expect(refusal({ defaultLocale: 'not a locale!' }).message).toContain('BCP 47');
    const saved = mergeToolSettings(getCurrentDateTimeTool, null, {
      parameters: { defaultTimezone: 'Asia/Kathmandu', defaultLocale: 'pt-BR' },
    });
    expect(saved.parameters).toMatchObject({
      defaultTimezone: 'Asia/Kathmandu',
      defaultLocale: 'pt-BR',
    });
  });

  test('an unknown IANA timezone is a clear validation_failed', async () => {
    const error = await rejection({ timezone: 'Mars/Olympus' });
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('"Mars/Olympus"');
    expect(error.message).toContain('IANA timezone');
  });

  test('a near miss gets suggestions', async () => {
    const error = await rejection({ timezone: 'Sao_Paulo' });
    expect(error.message).toContain('America/Sao_Paulo');
  });

  test('a malformed BCP 47 locale is validation_failed', async () => {
    const error = await rejection({ locale: 'not a locale!' });
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('BCP 47');
  });

  test('a non-string timezone is rejected, not replaced by the default', async () => {
    const error = await rejection({ timezone: 42 });
    expect(error.code).toBe('validation_failed');
    expect(error.message).toBe('Argument "timezone" must be a string; received the number 42.');
  });

  test('unknown arguments are rejected', async () => {
    expect((await rejection({ tz: 'UTC' })).message).toContain('Unknown argument "tz"');
  });

  test('buildDefinition announces the effective defaults', () => {
    const settings = mergeToolSettings(getCurrentDateTimeTool, {
      parameters: { defaultTimezone: 'Europe/Berlin' },
    });
    const built = getCurrentDateTimeTool.buildDefinition?.(settings);
    expect(built?.name).toBe('get_current_datetime');
    expect(built?.description).toContain('"Europe/Berlin"');
    expect(getDefaultToolSettings(getCurrentDateTimeTool).enabled).toBe(true);
  });
});
