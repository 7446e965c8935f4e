/**
 * The binary-detection window shared by read_file and grep (docs/tools/filesystem.md#read_file, docs/tools/filesystem.md#grep):
 * a file with a NUL byte in its first 8 KiB is binary, so a file grep searches
 * is a file read_file's text view opens, and the other way round.
 */

/** How many leading bytes are sniffed for a NUL. */
export const BINARY_SNIFF_BYTES = 8192;

/** True when the first `BINARY_SNIFF_BYTES` of `bytes` contain a NUL byte. */
export function looksBinary(bytes: Uint8Array): boolean {
  // Most files are shorter than the window: searched whole, without making a view of them.
  if (bytes.length <= BINARY_SNIFF_BYTES) return bytes.indexOf(0) !== -1;
  return bytes.subarray(0, BINARY_SNIFF_BYTES).indexOf(0) !== -1;
}

/**
 * The text view's variant: a UTF-16 file announced by its BOM is text when
 * its first 8 KiB hold no NUL character (its ASCII letters carry NUL bytes).
 */
export function looksBinaryForTextView(bytes: Uint8Array): boolean {
  const utf16 =
    bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
  if (!utf16) return looksBinary(bytes);
  const end = Math.min(bytes.length, BINARY_SNIFF_BYTES) & ~1;
  for (let index = 2; index < end; index += 2) {
    if (bytes[index] === 0 && bytes[index + 1] === 0) return true;
  }
  return false;
}
