/**
 * The binary-detection window shared by read_file and grep (SPEC §7.3, §7.7):
 * a file with a NUL byte in its first 8 KiB is binary, so a file grep searches
 * is a file read_file's text view opens, and the other way round.
 */

/** How many leading bytes are sniffed for a NUL. */
export const BINARY_SNIFF_BYTES = 8192;

/** True when the first `BINARY_SNIFF_BYTES` of `bytes` contain a NUL byte. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  return bytes.subarray(0, end).indexOf(0) !== -1;
}
