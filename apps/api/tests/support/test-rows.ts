/** Minimal rows that other rows point at (users, chats), inserted straight into a test database. */
import type { AppDatabase } from '../../src/db/database';

let counter = 0;

export async function insertTestUser(database: AppDatabase, name = 'user'): Promise<string> {
  counter += 1;
  const id = `${name}-${process.pid}-${counter}`;
  const now = new Date().toISOString();
  await database.db
    .insertInto('users')
    .values({
      id,
      name,
      email: `${id}@example.test`,
      email_verified: false,
      image: null,
      role: 'user',
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

export async function insertTestChat(database: AppDatabase, userId: string): Promise<string> {
  counter += 1;
  const id = `chat-${process.pid}-${counter}`;
  const now = new Date().toISOString();
  await database.db
    .insertInto('chats')
    .values({
      id,
      user_id: userId,
      title: 'test chat',
      mode: 'agent',
      working_directory: null,
      restrict_to_working_directory: true,
      model: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}
