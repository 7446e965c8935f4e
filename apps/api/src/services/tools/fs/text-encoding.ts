/**
 * Text encodings and line endings of files the filesystem tools read and
 * rewrite (docs/tools/filesystem.md#read_file, docs/tools/filesystem.md#the-freshness-ledger): BOM detection, strict decoding, re-encoding with
 * the file's own BOM, and line-ending detection and conversion.
 */

export type TextEncoding = 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be';
export type LineEndings = 'lf' | 'crlf' | 'mixed';

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** The encoding a file's first bytes announce; no BOM means UTF-8. */
export function detectEncoding(bytes: Uint8Array): TextEncoding {
  if (
    bytes.length >= 3 &&
    bytes[0] === UTF8_BOM[0] &&
    bytes[1] === UTF8_BOM[1] &&
    bytes[2] === UTF8_BOM[2]
  ) {
    return 'utf-8-bom';
  }
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return 'utf-8';
}

export function bomLength(encoding: TextEncoding): number {
  if (encoding === 'utf-8-bom') return 3;
  if (encoding === 'utf-16le' || encoding === 'utf-16be') return 2;
  return 0;
}

function decoderLabel(encoding: TextEncoding): string {
  return encoding === 'utf-8-bom' ? 'utf-8' : encoding;
}

/**
 * Decodes the bytes after the BOM. `fatal` throws on malformed input (used
 * before a rewrite); otherwise malformed sequences become U+FFFD (for display).
 */
export function decodeText(bytes: Uint8Array, encoding: TextEncoding, fatal = false): string {
  const body = bytes.subarray(bomLength(encoding));
  return new TextDecoder(decoderLabel(encoding), { fatal, ignoreBOM: true }).decode(body);
}

/** The text if the bytes are well-formed in their encoding, else undefined. */
export function tryDecodeStrict(bytes: Uint8Array, encoding: TextEncoding): string | undefined {
  try {
    return decodeText(bytes, encoding, true);
  } catch {
    return undefined;
  }
}

/** Encodes text in `encoding`, BOM included; a leading U+FEFF in `text` is not doubled. */
export function encodeText(text: string, encoding: TextEncoding): Uint8Array {
  const body = text.startsWith('\uFEFF') && encoding !== 'utf-8' ? text.slice(1) : text;
  switch (encoding) {
    case 'utf-8':
      return Buffer.from(body, 'utf8');
    case 'utf-8-bom':
      return Buffer.concat([Buffer.from(UTF8_BOM), Buffer.from(body, 'utf8')]);
    case 'utf-16le':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(body, 'utf16le')]);
    case 'utf-16be': {
      const little = Buffer.from(body, 'utf16le');
      little.swap16();
      return Buffer.concat([Buffer.from([0xfe, 0xff]), little]);
    }
  }
}

/** `crlf` when every line break is CRLF, `mixed` when both kinds occur, else `lf` (also for no breaks). */
export function detectLineEndings(text: string): LineEndings {
  let crlf = 0;
  let lf = 0;
  let index = text.indexOf('\n');
  while (index !== -1) {
    if (index > 0 && text.charCodeAt(index - 1) === 13) crlf += 1;
    else lf += 1;
    if (crlf > 0 && lf > 0) return 'mixed';
    index = text.indexOf('\n', index + 1);
  }
  return crlf > 0 ? 'crlf' : 'lf';
}

/** Turns every lone LF into CRLF; existing CRLFs stay as they are. */
export function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

/** `detectLineEndings` on UTF-8 bytes, without decoding (LF and CR are single bytes in UTF-8). */
export function detectLineEndingsInBytes(bytes: Uint8Array): LineEndings {
  let crlf = 0;
  let lf = 0;
  let index = bytes.indexOf(10);
  while (index !== -1) {
    if (index > 0 && bytes[index - 1] === 13) crlf += 1;
    else lf += 1;
    if (crlf > 0 && lf > 0) return 'mixed';
    index = bytes.indexOf(10, index + 1);
  }
  return crlf > 0 ? 'crlf' : 'lf';
}
