/** Why the images store refused an image (docs/images.md#the-images-store). */
import { AppError } from '../../errors';

export class ImageStoreError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('validation_failed', message, details ? { details } : {});
  }
}
