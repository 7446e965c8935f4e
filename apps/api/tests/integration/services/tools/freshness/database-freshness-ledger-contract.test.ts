/** The database freshness ledger passes the same contract as the in-memory one, on SQLite and PostgreSQL. */
import { createDatabaseFreshnessLedger } from '../../../../../src/services/tools/freshness/database-freshness-ledger';
import { describeFreshnessLedgerContract } from '../../../../support/freshness-ledger-contract';
import { describeEachDatabase } from '../../../../support/test-databases';
import { insertTestChat, insertTestUser } from '../../../../support/test-rows';

describeEachDatabase('database freshness ledger contract', (_kind, current) => {
  // Contract chat names → chat rows of this database (the ledger's chat_id is a foreign key).
  const chats = new Map<string, Promise<string>>();
  describeFreshnessLedgerContract('database', async (name) => {
    const { database } = current();
    let chatId = chats.get(name);
    if (!chatId) {
      chatId = insertTestUser(database).then((userId) => insertTestChat(database, userId));
      chats.set(name, chatId);
    }
    return createDatabaseFreshnessLedger(database, await chatId);
  });
});
