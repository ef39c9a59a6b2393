import type { FeeLineInput } from '../../domain/fees.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import { fingerprint } from '../../platform/logging.ts';
import type { PayLinkLine, WorkflowType } from './paylink-rules.ts';

/** Everything the page shows or passes on, fixed when the link is made (stored as the link's `settings`). */
export interface PayLinkSettings {
  ipAddress: string | null;
  showTransactionId: boolean;
  transactionIdText: string | null;
  /** The link's text, or the default (integration source name, else the provider name). */
  poweredByText: string;
  poweredByUrl: string;
  /** null: the page's translated default ("Submit Payment"). */
  donateButtonText: string | null;
  /** As sent (default `en`); the page resolves it to one of its languages. */
  language: string;
  defaultCountryCode: string | null;
  /** Sanitized CSS, scoped to the page. */
  theme: string | null;
  /** Local font family names, in order of preference. */
  themeFonts: string[];
  /** The payer's fields the form starts with. */
  prefill: Record<PrefillField, string | null>;
  tokenizeCard: boolean;
  /** TokenGuid or ExternalCardToken, resolved to the card token's TokenGuid. */
  savedCardTokenId: string | null;
  /** TokenGuid (a bank account) or ExternalCheckToken, resolved to the token's TokenGuid. */
  savedBankTokenId: string | null;
  externalEventId: string | null;
  externalEventName: string | null;
  externalConstituentId: string | null;
  externalCustomerId: string | null;
  /** Fixed for the link: from Country, else DefaultCountryCode. */
  currency: string;
}

export type PrefillField = 'firstName' | 'lastName' | 'email' | 'street' | 'city' | 'state' | 'zip' | 'country' | 'phone';

export type PayLinkStatus = 'active' | 'completed' | 'cancelled';

export interface PayLink {
  id: string;
  url: string;
  partner: AuthenticatedPartner;
  integrationSourceId: string | null;
  processorId: string | null;
  workflowType: WorkflowType;
  status: PayLinkStatus;
  redirectUrl: string;
  tranId: string | null;
  lines: PayLinkLine[];
  settings: PayLinkSettings;
  paymentId: string | null;
  tokenId: string | null;
  recurringProfileId: string | null;
  createdAt: Date;
}

/** A link as stored: its URL is the service's (PUBLIC_BASE_URL). */
export type StoredPayLink = Omit<PayLink, 'url'>;

/**
 * How long a submission holds a link. Far longer than one processor call can take (the simulator's
 * SIMULATOR_LATENCY_MS is at most 60 s; a real adapter must time out well within this), so a live
 * submission does not lose its lease; a crashed one blocks the link ("busy") for at most this long
 * when it charged nothing (when its payment may have charged, the payment blocks the link: see
 * `PayLinkService.hold`). A submission that loses its lease anyway cannot complete the link (the
 * lease is a fencing token) and voids its payment.
 */
export const PAY_LINK_LEASE_MS = 10 * 60_000;

/**
 * A submission's hold on a link: the fencing token `complete` and `release` must present. It is
 * the lease's expiry instant, which is unique among the submissions that may still act on the
 * link: a lease is taken over only once it has expired (`lease_until < now`), and the new one ends
 * at `now + PAY_LINK_LEASE_MS`, later than every lease before it; a submission that released its
 * lease has finished and never presents it again.
 */
export interface PayLinkLease {
  readonly id: string;
  readonly until: Date;
}

/** PayLinkId: 18 random bytes, 24 base64url characters, 144 bits. */
export const PAY_LINK_ID_BYTES = 18;
export const PAY_LINK_ID = /^[A-Za-z0-9_-]{24}$/;

/**
 * What the logs say of a pay link: the log fingerprint of its id (a short hash, the same that
 * stands for the id in logged request URLs), never the id, which is the page's only key.
 */
export function payLinkRef(id: string): string {
  return fingerprint(id);
}

/** The fee engine's line of a pay link line. */
export function feeLineOf(line: PayLinkLine): FeeLineInput {
  return {
    transactionSourceGroupId: line.type,
    amountCents: line.amountCents,
    payFee: line.payFee,
    tipCents: 0,
    taxCents: 0,
    externalLineId: line.externalLineId,
  };
}
