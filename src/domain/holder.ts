/**
 * The person behind a payment method: the card or account holder, the payer. One shape for every
 * path that stores one (a payment, a token, the gateway, a recurring profile, a pay link's payer),
 * trimmed, with empty text as absent, and one table of the lengths the service stores.
 */
export interface Holder {
  firstName?: string;
  lastName?: string;
  street?: string;
  city?: string;
  state?: string;
  zip?: string;
  country?: string;
  email?: string;
  /** The partner's own customer id (ExternalConstituentId). */
  externalConstituentId?: string;
}

export type HolderField = keyof Holder;

/** The longest text stored for each field (the payment API's limits). */
export const HOLDER_LIMITS: Readonly<Record<HolderField | 'nameOnAccount' | 'customerKey' | 'customerId', number>> = {
  firstName: 50,
  lastName: 50,
  street: 50,
  city: 50,
  state: 50,
  zip: 10,
  country: 2,
  email: 100,
  externalConstituentId: 200,
  nameOnAccount: 50,
  customerKey: 200,
  customerId: 200,
};

/** Text as stored: trimmed, and absent when empty. */
export function storedText(value: string | undefined | null): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}

/** A holder from fields as sent: each trimmed, the empty ones left out. */
export function holderOf(fields: { [K in HolderField]?: string | null }): Holder {
  const out: Holder = {};
  for (const key of Object.keys(fields) as HolderField[]) {
    const v = storedText(fields[key]);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** The fields of `holder` longer than the service stores, with their limit. */
export function holderTooLong(holder: Readonly<Record<string, string | undefined>>): { field: string; limit: number }[] {
  return Object.entries(holder).flatMap(([field, value]) => {
    const limit = (HOLDER_LIMITS as Record<string, number>)[field];
    return limit !== undefined && value !== undefined && value.length > limit ? [{ field, limit }] : [];
  });
}
