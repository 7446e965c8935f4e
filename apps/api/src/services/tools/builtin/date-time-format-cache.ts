/**
 * `Intl.DateTimeFormat` objects made once per locale and options, then reused:
 * making one costs many times what formatting with it does, and
 * get_current_datetime needs five per call (the load bench's server profile,
 * bench/load/, found them at a sixth of the server's time). The cache is
 * bounded: past `maxEntries`, the least recently used one goes.
 */

import { LRUCache } from 'lru-cache';

export interface DateTimeFormatCache {
  /** The formatter for `locale` and `options`; throws as `new Intl.DateTimeFormat` does (nothing is kept then). */
  get(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat;
  readonly size: number;
}

export function createDateTimeFormatCache(maxEntries: number): DateTimeFormatCache {
  const formats = new LRUCache<string, Intl.DateTimeFormat>({ max: maxEntries });
  return {
    get(locale, options) {
      const key = `${locale}\n${JSON.stringify(options)}`;
      let format = formats.get(key);
      if (!format) {
        format = new Intl.DateTimeFormat(locale, options);
        formats.set(key, format);
      }
      return format;
    },
    get size() {
      return formats.size;
    },
  };
}

/** Enough for every timezone a server's users name in a few locales. */
export const dateTimeFormats = createDateTimeFormatCache(512);
