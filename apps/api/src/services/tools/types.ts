/**
 * The tool layer's core types (docs/tool-system.md#core-types). Built-ins, the settings policy, the
 * execution layer and the provider mappers all speak in these shapes.
 */

import type {
  ChatMode,
  ToolCategory,
  ToolParameterDescriptor,
  ToolParameterOption,
  ToolParameterType,
  ToolProgress,
} from '@mango/shared';
import type { ToolDefinition } from '../providers/spec';
import type { ToolAttachment } from './tool-attachments';

// Declared once, in the provider contract: a definition is what the model sees,
// and the tool layer hands the same objects to the adapters.
export type { JsonSchema, JsonSchemaType, ToolDefinition } from '../providers/spec';

// Declared once, as the settings API's TypeBox contracts (apps/shared), and
// used here as the tool layer's types.
export type {
  ChatMode,
  ToolCategory,
  ToolParameterDescriptor,
  ToolParameterOption,
  ToolParameterType,
};

/** One entry of a `path_list` setting (allowed/denied paths). Disabled entries are ignored. */
export interface PathListEntry {
  path: string;
  enabled: boolean;
}

export interface ToolSettingsMetadata {
  title: string;
  description: string;
  category: ToolCategory;
  enabledByDefault: boolean;
  canDisable: boolean;
  defaultParameters: Record<string, unknown>;
  parameterDescriptors: ToolParameterDescriptor[];
}

/** A tool's settings after the three-step merge: defaults < saved < updates (docs/tool-system.md#settings-policy). */
export interface EffectiveToolSettings {
  enabled: boolean;
  parameters: Record<string, unknown>;
}

/**
 * What the database holds for one user and tool. Both fields may be missing or
 * corrupt (a row written by an older version, or by hand), so they are `unknown`
 * until the settings policy has coerced them.
 */
export interface StoredToolSettings {
  enabled?: boolean | null;
  parameters?: unknown;
}

/** A change requested through the settings API; validated strictly. */
export interface ToolSettingsUpdate {
  enabled?: boolean;
  parameters?: Record<string, unknown>;
}

/** What the freshness ledger remembers about one file a chat has read (docs/tools/filesystem.md#the-freshness-ledger). */
export interface FileReadRecord {
  /** sha256 (hex) of the whole file as it was read. */
  sha256: string;
  size: number;
  mtimeMs: number;
  /** True once the reads cover the whole file (text windows from line 1 to the end, or a byte view). */
  complete: boolean;
  /** Text windows read so far, contiguous from line 1 (0 when none). */
  linesCovered: number;
  totalLines: number;
  /**
   * Windows of the same content read beyond the covered prefix and not yet
   * joined to it (windows read out of order), sorted and disjoint. Absent when none.
   */
  laterWindows?: LineWindow[];
}

/** An inclusive, 1-based range of lines. */
export interface LineWindow {
  startLine: number;
  endLine: number;
}

/** The per-chat read-before-write ledger. Paths are real (symlink-resolved) absolute paths. */
export interface FileFreshnessLedger {
  get(realPath: string): Promise<FileReadRecord | undefined>;
  set(realPath: string, record: FileReadRecord): Promise<void>;
  delete(realPath: string): Promise<void>;
  /** Runs `task` while holding this path's lock, so mutations of one path serialise. */
  withLock<T>(realPath: string, task: () => Promise<T>): Promise<T>;
}

/**
 * Progress a long-running tool reports while it works (e.g. one image of several
 * is done). Declared once, as the `ToolProgress` contract the chat stream carries
 * inside its `tool_call_progress` events.
 */
export type ToolProgressEvent = ToolProgress;

export type { ToolAttachment, ToolImageAttachment, ToolImageFailure } from './tool-attachments';

