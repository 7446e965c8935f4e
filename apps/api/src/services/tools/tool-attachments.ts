/**
 * What a tool hands to the turn besides its result (docs/tool-system.md#attachments):
 * images it stored. The turn streams each one the moment it is attached
 * (`image_generated`) and keeps it as an `image` part of the assistant
 * message, right after the call's `tool_call` part, so a reload shows it; the
 * model reads only the result (references, never bytes). A tool attaches as
 * it goes through `ToolContext.attach` (each image of several as it is made),
 * or returns its attachments with its result (`withAttachments`, one answer
 * at once: an MCP result). An image the tool tried and failed to make is
 * reported the same way (`image_failed`); it has no part.
 */
import type { ErrorCode } from '@mango/shared';

/** A stored image (in the images store), by reference. */
export interface ToolImageAttachment {
  type: 'image';
  /** Its position among the images of this call (0-based). */
  index: number;
  imageId: string;
  /** `/api/images/:id`. */
  url: string;
  mediaType: string;
  /** A description for people who cannot see it (the prompt). */
  alt?: string;
}

/** An image of the call that could not be made. */
export interface ToolImageFailure {
  type: 'image_failed';
  index: number;
  code: ErrorCode;
  message: string;
}

export type ToolAttachment = ToolImageAttachment | ToolImageFailure;

/** A result with its attachments; the turn unwraps it, the model reads `value`. */
export class ToolResultWithAttachments {
  constructor(
    readonly value: unknown,
    readonly attachments: readonly ToolAttachment[],
  ) {}
}

export function withAttachments(
  value: unknown,
  attachments: readonly ToolAttachment[],
): ToolResultWithAttachments {
  return new ToolResultWithAttachments(value, attachments);
}

/** A tool's return value split into what the model reads and what it attached. */
export function splitToolResult(result: unknown): {
  value: unknown;
  attachments: readonly ToolAttachment[];
} {
  return result instanceof ToolResultWithAttachments
    ? { value: result.value, attachments: result.attachments }
    : { value: result, attachments: [] };
}
