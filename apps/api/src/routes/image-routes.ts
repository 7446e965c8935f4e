/**
 * `GET /api/images/:id` (docs/http-api.md#images): a stored image, to its
 * owner only (another user's id answers 404 like a missing one). Ids are never
 * reused and an image never changes, so the answer may be cached for a year;
 * the ETag is the bytes' sha256, and `If-None-Match` answers 304. `nosniff`
 * and a sandboxing CSP keep a browser from treating the bytes as anything but
 * the image type the store verified.
 */
import { Type } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { ApiError } from '../errors';
import type { ImageStore } from '../services/images/image-store';
import { currentUser } from './authentication';
import { errorResponses } from './error-responses';

const ImageParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

/** Private: the image is its owner's; a shared cache must not keep it. */
export const IMAGE_CACHE_CONTROL = 'private, max-age=31536000, immutable';

function imageNotFound(imageId: string): ApiError {
  return new ApiError(
    'not_found',
    `There is no image "${imageId}" among yours. Image links come from the chat's messages (its image parts).`,
  );
}

/** Whether an If-None-Match header names this ETag (or is `*`). */
function matchesEtag(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header
    .split(',')
    .map((value) => value.trim().replace(/^W\//, ''))
    .some((value) => value === '*' || value === etag);
}

export function createImageRoutes(images: ImageStore) {
  return new Elysia({ name: 'mango/image-routes' }).use(currentUser()).get(
    '/images/:id',
    async ({ params, user, request }) => {
      const headers = (etag: string) => ({
        etag,
        'cache-control': IMAGE_CACHE_CONTROL,
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
      });
      const ifNoneMatch = request.headers.get('if-none-match');
      // A revalidation reads the metadata only; a plain request reads the row once.
      if (ifNoneMatch) {
        const found = await images.find(user.id, params.id);
        if (!found) throw imageNotFound(params.id);
        const etag = `"${found.sha256}"`;
        if (matchesEtag(ifNoneMatch, etag))
          return new Response(null, { status: 304, headers: headers(etag) });
      }
      const image = await images.read(user.id, params.id);
      if (!image) throw imageNotFound(params.id);
      return new Response(image.bytes as Uint8Array<ArrayBuffer>, {
        status: 200,
        headers: {
          ...headers(`"${image.sha256}"`),
          'content-type': image.mimeType,
          'content-length': String(image.byteSize),
          'content-disposition': 'inline',
        },
      });
    },
    {
      params: ImageParams,
      response: { 200: Type.Any({ description: 'The image bytes' }), ...errorResponses(401, 404) },
      detail: {
        summary: 'A generated image (owner only; cached for a year, ETag = sha256 of the bytes)',
      },
    },
  );
}
