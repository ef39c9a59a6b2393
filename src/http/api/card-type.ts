/**
 * The response's CardType, from the values the spec lists. A brand outside them (JCB) is
 * `Undefined` on the wire: integrations may read CardType into an enum of exactly these, and
 * PaymentMethodTypeId (6) still says JCB. The pay page and the records keep the brand's name.
 */
const SPEC_CARD_TYPES: ReadonlySet<string> = new Set(['American Express', 'Mastercard', 'Visa', 'Discover', 'Diners Club']);

/** Every CardType a response can carry (the OpenAPI document's enum). */
export const WIRE_CARD_TYPES = [...SPEC_CARD_TYPES, 'Undefined'] as const;

export function wireCardType(cardType: string | null): string {
  return cardType !== null && SPEC_CARD_TYPES.has(cardType) ? cardType : 'Undefined';
}
