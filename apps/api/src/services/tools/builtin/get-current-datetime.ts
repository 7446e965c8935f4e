/**
 * get_current_datetime (docs/tools/datetime.md#get_current_datetime): the current date and time in an IANA
 * timezone and a BCP 47 locale, with the UTC instant and the zone's offset.
 */
import { LRUCache } from 'lru-cache';
import { parseToolArguments } from '../arg-parsing';
import { ToolArgumentError } from '../errors';
import { registerTool } from '../registry';
import { getStringSetting } from '../stored-setting-readers';
import type { EffectiveToolSettings, RegisteredTool, ToolDefinition } from '../types';
import { dateTimeFormats } from './date-time-format-cache';

export interface CurrentDateTimeResult {
  /** The instant in UTC, ISO 8601 (`2026-12-02T14:24:46.000Z`). */
  utc: string;
  /** Milliseconds since the Unix epoch. */
  unixMs: number;
  timezone: string;
  locale: string;
  /** The date and time as people in that locale write it. */
  localDateTime: string;
  /** The local wall-clock time with its offset, ISO 8601 (`2026-12-02T11:24:46-03:00`). */
  localIso: string;
  /** Offset from UTC, `+HH:MM` / `-HH:MM`. */
  offset: string;
  dayOfWeek: string;
}

const DEFAULT_TIMEZONE = 'UTC';
const DEFAULT_LOCALE = 'en-US';

const SOURCE_DEFINITION: ToolDefinition = {
  name: 'get_current_datetime',
  description:
    'Returns the current date and time: the UTC instant, the local date-time in an IANA timezone formatted for a BCP 47 locale, and the UTC offset.',
  parameters: {
    type: 'object',
    properties: {
      timezone: {
        type: 'string',
        description: 'IANA timezone name, e.g. "America/Sao_Paulo", "Europe/Lisbon" or "UTC".',
        minLength: 1,
        maxLength: 64,
      },
      locale: {
        type: 'string',
        description: 'BCP 47 language tag for formatting, e.g. "pt-BR" or "en-GB".',
        minLength: 1,
        maxLength: 35,
      },
    },
    required: [],
    additionalProperties: false,
  },
};

