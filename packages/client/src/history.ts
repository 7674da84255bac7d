import type { HistoryEntry, HistoryWithdrawal } from './types.js';

/** Whether a history entry is a withdrawal (an entry of its own) rather than a published Risk Indicator. */
export function isWithdrawal(entry: HistoryEntry): entry is HistoryWithdrawal {
  return (entry as { entry_type?: unknown }).entry_type === 'withdrawal';
}
