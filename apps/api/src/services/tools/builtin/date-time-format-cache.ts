/**
 * `Intl.DateTimeFormat` objects made once per locale and options, then reused:
 * making one costs many times what formatting with it does, and
 * get_current_datetime needs five per call (the load bench's server profile,
 * bench/load/, found them at a sixth of the server's time). The cache is
 * bounded: past `maxEntries`, the least recently used one goes.
 */

export interface DateTimeFormatCache {
  /** The formatter for `locale` and `options`; throws as `new Intl.DateTimeFormat` does (nothing is kept then). */
  get(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat;
  readonly size: number;
}

export function createDateTimeFormatCache(maxEntries: number): DateTimeFormatCache {
  const formats = new Map<string, Intl.DateTimeFormat>();
  return {
    get(locale, options) {
      const key = `${locale}\n${JSON.stringify(options)}`;
      const cached = formats.get(key);
      if (cached) {
        // Moved to the end: the first key is always the least recently used.
        formats.delete(key);
        formats.set(key, cached);
        return cached;
      }
      const format = new Intl.DateTimeFormat(locale, options);
      formats.set(key, format);
      if (formats.size > maxEntries) formats.delete(formats.keys().next().value as string);
      return format;
    },
    get size() {
      return formats.size;
    },
  };
}

/** Enough for every timezone a server's users name in a few locales. */
export const dateTimeFormats = createDateTimeFormatCache(512);
