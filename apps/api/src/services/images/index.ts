/** The images store (docs/images.md#the-images-store): the contract and its database implementation. */
export { createDatabaseImageStore, MAX_IMAGE_BYTES } from './database-image-store';
export { createDirectoryImageBytes, type ImageBytesStore } from './directory-image-bytes';
export { IMAGE_MEDIA_TYPES, type ImageMediaType, sniffImageMediaType } from './image-media-types';
export {
  createImageId,
  type ImageStore,
  imageUrl,
  type SavedImage,
  type SaveImageInput,
  type StoredImage,
} from './image-store';
export { ImageStoreError } from './image-store-errors';
