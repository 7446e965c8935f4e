/**
 * The one set of migrations, in order. Each migration is written once and
 * receives the dialect's column types; names are sorted, so new ones go on
 * with the next number.
 */
import type { Migration, MigrationProvider } from 'kysely/migration';
import { type DatabaseKind, getColumnTypes } from '../column-types';
import { createAccountsMigration } from './0001-accounts';
import { createApplicationMigration } from './0002-application';
import { createChatTurnsMigration } from './0003-chat-turns';
import { createTurnEventsMigration } from './0004-turn-events';
import { createLimitsAndAdministrationMigration } from './0005-limits-and-administration';
import { createGeneratedImagesMigration } from './0008-generated-images';
import { createMcpServersMigration } from './0009-mcp-servers';
import { createGrantedRootsMigration } from './0010-granted-roots';

export function getMigrations(kind: DatabaseKind): Record<string, Migration> {
  const types = getColumnTypes(kind);
  return {
    '0001-accounts': createAccountsMigration(types),
    '0002-application': createApplicationMigration(types),
    '0003-chat-turns': createChatTurnsMigration(types),
    '0004-turn-events': createTurnEventsMigration(types),
    '0005-limits-and-administration': createLimitsAndAdministrationMigration(types),
    '0008-generated-images': createGeneratedImagesMigration(types),
    '0009-mcp-servers': createMcpServersMigration(types),
    '0010-granted-roots': createGrantedRootsMigration(types),
  };
}

export function createMigrationProvider(kind: DatabaseKind): MigrationProvider {
  return { getMigrations: async () => getMigrations(kind) };
}
