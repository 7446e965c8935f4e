/**
 * TypeBox contracts shared by the API and its clients (the single source of the HTTP types),
 * and the chat view both the web UI and tests fold turns with.
 */

export * from './chat-view/fold-chat';
export * from './contracts/admin';
export * from './contracts/capabilities';
export * from './contracts/chat-events';
export * from './contracts/chat-parts';
export * from './contracts/chats';
export * from './contracts/errors';
export * from './contracts/health';
export * from './contracts/mcp';
export * from './contracts/models';
export * from './contracts/tool-settings';
