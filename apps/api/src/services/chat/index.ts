/** The chat layer's public entry points: the turn loop, the toolset and the system prompt. */
export { type ChatTools, type ChatToolsDeps, listChatTools } from './chat-tools';
export {
  type ChatTurnResult,
  DEFAULT_MAX_ITERATIONS,
  MAX_ITERATIONS_LIMIT,
  type RunChatTurnOptions,
  resolveMaxIterations,
  runChatTurn,
  TurnOptionsError,
} from './run-chat-turn';
export { buildSystemPrompt, type SystemPromptOptions } from './system-prompt';
export { createTurnToolset, type ToolCallRequest, type TurnToolset } from './turn-toolset';
