export type PartnerKind = 'non-profit' | 'for-profit';
export const PARTNER_KINDS: readonly PartnerKind[] = ['non-profit', 'for-profit'];

/** The partner a request acts for, as established by its access token. */
export interface AuthenticatedPartner {
  id: string;
  name: string;
  kind: PartnerKind;
}
