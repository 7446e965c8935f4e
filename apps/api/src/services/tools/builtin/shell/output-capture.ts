/**
 * Bounded capture of one output stream: the first half of the cap is kept as
 * the head, the last half as the tail (a ring buffer), and everything between
 * is counted, never stored. Memory stays at the cap whatever the command
 * prints, and the result says exactly how many bytes were left out.
 */

export interface CapturedOutput {
  text: string;
  /** Bytes the stream delivered in total. */
  totalBytes: number;
  /** Bytes not included in `text` (0 when the stream fitted the cap). */
  droppedBytes: number;
  truncated: boolean;
}

export interface OutputCapture {
  push(chunk: Uint8Array): void;
  readonly totalBytes: number;
  finish(): CapturedOutput;
}

const decoder = new TextDecoder('utf-8');

function isContinuationByte(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0b1100_0000) === 0b1000_0000;
}

/** Length of `bytes` without an incomplete UTF-8 sequence at its end. */
function completeUtf8Prefix(bytes: Uint8Array): number {
  let start = bytes.length;
  // A sequence is at most 4 bytes: look back over up to 3 continuation bytes for its lead.
  while (start > 0 && bytes.length - start < 3 && isContinuationByte(bytes[start - 1])) start--;
  if (start === 0) return bytes.length;
  const lead = bytes[start - 1] ?? 0;
  const needed = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  const have = bytes.length - (start - 1);
  return have >= needed ? bytes.length : start - 1;
}

/** Offset of the first byte of `bytes` that is not a continuation byte (at most 3 skipped). */
function firstCharacterBoundary(bytes: Uint8Array): number {
  let offset = 0;
  while (offset < bytes.length && offset < 3 && isContinuationByte(bytes[offset])) offset++;
  return offset;
}

export function describeDroppedBytes(streamName: string, droppedBytes: number): string {
  return `\n[… ${droppedBytes} bytes of ${streamName} dropped; the head and the tail are kept …]\n`;
}

/** `limitBytes` is the most bytes of output the text may keep (head + tail). */
export function createOutputCapture(limitBytes: number, streamName: string): OutputCapture {
  const headLimit = Math.floor(limitBytes / 2);
  const tailLimit = limitBytes - headLimit;
  // Both grow as output arrives (most commands print a few bytes; the limit may be megabytes).
  let head: Uint8Array = new Uint8Array(0);
  let tail: Uint8Array = new Uint8Array(0);
  let headLength = 0;
  let tailLength = 0;
  // Index in `tail` where the next byte goes once the ring is full.
  let tailStart = 0;
  let totalBytes = 0;

  /** `buffer` with room for at least `needed` bytes (at most `limit`), its first `used` bytes kept. */
  function withRoom(buffer: Uint8Array, used: number, needed: number, limit: number): Uint8Array {
    if (needed <= buffer.length) return buffer;
    const grown = new Uint8Array(Math.min(limit, Math.max(needed, buffer.length * 2, 4096)));
    grown.set(buffer.subarray(0, used), 0);
    return grown;
  }

  function pushTail(chunk: Uint8Array): void {
    if (tailLimit === 0) return;
    // The ring only wraps once it is full, so until then it grows like the head.
    if (tail.length < tailLimit)
      tail = withRoom(tail, tailLength, tailLength + chunk.length, tailLimit);
    const bytes = chunk.length > tailLimit ? chunk.subarray(chunk.length - tailLimit) : chunk;
    for (let offset = 0; offset < bytes.length; ) {
      const position = (tailStart + tailLength) % tailLimit;
      if (tailLength < tailLimit) {
        const room = Math.min(tailLimit - tailLength, tailLimit - position);
        const count = Math.min(room, bytes.length - offset);
        tail.set(bytes.subarray(offset, offset + count), position);
        tailLength += count;
        offset += count;
      } else {
        const count = Math.min(tailLimit - tailStart, bytes.length - offset);
        tail.set(bytes.subarray(offset, offset + count), tailStart);
        tailStart = (tailStart + count) % tailLimit;
        offset += count;
      }
    }
  }

  function orderedTail(): Uint8Array {
    if (tailLength < tailLimit || tailStart === 0) return tail.subarray(0, tailLength);
    const ordered = new Uint8Array(tailLength);
    ordered.set(tail.subarray(tailStart), 0);
    ordered.set(tail.subarray(0, tailStart), tailLimit - tailStart);
    return ordered;
  }

  return {
    push(chunk) {
      totalBytes += chunk.length;
      let rest = chunk;
      if (headLength < headLimit) {
        const count = Math.min(headLimit - headLength, rest.length);
        head = withRoom(head, headLength, headLength + count, headLimit);
        head.set(rest.subarray(0, count), headLength);
        headLength += count;
        rest = rest.subarray(count);
      }
      if (rest.length > 0) pushTail(rest);
    },
    get totalBytes() {
      return totalBytes;
    },
    finish() {
      const tailBytes = orderedTail();
      if (totalBytes <= limitBytes) {
        const whole = new Uint8Array(headLength + tailBytes.length);
        whole.set(head.subarray(0, headLength), 0);
        whole.set(tailBytes, headLength);
        return { text: decoder.decode(whole), totalBytes, droppedBytes: 0, truncated: false };
      }
      // Cut both halves on character boundaries; the bytes given up count as dropped.
      const keptHead = head.subarray(0, completeUtf8Prefix(head.subarray(0, headLength)));
      const keptTail = tailBytes.subarray(firstCharacterBoundary(tailBytes));
      const droppedBytes = totalBytes - keptHead.length - keptTail.length;
      return {
        text: `${decoder.decode(keptHead)}${describeDroppedBytes(streamName, droppedBytes)}${decoder.decode(keptTail)}`,
        totalBytes,
        droppedBytes,
        truncated: true,
      };
    },
  };
}
