/**
 * Validates streamed provider chunks against the shape the adapter relies on,
 * before any field is read. A chunk that does not match becomes an
 * `invalid_chunk` error (and so an `error` event), never a crash deep inside
 * the parser. Schemas list only what is read; extra fields are allowed.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ProviderStreamError } from './provider-stream-error';

export type ChunkValidator<T extends TSchema> = (chunk: unknown) => Static<T>;

export function createChunkValidator<T extends TSchema>(
  schema: T,
  description: string,
): ChunkValidator<T> {
  const compiled = TypeCompiler.Compile(schema);
  return (chunk) => {
    if (compiled.Check(chunk)) return chunk;
    const first = compiled.Errors(chunk).First();
    const where = first ? `${first.path || '/'}: ${first.message}` : 'unexpected shape';
    const sample = JSON.stringify(chunk)?.slice(0, 200) ?? String(chunk);
    throw new ProviderStreamError(
      'invalid_chunk',
      `a streamed ${description} did not have the documented shape (${where}; got ${sample}).`,
    );
  };
}
