/**
 * An MCP tool's answer as the model reads it (docs/mcp.md#mcp-tools-in-turns): text
 * parts joined; images kept in the images store and referenced (never base64
 * in the model's context), each attached to the call so the chat shows it;
 * embedded resources as their text, other content summarised in a line; the
 * whole capped like a shell's output, with a visible marker. A server-side
 * `isError` is an error result (`execution_failed`) carrying the same text.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ImageStore } from '../images/image-store';
import { createOutputCapture } from '../tools/builtin/shell/output-capture';
import { ToolExecutionError } from '../tools/errors';
import { type ToolAttachment, withAttachments } from '../tools/tool-attachments';
import type { ToolContext } from '../tools/types';

/** The most bytes of text a result keeps (head and tail); the rest is dropped with a marker. */
export const MCP_RESULT_MAX_BYTES = 100_000;

type ContentBlock = CallToolResult['content'][number];

function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4);
}

async function describeImage(
  block: { data: string; mimeType: string },
  index: number,
  images: ImageStore | undefined,
  context: ToolContext,
  attachments: ToolAttachment[],
  serverName: string,
): Promise<string> {
  if (!images)
    return `[image (${block.mimeType}, ${base64Bytes(block.data)} bytes) not kept: no images store]`;
  try {
    const saved = await images.save({
      userId: context.userId,
      chatId: context.chatId,
      ...(context.toolCallId ? { toolCallId: context.toolCallId } : {}),
      mimeType: block.mimeType,
      bytes: Uint8Array.from(Buffer.from(block.data, 'base64')),
      prompt: `An image from the MCP server ${serverName}`,
    });
    const attachment: ToolAttachment = {
      type: 'image',
      index,
      imageId: saved.id,
      url: saved.url,
      mediaType: saved.mimeType,
      alt: `Image from ${serverName}`,
    };
    attachments.push(attachment);
    return `[image ${saved.id} (${saved.mimeType}, ${saved.byteSize} bytes), shown to the user at ${saved.url}]`;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    attachments.push({ type: 'image_failed', index, code: 'validation_failed', message: reason });
    return `[image (${block.mimeType}) not kept: ${reason}]`;
  }
}

async function describeBlock(
  block: ContentBlock,
  imageIndex: () => number,
  images: ImageStore | undefined,
  context: ToolContext,
  attachments: ToolAttachment[],
  serverName: string,
): Promise<string> {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return describeImage(block, imageIndex(), images, context, attachments, serverName);
    case 'audio':
      return `[audio (${block.mimeType}, ${base64Bytes(block.data)} bytes) not shown]`;
    case 'resource': {
      const { resource } = block;
      if ('text' in resource && typeof resource.text === 'string')
        return `[resource ${resource.uri}]\n${resource.text}`;
      const size =
        'blob' in resource && typeof resource.blob === 'string' ? base64Bytes(resource.blob) : 0;
      return `[resource ${resource.uri} (${resource.mimeType ?? 'binary'}, ${size} bytes) not shown]`;
    }
    case 'resource_link':
      return `[resource link: ${block.name} <${block.uri}>${block.mimeType ? ` (${block.mimeType})` : ''}]`;
    default:
      return `[${(block as { type?: string }).type ?? 'unknown'} content not shown]`;
  }
}

/** Turns a `tools/call` answer into the tool's result (or throws its error). */
export async function toToolResult(
  result: CallToolResult,
  context: ToolContext,
  options: { images?: ImageStore; serverName: string; maxBytes?: number },
): Promise<unknown> {
  const attachments: ToolAttachment[] = [];
  let images = 0;
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    parts.push(
      await describeBlock(
        block,
        () => images++,
        options.images,
        context,
        attachments,
        options.serverName,
      ),
    );
  }
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  const capture = createOutputCapture(options.maxBytes ?? MCP_RESULT_MAX_BYTES, 'the result');
  capture.push(new TextEncoder().encode(parts.join('\n')));
  const { text, truncated, droppedBytes } = capture.finish();
  if (result.isError) {
    throw new ToolExecutionError(
      `The MCP server ${options.serverName} reported an error: ${text || '(no message)'}`,
      { details: { isError: true, ...(truncated ? { droppedBytes } : {}) } },
    );
  }
  const value = truncated ? { output: text, truncated: true, droppedBytes } : { output: text };
  return attachments.length > 0 ? withAttachments(value, attachments) : value;
}
