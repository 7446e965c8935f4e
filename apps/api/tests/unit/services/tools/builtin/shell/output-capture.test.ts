import { describe, expect, test } from 'bun:test';
import { createOutputCapture } from '../../../../../../src/services/tools/builtin/shell/output-capture';

const encoder = new TextEncoder();

function capture(limit: number, chunks: Uint8Array[]) {
  const output = createOutputCapture(limit, 'stdout');
  for (const chunk of chunks) output.push(chunk);
  return output.finish();
}

function bytesOf(text: string): Uint8Array {
  return encoder.encode(text);
}

/** `length` ASCII bytes that differ by position, so a misplaced slice shows. */
function numbered(length: number): string {
  let text = '';
  for (let index = 0; text.length < length; index++) text += `${index},`;
  return text.slice(0, length);
}

describe('createOutputCapture', () => {
  test('output shorter than the cap is kept whole', () => {
    const result = capture(100, [bytesOf('hello '), bytesOf('world')]);
    expect(result).toEqual({
      text: 'hello world',
      totalBytes: 11,
      droppedBytes: 0,
      truncated: false,
    });
  });

  test('output exactly at the cap is kept whole, in any chunking', () => {
    const text = numbered(1024);
    for (const size of [1, 7, 512, 513, 1024]) {
      const chunks: Uint8Array[] = [];
      for (let offset = 0; offset < text.length; offset += size) {
        chunks.push(bytesOf(text.slice(offset, offset + size)));
      }
      const result = capture(1024, chunks);
      expect(result.text).toBe(text);
      expect(result.truncated).toBe(false);
      expect(result.droppedBytes).toBe(0);
    }
  });

  test('one byte over the cap drops exactly one byte between head and tail', () => {
    const text = numbered(1025);
    const result = capture(1024, [bytesOf(text)]);
    expect(result.truncated).toBe(true);
    expect(result.droppedBytes).toBe(1);
    expect(result.text.startsWith(text.slice(0, 512))).toBe(true);
    expect(result.text.endsWith(text.slice(-512))).toBe(true);
    expect(result.text).toContain('1 bytes of stdout dropped');
  });

  test('far over the cap: head and tail kept, the middle counted exactly, whatever the chunk sizes', () => {
    const text = numbered(100_000);
    for (const size of [7, 333, 4096, 100_000]) {
      const chunks: Uint8Array[] = [];
      for (let offset = 0; offset < text.length; offset += size) {
        chunks.push(bytesOf(text.slice(offset, offset + size)));
      }
      const result = capture(1000, chunks);
      expect(result.totalBytes).toBe(100_000);
      expect(result.droppedBytes).toBe(99_000);
      expect(result.text.startsWith(text.slice(0, 500))).toBe(true);
      expect(result.text.endsWith(text.slice(-500))).toBe(true);
      expect(result.text).toContain('99000 bytes of stdout dropped');
    }
  });

  test('cuts never split a UTF-8 character; the bytes given up are counted as dropped', () => {
    // 1000 × "é" (2 bytes each); an odd cap puts both cuts inside a character.
    const text = 'é'.repeat(1000);
    const result = capture(1025, [bytesOf(text)]);
    expect(result.text).not.toContain('\uFFFD');
    const [head, tail] = result.text.split(/\n\[…[^\]]*\]\n/);
    expect(head).toBe('é'.repeat(256));
    expect(tail).toBe('é'.repeat(256));
    expect(result.droppedBytes).toBe(2000 - 512 - 512);
  });

  test('a four-byte character straddling the head cut is left out whole', () => {
    const text = `ab${'😀'.repeat(100)}`;
    const result = capture(8, [bytesOf(text)]);
    const [head, tail] = result.text.split(/\n\[…[^\]]*\]\n/);
    expect(head).toBe('ab');
    expect(tail).toBe('😀');
    expect(result.droppedBytes).toBe(2 + 400 - 2 - 4);
  });
  test('buffers that grow with the output keep what fixed ones did, for any sizes and chunkings', () => {
    // A small deterministic generator, so a failure repeats.
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % below;
    };
    for (let run = 0; run < 300; run++) {
      const limit = [0, 1, 2, 7, 4096, 4097, 9000, 70_000][run % 8] as number;
      const length = random(3) === 0 ? random(limit + 2) : random(3 * limit + 20_000);
      const text = numbered(length);
      const chunks: Uint8Array[] = [];
      for (let offset = 0; offset < length; ) {
        const size = 1 + random(random(2) === 0 ? 64 : 12_000);
        chunks.push(bytesOf(text.slice(offset, offset + size)));
        offset += size;
      }
      const result = capture(limit, chunks);
      const headLimit = Math.floor(limit / 2);
      const tailLimit = limit - headLimit;
      const expected =
        length <= limit
          ? text
          : `${text.slice(0, headLimit)}\n[… ${length - limit} bytes of stdout dropped; the head and the tail are kept …]\n${tailLimit === 0 ? '' : text.slice(length - tailLimit)}`;
      expect({ limit, length, text: result.text }).toEqual({ limit, length, text: expected });
      expect(result.totalBytes).toBe(length);
      expect(result.droppedBytes).toBe(Math.max(0, length - limit));
    }
  });
});
