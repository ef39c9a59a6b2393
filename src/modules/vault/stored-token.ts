import type { AccountTypeId, CheckTypeId } from '../../domain/bank.ts';

/** The surface that stored a token. */
export type TokenSource = 'api' | 'gateway' | 'paypage';
export type TokenKind = 'card' | 'bank';

/** A token as every surface sees it. Never the number: `reveal` is for the processor adapter only. */
export interface StoredToken {
  /** TokenGuid */
  id: string;
  partnerId: string;
  kind: TokenKind;
  /** CcInfoKey (card) or CheckInfoKey (bank): a numeric string. */
  gatewayKey: string;
  /** CustomerKey (ExternalCustomerId) */
  customerKey: string;
  /** The gateway's CustomerID, when the gateway made the token. */
  customerId: string | null;
  last4: string;
  /** 1-6 for cards (brand), 7 for bank accounts. */
  paymentMethodTypeId: number;
  /** The spec's CardType name (American Express, Mastercard, Visa, Discover, Diners Club, JCB); null for bank accounts. */
  cardType: string | null;
  expMonth: string | null;
  expYear: string | null;
  routingNumber: string | null;
  accountType: AccountTypeId | null;
  checkType: CheckTypeId | null;
  bankCountry: string | null;
  nameOnAccount: string | null;
  firstName: string | null;
  lastName: string | null;
  street: string | null;
  zip: string | null;
  externalConstituentId: string | null;
  source: TokenSource;
  status: 'active' | 'deleted';
  createdAt: Date;
}

/** A token's row as it is written: everything but the gateway key, which the database's sequence gives. */
export interface NewToken {
  id: string;
  partnerId: string;
  kind: TokenKind;
  customerKey: string;
  customerId: string | null;
  externalConstituentId: string | null;
  secretCiphertext: string;
  secretKeyId: string;
  last4: string;
  paymentMethodTypeId: number;
  expMonth: string | null;
  expYear: string | null;
  routingNumber: string | null;
  accountType: number | null;
  checkType: number | null;
  bankCountry: string | null;
  nameOnAccount: string | null;
  firstName: string | null;
  lastName: string | null;
  street: string | null;
  zip: string | null;
  source: TokenSource;
  status: 'active';
  createdAt: Date;
  deletedAt: null;
}
