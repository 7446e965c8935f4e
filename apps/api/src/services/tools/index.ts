/**
 * The tool layer's public entry points (docs/tool-system.md#core-types). Importing this module
 * registers every built-in tool into the default registry.
 */
import './builtin/get-current-datetime';
import './builtin/glob';
import './builtin/grep';
import './builtin/list-directory';
import './builtin/read-file';
import './builtin/shell';
import './builtin/write-file';
import './builtin/edit-file';

export { createKeyedMutex } from '../../keyed-mutex';
export { parseToolArguments, requireNonBlank } from './arg-parsing';
export {
  createGenerateImageTool,
  createGenerateImageToolPlan,
  GENERATE_IMAGE_TOOL_NAME,
  type GenerateImageToolDeps,
  NO_IMAGE_MODEL_REASON,
} from './builtin/generate-image';
export {
  buildShellTool,
  registerAvailableShellTools,
  runShellCommand,
  type ShellCommandResult,
} from './builtin/shell';
export * from './errors';
export {
  DEFAULT_TOOL_TIMEOUT_SECONDS,
  executeTool,
  getToolTimeoutMs,
  runWithToolBudget,
  SETTLE_GRACE_MS,
} from './execute';
export { createDatabaseFreshnessLedger } from './freshness/database-freshness-ledger';
export { createMemoryFreshnessLedger } from './freshness/memory-freshness-ledger';
export {
  createToolRegistry,
  defaultToolRegistry,
  getTool,
  listTools,
  registerTool,
  TOOL_NAME_PATTERN,
  ToolRegistrationError,
  type ToolRegistry,
} from './registry';
export {
  type EnabledToolRuntime,
  getEnabledToolRuntime,
  lookupSavedSettings,
  type SavedToolSettingsByName,
} from './runtime';
export {
  clampIntegerSetting,
  clampNumberSetting,
  getBooleanSetting,
  getDefaultToolSettings,
  getPathListSetting,
  getSafeEffectiveToolSettings,
  getStringListSetting,
  getStringSetting,
  getToolDefinition,
  getToolDefinitionsForTools,
  mergeToolSettings,
  normalizeToolParameters,
} from './settings-policy';
export { BUILTIN_SOURCE_INFO, createBuiltinToolSource } from './sources/builtin-tool-source';
export {
  createToolCatalog,
  DEFAULT_SOURCE_BUDGET_MS,
  type ToolCatalog,
  type ToolCatalogListing,
  type ToolCatalogProblem,
  type ToolCatalogRequest,
} from './sources/tool-catalog';
export {
  DISABLED_TOOL_REASON,
  describeSourcedTool,
  type SourcedTool,
  type ToolListingRequest,
  type ToolSource,
  type ToolSourceInfo,
  type ToolState,
} from './sources/tool-source';
export {
  splitToolResult,
  type ToolAttachment,
  ToolResultWithAttachments,
  withAttachments,
} from './tool-attachments';
export {
  createToolSettingsRepository,
  type ToolSettingsRepository,
  type ToolSettingsRow,
} from './tool-settings-repository';
export {
  createToolSettingsService,
  TOOL_SETTINGS_CHANNEL,
  type ToolSettingsService,
} from './tool-settings-service';
export type * from './types';
