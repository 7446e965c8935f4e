/**
 * Which images the store keeps, told by their bytes rather than by what a
 * provider or MCP server claims: PNG, JPEG, WebP and GIF. Anything else (SVG
 * above all, which is a document that can run script) is refused, so what
 * `GET /api/images/:id` serves from this origin is always a raster image of
 * the type its `content-type` says (docs/images.md#the-images-store).
 */

export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

const startsWith = (bytes: Uint8Array, prefix: readonly number[], offset = 0) =>
  bytes.length >= offset + prefix.length &&
  prefix.every((byte, index) => bytes[offset + index] === byte);

/** The media type the bytes are, or undefined when they are none of the kept ones. */
export function sniffImageMediaType(bytes: Uint8Array): ImageMediaType | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  // "RIFF" <size> "WEBP"
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8))
    return 'image/webp';
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return 'image/gif';
  return undefined;
}

/** `image/jpg` and parameters (`; charset=…`) are tolerated in what a provider claims. */
export function normalizeClaimedMediaType(claimed: string): string {
  const base = claimed.split(';')[0]?.trim().toLowerCase() ?? '';
  return base === 'image/jpg' ? 'image/jpeg' : base;
}