/** What an executor receives (docs/tool-system.md#core-types). */
export interface ToolContext {
  userId: string;
  chatId: string;
  mode: ChatMode;
  /** The chat's bound directory, absolute. */
  workingDirectory?: string;
  /** Containment (docs/tools/filesystem.md#paths-and-the-working-directory); only meaningful in agent mode. */
  restrictToWorkingDirectory: boolean;
  /** Effective settings of this tool. */
  parameters: Record<string, unknown>;
  /** Fires on timeout or on cancel; `signal.reason` is a `ToolTimeoutError` or a `ToolAbortedError`. */
  signal: AbortSignal;
  freshness: FileFreshnessLedger;
  emit?: (event: ToolProgressEvent) => void;
  /** The id of the call being run (what stored images are linked to), when a turn runs it. */
  toolCallId?: string;
  /**
   * Hands an image the tool stored (or one it failed to make) to the turn,
   * which streams it at once and keeps it in the assistant message
   * (docs/tool-system.md#attachments).
   */
  attach?: (attachment: ToolAttachment) => void;
  /**
   * Paths no tool may touch whatever the settings say (the server's data
   * directory); the path policy refuses them (rule `serverData`).
   */
  protectedPaths?: readonly string[];
  /**
   * The directories an admin granted this user (docs/security.md#system-tools-are-granted): when
   * present, the path policy refuses every path outside them (rule
   * `grantedRoots`). Absent for an admin, who may reach anywhere.
   */
  grantedRoots?: readonly string[];
}

/**
 * What a caller of `executeTool` provides: the context minus what the execution
 * layer derives itself (the tool's effective parameters). `signal` is the parent's
 * cancel signal; the execution layer combines it with the tool's time budget.
 */
export type ToolCallContext = Omit<ToolContext, 'parameters' | 'signal'> & { signal?: AbortSignal };

export interface RegisteredTool {
  definition: ToolDefinition;
  buildDefinition?: (settings: EffectiveToolSettings) => ToolDefinition;
  settings: ToolSettingsMetadata;
  execute: (args: unknown, context: ToolContext) => Promise<unknown>;
  /**
   * Checks a setting's meaning beyond its descriptor (an IANA zone name, say)
   * when the settings API saves it, after the type and range checks. Returns
   * what is wrong and what is expected, or undefined when the value is fine.
   */
  checkParameter?: (name: string, value: unknown) => string | undefined;
  /**
   * Calls of this tool within one step run one at a time, in order, rather
   * than concurrently with each other (generate_image: one image request at a
   * time per turn).
   */
  runsAlone?: boolean;
  /**
   * When the call's budget runs out or the turn is cancelled, the executor
   * answers promptly with what it has (the images made so far) instead of
   * having its result dropped: the execution layer waits for that answer, up
   * to `SETTLE_GRACE_MS`, before it gives up on it.
   */
  settlesOnAbort?: boolean;
  /**
   * Why the tool cannot be offered to this user or chat now (a missing
   * dependency, a permission the user lacks), or undefined when it can. The
   * tool is then listed `unavailable` with that reason and never offered.
   */
  unavailableReason?: (scope: ToolScope) => string | undefined | Promise<string | undefined>;
  /**
   * The tool touches the server's machine (its files, its processes): a
   * system tool in the sense of docs/security.md#system-tools-are-granted,
   * offered to a non-admin only inside the roots an admin granted them.
   */
  reachesHost?: boolean;
}

/**
 * Where a user's system tools may reach on the server
 * (docs/security.md#system-tools-are-granted): anywhere for an admin; for
 * anyone else only inside the roots an admin granted (none by default).
 */
export type HostAccess = { kind: 'admin' } | { kind: 'granted'; roots: readonly string[] };

/** Whom and where a tool is listed or run for: a user, and the chat when a turn or the inspector asks. */
export interface ToolScope {
  userId: string;
  chat?: ToolChatScope;
  /** What the user's system tools may reach; absent: no restriction (a caller outside the app). */
  hostAccess?: HostAccess;
}

/** What a tool may know of the chat it serves. */
export interface ToolChatScope {
  id: string;
  mode: ChatMode;
  workingDirectory?: string;
  restrictToWorkingDirectory: boolean;
}
