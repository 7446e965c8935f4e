/**
 * The system prompt of a turn. Agent mode announces the chat's working
 * directory and whether tools are confined to it (docs/tools/filesystem.md#paths-and-the-working-directory, docs/chat-turns.md#what-is-stored-and-streamed); chat mode
 * says nothing about directories, because its tools do not use one.
 */
import type { ChatMode } from '../tools/types';

export interface SystemPromptOptions {
  mode: ChatMode;
  workingDirectory?: string | null;
  restrictToWorkingDirectory: boolean;
  /** Instructions configured for the chat, placed first. */
  instructions?: string | null;
}

export function buildSystemPrompt(options: SystemPromptOptions): string | undefined {
  const sections: string[] = [];
  if (options.instructions?.trim()) sections.push(options.instructions.trim());
  if (options.mode === 'agent') {
    if (options.workingDirectory) {
      sections.push(
        [
          `You are working in the directory ${options.workingDirectory}.`,
          'Relative paths in tool calls are resolved against it, and tools that take an optional path or cwd default to it.',
          options.restrictToWorkingDirectory
            ? 'File tools are restricted to this directory: nothing outside it can be read, listed, searched or written.'
            : 'File tools are not restricted to this directory; paths outside it are allowed unless a tool setting denies them.',
        ].join(' '),
      );
    } else {
      sections.push('No working directory is bound to this chat: give tools absolute paths.');
    }
  }
  return sections.length > 0 ? sections.join('\n\n') : undefined;
}