/** The canonical IANA name, or undefined when `timezone` is not a zone this runtime knows. */
export function canonicalTimezone(timezone: string): string | undefined {
  try {
    return dateTimeFormats.get('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The canonical BCP 47 tag, or undefined when `locale` is not a well-formed tag. */
export function canonicalLocale(locale: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(locale)[0];
  } catch {
    return undefined;
  }
}

function suggestTimezones(timezone: string): string[] {
  const needle = timezone.toLowerCase().split('/').pop() ?? '';
  if (needle.length < 3) return [];
  return Intl.supportedValuesOf('timeZone')
    .filter((zone) => zone.toLowerCase().includes(needle))
    .slice(0, 3);
}

function resolveTimezone(requested: string): string {
  const zone = canonicalTimezone(requested);
  if (zone) return zone;
  const suggestions = suggestTimezones(requested);
  throw new ToolArgumentError(
    `Argument "timezone" must be an IANA timezone name such as "America/Sao_Paulo" or "UTC"; "${requested}" is not one.${suggestions.length > 0 ? ` Did you mean ${suggestions.map((zone) => `"${zone}"`).join(', ')}?` : ''}`,
    { details: { argument: 'timezone' } },
  );
}

function resolveLocale(requested: string): string {
  const locale = canonicalLocale(requested);
  if (!locale) {
    throw new ToolArgumentError(
      `Argument "locale" must be a BCP 47 language tag such as "pt-BR" or "en-US"; "${requested}" is not well-formed.`,
      { details: { argument: 'locale' } },
    );
  }
  if (Intl.DateTimeFormat.supportedLocalesOf([locale]).length === 0) {
    throw new ToolArgumentError(
      `Argument "locale" names "${locale}", which this server cannot format dates for. Use a common tag such as "en-US", "pt-BR" or "de-DE".`,
      { details: { argument: 'locale' } },
    );
  }
  return locale;
}

/** `GMT-03:00` / `GMT+05:45` / `GMT` → `-03:00` / `+05:45` / `+00:00`. */
function offsetOf(date: Date, timezone: string): string {
  const part = dateTimeFormats
    .get('en-US', { timeZone: timezone, timeZoneName: 'longOffset' })
    .formatToParts(date)
    .find((item) => item.type === 'timeZoneName')?.value;
  const match = part?.match(/^GMT([+-])(\d{2}):?(\d{2})?/);
  if (!match) return '+00:00';
  return `${match[1]}${match[2]}:${match[3] ?? '00'}`;
}

function localIsoOf(date: Date, timezone: string, offset: string): string {
  const parts = Object.fromEntries(
    dateTimeFormats
      .get('en-US', {
        timeZone: timezone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      })
      .formatToParts(date)
      .map((part) => [part.type, part.value]),
  );
  const year = String(parts.year).padStart(4, '0');
  return `${year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}

type LocalFields = Pick<
  CurrentDateTimeResult,
  'localDateTime' | 'localIso' | 'offset' | 'dayOfWeek'
>;

/**
 * The local fields of one whole second in a zone and locale. Nothing they show
 * is finer than a second (offsets change on second boundaries too), so every
 * call within that second reuses them instead of formatting four times again.
 */
const localFieldsBySecond = new LRUCache<string, LocalFields>({ max: 256 });

function localFieldsOf(date: Date, timezone: string, locale: string): LocalFields {
  const key = `${Math.floor(date.getTime() / 1000)}\n${timezone}\n${locale}`;
  let fields = localFieldsBySecond.get(key);
  if (!fields) {
    const offset = offsetOf(date, timezone);
    fields = {
      localDateTime: dateTimeFormats
        .get(locale, { timeZone: timezone, dateStyle: 'full', timeStyle: 'long' })
        .format(date),
      localIso: localIsoOf(date, timezone, offset),
      offset,
      dayOfWeek: dateTimeFormats.get(locale, { timeZone: timezone, weekday: 'long' }).format(date),
    };
    localFieldsBySecond.set(key, fields);
  }
  return fields;
}

export function describeDateTime(
  date: Date,
  timezone: string,
  locale: string,
): CurrentDateTimeResult {
  const { localDateTime, localIso, offset, dayOfWeek } = localFieldsOf(date, timezone, locale);
  return {
    utc: date.toISOString(),
    unixMs: date.getTime(),
    timezone,
    locale,
    localDateTime,
    localIso,
    offset,
    dayOfWeek,
  };
}

function defaultsFrom(parameters: Record<string, unknown>): { timezone: string; locale: string } {
  const timezone =
    canonicalTimezone(getStringSetting(parameters.defaultTimezone, DEFAULT_TIMEZONE)) ??
    DEFAULT_TIMEZONE;
  const locale =
    canonicalLocale(getStringSetting(parameters.defaultLocale, DEFAULT_LOCALE)) ?? DEFAULT_LOCALE;
  return { timezone, locale };
}

export const getCurrentDateTimeTool: RegisteredTool = {
  definition: SOURCE_DEFINITION,
  buildDefinition: (settings: EffectiveToolSettings): ToolDefinition => {
    const { timezone, locale } = defaultsFrom(settings.parameters);
    return {
      ...SOURCE_DEFINITION,
      description: `${SOURCE_DEFINITION.description} Without arguments it uses timezone "${timezone}" and locale "${locale}".`,
    };
  },
  settings: {
    title: 'Current date and time',
    description: 'Lets the model know the current date and time in any timezone.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: { defaultTimezone: DEFAULT_TIMEZONE, defaultLocale: DEFAULT_LOCALE },
    parameterDescriptors: [
      {
        name: 'defaultTimezone',
        label: 'Default timezone',
        description: 'IANA timezone used when the model does not name one.',
        type: 'string',
        defaultValue: DEFAULT_TIMEZONE,
      },
      {
        name: 'defaultLocale',
        label: 'Default locale',
        description: 'BCP 47 locale used to format the date when the model does not name one.',
        type: 'string',
        defaultValue: DEFAULT_LOCALE,
      },
    ],
  },
  checkParameter: (name, value) => {
    if (typeof value !== 'string') return undefined;
    if (name === 'defaultTimezone' && canonicalTimezone(value) === undefined) {
      const close = suggestTimezones(value);
      return `"${value}" is not an IANA timezone; expected a name such as "UTC", "Europe/Lisbon" or "America/Sao_Paulo"${close.length > 0 ? ` (did you mean ${close.map((zone) => `"${zone}"`).join(', ')}?)` : ''}.`;
    }
    if (name === 'defaultLocale' && canonicalLocale(value) === undefined) {
      return `"${value}" is not a BCP 47 locale tag; expected a tag such as "en-US" or "pt-BR".`;
    }
    return undefined;
  },
  execute: async (args, context) => {
    const parsed = parseToolArguments<{ timezone?: string; locale?: string }>(
      args,
      SOURCE_DEFINITION.parameters,
    );
    const defaults = defaultsFrom(context.parameters);
    const timezone =
      parsed.timezone === undefined ? defaults.timezone : resolveTimezone(parsed.timezone);
    const locale = parsed.locale === undefined ? defaults.locale : resolveLocale(parsed.locale);
    return describeDateTime(new Date(), timezone, locale);
  },
};

registerTool(getCurrentDateTimeTool);
