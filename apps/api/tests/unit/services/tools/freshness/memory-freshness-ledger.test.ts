import { createMemoryFreshnessLedger } from '../../../../../src/services/tools/freshness/memory-freshness-ledger';
import type { FileFreshnessLedger } from '../../../../../src/services/tools/types';
import { describeFreshnessLedgerContract } from '../../../../support/freshness-ledger-contract';

const ledgersByChat = new Map<string, FileFreshnessLedger>();

describeFreshnessLedgerContract('in-memory', (chatId) => {
  let ledger = ledgersByChat.get(chatId);
  if (!ledger) {
    ledger = createMemoryFreshnessLedger();
    ledgersByChat.set(chatId, ledger);
  }
  return ledger;
});
