import { holderOf, storedText } from '../../domain/holder.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import type { Tx } from '../../platform/database/database.ts';
import type { StoredToken, TokenService } from '../vault/token-service.ts';
import type { Instrument } from './instrument.ts';
import type { PaymentInputCommon } from './payment-input.ts';
import type { PaymentChanges } from './payment-record.ts';
import type { PaymentRepository } from './payment-repository.ts';
import { tokenColumns } from './payment-draft.ts';

/**
 * An approval with Tokenize: the card or account is stored and the answer written in one
 * transaction, so no approval is ever recorded without the token it asked for.
 * - 'written': both are (`changes`: what was written, the token's fields included);
 * - 'not-pending': an operator had resolved the payment meanwhile; nothing was written;
 * - 'refused': the transaction failed before its commit was asked for (the vault without its
 *   key, the database): nothing was written, and the caller records the answer alone;
 * - 'unclear': the commit itself failed, and may have happened.
 */
export async function recordApprovalWithToken(
  repository: PaymentRepository,
  tokens: TokenService,
  partner: AuthenticatedPartner,
  paymentGuid: string,
  update: PaymentChanges,
  instrument: Instrument,
  input: PaymentInputCommon,
): Promise<{ outcome: 'written'; changes: PaymentChanges } | { outcome: 'not-pending' } | { outcome: 'refused'; errorName: string } | { outcome: 'unclear'; error: unknown }> {
  const notPending = new Error('payment no longer pending');
  let committing = false;
  try {
    const changes = await repository.transaction(async (tx) => {
      const token = await storeSent(tokens, partner, instrument, input, tx);
      const written = token ? { ...update, ...tokenColumns(token) } : update;
      // Nothing of it stays when the payment is no longer pending: the token is for this approval.
      if (!(await repository.completeIn(tx, paymentGuid, written))) throw notPending;
      committing = true;
      return written;
    });
    return { outcome: 'written', changes };
  } catch (err) {
    if (err === notPending) return { outcome: 'not-pending' };
    if (committing) return { outcome: 'unclear', error: err };
    return { outcome: 'refused', errorName: (err as Error)?.name ?? 'Error' };
  }
}

/** Stores the card or account the request sent, checked once by the payment's rules. */
async function storeSent(tokens: TokenService, partner: AuthenticatedPartner, instrument: Instrument, input: PaymentInputCommon, tx: Tx): Promise<StoredToken | undefined> {
  if (instrument.kind === 'wallet' || !instrument.checked) return undefined;
  const holder = holderOf({
    firstName: input.firstName,
    lastName: input.lastName,
    street: input.street,
    zip: input.zip,
    externalConstituentId: input.externalConstituentId,
  });
  const options = { source: 'api' as const, customerKey: storedText(input.externalCustomerId) };
  if (instrument.kind === 'card') return tokens.storeCard(partner.id, instrument.checked, holder, options, tx);
  return tokens.storeBankAccount(
    partner.id,
    instrument.checked,
    holder,
    { ...options, accountType: instrument.accountType as 1 | 2, checkType: instrument.checkType as 1 | 2 | 3, nameOnAccount: instrument.name },
    tx,
  );
}
